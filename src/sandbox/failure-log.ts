import { SourceMap } from 'node:module';
import { digestForLog } from '../log-digest.js';
import { WRAPPER_LINES } from './bundle.js';
import type { FailureReason, ThrownFacts } from './protocol.js';

/*
 * What a `transform.failed` line says of a failure. A module's error text can hold payload text (a
 * transform throwing `JSON.stringify(payload)`, V8's `JSON.parse` message quoting its input), and
 * raw payloads stay out of the logs: the line carries the error's name, where in the module it was
 * thrown and a digest of the text. The text itself is the HookError's cause, which the operator
 * views (`hookgate try`, the console's playground) show.
 */

export interface FailureLogFields {
  reason: FailureReason;
  /** The thrown error's name (`TypeError`), or the type of a thrown non-error; only when it threw. */
  error?: string;
  /** `file:line:column` of the throw in the module's source (by the bundle's source map); only when known. */
  at?: string;
  /** Length and SHA-256 prefix of the error text: matches what `hookgate try` shows, never the text. */
  detail: { sha256: string; length: number };
}

/** Where `line:column` of the bundle a worker ran came from in the module's own files. */
function sourceLocation(sourceMap: SourceMap | undefined, at: string): string | undefined {
  const match = /^(\d+):(\d+)$/.exec(at);
  if (match === null) return undefined;
  const line = Number(match[1]) - 1 - WRAPPER_LINES;
  const column = Number(match[2]) - 1;
  const entry = sourceMap?.findEntry(line, column);
  if (entry === undefined || !('originalSource' in entry)) return `bundle:${at}`;
  const file = entry.originalSource.replace(/^.*?:\/\/+/, '').replace(/^.*\/(?=[^/]+$)/, '');
  return `${file}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
}

export function failureLogFields(reason: FailureReason, error: string, thrown: ThrownFacts | undefined, sourceMap: SourceMap | undefined): FailureLogFields {
  const at = thrown === undefined ? undefined : sourceLocation(sourceMap, thrown.at);
  return {
    reason,
    ...(thrown === undefined ? {} : { error: thrown.name }),
    ...(at === undefined ? {} : { at }),
    detail: digestForLog(error),
  };
}

/** The bundle's source map, for naming throw sites; undefined when esbuild gave none. */
export function readSourceMap(payload: object | undefined): SourceMap | undefined {
  return payload === undefined ? undefined : new SourceMap(payload as ConstructorParameters<typeof SourceMap>[0]);
}
