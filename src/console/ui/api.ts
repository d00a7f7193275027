/** The console's JSON API (relative URLs: the page lives at {console}/). */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

let csrf: string | undefined;

export function setCsrf(token: string | undefined): void {
  csrf = token;
}

async function parse<T>(response: Response): Promise<T> {
  const body = (await response.json().catch(() => ({}))) as { ok?: boolean; error?: string; code?: string };
  if (!response.ok || body.ok !== true) throw new ApiError(response.status, body.code ?? 'HTTP', body.error ?? `HTTP ${response.status}`);
  return body as T;
}

export async function get<T>(path: string, query: Record<string, string | number | undefined> = {}): Promise<T> {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(key, String(value));
  const search = params.toString();
  return parse<T>(await fetch(`api/${path}${search === '' ? '' : `?${search}`}`, { credentials: 'same-origin', cache: 'no-store' }));
}

/** Every POST carries the session's CSRF token in a header (a cross-site page cannot set one). */
export async function post<T>(path: string, body: unknown = {}): Promise<T> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (csrf !== undefined) headers['x-csrf-token'] = csrf;
  return parse<T>(await fetch(`api/${path}`, { method: 'POST', credentials: 'same-origin', headers, body: JSON.stringify(body) }));
}
