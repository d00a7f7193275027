import { UsageError } from './args.js';

/** A header name as HTTP allows it (RFC 9110 token): never ":" or "=", so either may separate K from V. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * `--header` values, `K:V` (as curl and HTTP write them) or `K=V` (as `--query` and the docs'
 * `X-GitHub-Event=pull_request`): split at the first ":" or "=", whichever comes first, so a value
 * may hold the other (`X-Hub-Signature-256: sha256=…`). Names lower-cased, as the service sees them.
 */
export function headerArgs(items: readonly string[]): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const item of items) {
    const at = item.search(/[:=]/);
    if (at <= 0) throw new UsageError(`--header ${JSON.stringify(item)} is not of the form K:V or K=V`);
    const name = item.slice(0, at).trim();
    if (!HEADER_NAME.test(name)) throw new UsageError(`--header ${JSON.stringify(item)}: ${JSON.stringify(name)} is not a header name`);
    out[name.toLowerCase()] = item.slice(at + 1).trim();
  }
  return { ...out };
}

/** `--query` values, `K=V`. */
export function queryArgs(items: readonly string[]): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const item of items) {
    const at = item.indexOf('=');
    if (at <= 0) throw new UsageError(`--query ${JSON.stringify(item)} is not of the form K=V`);
    out[item.slice(0, at).trim()] = item.slice(at + 1).trim();
  }
  return { ...out };
}
