/** Where a template problem is, in the template as the user wrote it (before the bracket rewrite). */
export interface Position {
  line: number;
  column: number;
}

/**
 * `line L, column C` (both 1-based) in the original source. Handlebars reports positions in the
 * rewritten template, where `a[0]` became `a.[0]`: the inserted dots before the column are
 * subtracted by walking the original and the rewritten line side by side.
 */
export function describePosition(at: Position, source: string, rewritten: string): string {
  const original = source.split('\n')[at.line - 1] ?? '';
  const changed = rewritten.split('\n')[at.line - 1] ?? '';
  let column = 0;
  for (let i = 0; i < at.column && i < changed.length; i += 1) {
    if (changed[i] === original[column]) column += 1; // else: a dot the rewrite inserted
  }
  return `line ${at.line}, column ${column + 1}`;
}

/**
 * Handlebars' parser reports `Parse error on line N:` followed by an excerpt and a list of
 * expected tokens; the line and what it found are what a user needs.
 */
export function describeParseError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = /on line (\d+)/.exec(message)?.[1];
  const got = /got '([^']+)'/.exec(message)?.[1];
  if (line === undefined) return message.replace(/\s+/g, ' ').trim();
  const found = got === 'EOF' ? 'the template ends inside an unclosed block or expression' : got === undefined ? 'unexpected input' : `unexpected ${got.toLowerCase()}`;
  return `syntax error at line ${line}: ${found}`;
}
