import { post, startTestService, type TestService } from '../helpers/service.js';
import { failingProviderConfig } from '../helpers/failing-provider.js';

export const GATEWAY_TOKEN = 'gateway-admin-token-abcdef0123';

/** A service with the console on, a mapping, and a provider that always fails (`broken/x`). */
export function startConsoleService(extra: Record<string, unknown> = {}): Promise<TestService> {
  const base = failingProviderConfig();
  return startTestService({
    ...base,
    ...extra,
    gateway: { auth: { token: GATEWAY_TOKEN }, ...(extra['gateway'] as object | undefined) },
    hooks: {
      mappings: [{ id: 'greeter', match: { path: 'greet' }, action: 'agent', name: 'Greeter', messageTemplate: 'Say hi to {{who}}' }],
      ...(extra['hooks'] as object | undefined),
    },
  });
}

/** A logged-in console client: keeps the cookie and the CSRF token like the page does. */
export class ConsoleClient {
  cookie = '';
  csrf = '';
  readonly base: string;
  constructor(base: string) {
    this.base = base;
  }

  static async login(svc: TestService, token = GATEWAY_TOKEN): Promise<ConsoleClient> {
    const client = new ConsoleClient(`${svc.url}/console`);
    const response = await client.request('POST', '/api/login', { token });
    if (response.status !== 200) throw new Error(`login failed: ${response.status}`);
    return client;
  }

  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const response = await fetch(`${this.base}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(this.cookie === '' ? {} : { cookie: this.cookie }),
        ...(this.csrf === '' || method === 'GET' ? {} : { 'x-csrf-token': this.csrf }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const setCookie = response.headers.get('set-cookie');
    if (setCookie !== null) this.cookie = setCookie.split(';')[0] ?? '';
    const text = await response.text();
    const json = text.startsWith('{') ? (JSON.parse(text) as any) : undefined;
    if (json?.csrf !== undefined) this.csrf = json.csrf;
    return { status: response.status, body: json, text, headers: response.headers };
  }

  get(path: string) {
    return this.request('GET', path);
  }
}

export { post };
