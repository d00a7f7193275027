/**
 * References to another repository or project in a GitHub or GitLab reply. GitHub links
 * `owner/repo#12` and `owner/repo@<sha>` and adds a cross-reference event to that timeline
 * ("Autolinked references and URLs"); GitLab links `group[/sub…]/project#12`, `…!12` (merge request),
 * `…&12` (epic), `…@<sha>`, the same-namespace `project#12`, `project!12` and `group&12`, and adds a
 * "mentioned in" note to what they name ("GitLab-specific references"). Both find them, as mentions,
 * in the rendered text outside code and links. A zero-width space after the separator keeps the text
 * and ends the reference; `#12` alone (the same repository) has no path before its `#` and stays.
 */

/**
 * The last character of a path before a separator (letters, digits, `_`, `.`, `-`), or `;`, which
 * ends a character reference that may spell one (`othe&#114;#2`).
 */
const PATH_END = /[A-Za-z0-9_.;-]/;
/** What follows the separator of an issue, merge request or epic reference: its number, or a character reference that may spell one. */
const NUMBER_START = /[0-9&]/;
/** What follows the `@` of a commit reference: its hash, or a character reference. */
const HASH_START = /[0-9A-Fa-f&]/;
/**
 * `#`, `!` or `&` written as a character reference: the rendered text has the separator. (An `@`
 * written so is shown as written anyway, as it could spell a mention: markup-prose.ts.)
 */
const SEPARATOR_REFERENCE = /&(?:#0*(?:35|33|38);|#[xX]0*(?:23|21|26);|num;|excl;|amp;)/y;

/** Whether the `#`, `!` or `&` at `at` (or a backslash escape of one) separates a path from a number. `before`: the character sent before `text`. */
export function numberReferenceAt(text: string, at: number, separator: number, before: string): boolean {
  return pathEndsAt(text, at - 1, before) && NUMBER_START.test(text.charAt(separator + 1));
}

/** Whether the `@` at `separator` (written at `at`, or escaped there) separates a path from a commit hash; the caller tells an e-mail address apart. */
export function commitReferenceAt(text: string, at: number, separator: number, before: string): boolean {
  return pathEndsAt(text, at - 1, before) && HASH_START.test(text.charAt(separator + 1));
}

/** Whether a character reference at `at` spells the separator of a path and a number (`acme/other&#35;2`). */
export function separatorReferenceAt(text: string, at: number, before: string): boolean {
  SEPARATOR_REFERENCE.lastIndex = at;
  const found = SEPARATOR_REFERENCE.exec(text);
  return found !== null && pathEndsAt(text, at - 1, before) && NUMBER_START.test(text.charAt(at + found[0].length));
}

function pathEndsAt(text: string, index: number, before: string): boolean {
  return PATH_END.test(index < 0 ? before : text.charAt(index));
}
