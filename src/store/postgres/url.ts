/**
 * The shape of `storage.url`, checked without connecting (`hookgate check`, config load). Messages
 * never repeat the URL: it usually carries the password.
 */
export function postgresUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a URL (expected postgres://user:password@host:5432/database)';
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    return `must start with postgres:// or postgresql:// (got ${parsed.protocol}//)`;
  }
  // A host in the query (?host=/var/run/postgresql) is how libpq URLs name a Unix socket.
  if (parsed.hostname === '' && !parsed.searchParams.has('host')) return 'names no host';
  if (parsed.port !== '' && !/^\d+$/.test(parsed.port)) return 'has an invalid port';
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  if (database === '' || database.includes('/')) return 'names no database (…/database at the end)';
  return undefined;
}

/** `postgres://user@host:5432/db`: what logs and `hookgate check` may show of the URL. */
export function describePostgresUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    parsed.search = '';
    return parsed.toString();
  } catch {
    return '(invalid URL)';
  }
}
