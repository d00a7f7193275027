import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawExchange, type RawReply } from '../helpers/load.js';
import { post, startTestService, TEST_TOKEN, type TestService } from '../helpers/service.js';

/**
 * Random and adversarial requests over real sockets against the real service (in this process,
 * so the prototype checks below look at the server's own globals). Every case must get a
 * documented status within a bound, errors as JSON, never a 500, and the process stays up.
 */

const RUNS = 150;
const BODY_TIMEOUT_MS = 200;
const REPLY_BOUND_MS = 5000;
const DOCUMENTED = [200, 202, 204, 400, 401, 404, 405, 408, 409, 413, 415, 429, 431, 503];
/** Answers node:http writes itself, before Koa, for bytes that are not parseable HTTP (no body). */
const NODE_RAW = [400, 431];

const deepArrays = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
const deepObjects = `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`;
const wideArray = `[${Array.from({ length: 100_000 }, (_, index) => index % 10).join(',')}]`;
const SPECIAL_VALUES = [
  deepArrays,
  deepObjects,
  wideArray,
  '1e999',
  '-1e999',
  '123456789012345678901234567890123456789012345678901234567890',
  '-0',
  '5e-324',
  '"\\ud800"',
  '"\\udfff\\ud800x"',
  '"\\u0000"',
  '{"prototype":{"polluted":true}}',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  `"${'x'.repeat(300_000)}"`,
];
const KEYS = ['__proto__', 'constructor', 'prototype', 'text', 'message', 'mode', 'wakeMode', 'name', 'model', 'channel', 'to', 'deliver', 'sessionKey', 'timeoutSeconds', 'toString', 'hasOwnProperty', 'source'];
const CONTENT_TYPES = [
  undefined,
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json; charset=bogus',
  'APPLICATION/JSON',
  'text/plain',
  'application/vnd.acme+json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'text/xml',
  '*/*',
  ';;',
  '',
];
/** Invalid UTF-8: a lone continuation byte, an overlong NUL, a CESU-8 surrogate, bytes never valid. */
const BAD_BYTES = [[0x80], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xff], [0xfe, 0xff], [0xef, 0xbb, 0xbf]];

const jsonText = fc.oneof(
  { weight: 6, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)) },
  { weight: 2, arbitrary: fc.constantFrom(...SPECIAL_VALUES) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }).map((value) => JSON.stringify(value)) },
);
/** Often starts with a valid field, so many cases reach the handlers and the store, not only the parser. */
const objectText = fc
  .tuple(
    fc.option(fc.constantFrom('"text":"fuzz"', '"message":"fuzz"', '"text":"a","message":"b"'), { freq: 5, nil: undefined }),
    fc.array(fc.tuple(fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 12 })), jsonText), { maxLength: 3 }),
  )
  .map(([valid, entries]) => {
    const fields = entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`);
    return `{${(valid === undefined ? fields : [valid, ...fields]).join(',')}}`;
  });
const bodyBytes = fc
  .tuple(
    fc.oneof({ weight: 5, arbitrary: objectText }, { weight: 1, arbitrary: jsonText }, { weight: 1, arbitrary: fc.string({ maxLength: 30 }) }),
    fc.option(fc.tuple(fc.nat(), fc.constantFrom(...BAD_BYTES)), { freq: 4, nil: undefined }),
  )
  .map(([text, damage]) => {
    const bytes = Buffer.from(text, 'utf8');
    if (damage === undefined) return bytes;
    const at = damage[0] % (bytes.length + 1);
    return Buffer.concat([bytes.subarray(0, at), Buffer.from(damage[1]), bytes.subarray(at)]);
  });

const METHODS = ['POST', 'POST', 'POST', 'POST', 'POST', 'POST', 'GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE', 'CONNECT', 'PROPFIND', 'FOO', 'post'];
const SEGMENTS = ['wake', 'agent', 'gmail', 'signed', 'x', '..', '.', '%2F', '%2f..%2fwake', '%00', '%E0%A4%A', '%', '%%', 'runs', 'runs/abc', '', 'a'.repeat(3000), '\u00e9' /* raw UTF-8 bytes in the path */, '?token=wrong', '?token=%E0', '#frag'];
const FRAMINGS = ['exact', 'none', 'short', 'long', 'chunked', 'chunked-lie', 'chunked-bad', 'cl-and-te', 'bad-cl', 'two-cl'] as const;
type Framing = (typeof FRAMINGS)[number];
type Header = readonly [string, string];
const BEARER: Header = ['Authorization', `Bearer ${TEST_TOKEN}`];
const AUTH_FORMS: Array<Header[]> = [
  [BEARER],
  [BEARER],
  [BEARER],
  [],
  [['Authorization', 'Bearer wrong']],
  [BEARER, ['Authorization', 'Bearer wrong']],
  [['Authorization', 'Bearer wrong'], BEARER],
  [['Authorization', 'Basic Zm9vOmJhcg==']],
  [['X-Hookgate-Token', TEST_TOKEN]],
  [['X-Hookgate-Token', TEST_TOKEN], ['X-Hookgate-Token', 'wrong']],
];
const EXTRA_HEADERS: Header[] = [
  ['X-Huge', 'h'.repeat(20_000)],
  ['Idempotency-Key', 'fuzz-key-1'],
  ['Idempotency-Key', 'fuzz-key-2'],
  ['Idempotency-Key', 'not visible ascii \u2713'],
  ['X-Forwarded-For', '1.2.3.4, 5.6.7.8'],
  ['Expect', '100-continue'],
  ['Connection', 'Upgrade'],
  ['Upgrade', 'websocket'],
  ['Content-Encoding', 'gzip'],
  ['Content-Encoding', 'br, zstd'],
  ['Transfer-Encoding', 'identity'],
];

function frame(head: string, body: Buffer, framing: Framing): Buffer {
  const chunk = `${body.length.toString(16)}\r\n`;
  const parts: Record<typeof framing, [string, Buffer | string]> = {
    exact: [`Content-Length: ${body.length}\r\n`, body],
    none: ['', ''],
    short: [`Content-Length: ${Math.max(0, body.length - 3)}\r\n`, body],
    long: [`Content-Length: ${body.length + 7}\r\n`, body],
    chunked: ['Transfer-Encoding: chunked\r\n', Buffer.concat([Buffer.from(chunk), body, Buffer.from('\r\n0\r\n\r\n')])],
    'chunked-lie': ['Transfer-Encoding: chunked\r\n', Buffer.concat([Buffer.from(`${(body.length + 50).toString(16)}\r\n`), body, Buffer.from('\r\n')])],
    'chunked-bad': ['Transfer-Encoding: chunked\r\n', Buffer.concat([Buffer.from('zz\r\n'), body, Buffer.from('\r\n0\r\n\r\n')])],
    'cl-and-te': [`Content-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n`, body],
    'bad-cl': ['Content-Length: 12abc\r\n', body],
    'two-cl': [`Content-Length: ${body.length}\r\nContent-Length: ${body.length + 1}\r\n`, body],
  };
  const [headers, payload] = parts[framing];
  return Buffer.concat([Buffer.from(`${head}${headers}\r\n`, 'utf8'), Buffer.isBuffer(payload) ? payload : Buffer.from(payload)]);
}

function expectDocumented(reply: RawReply | 'closed', head: boolean, seen: Map<string, number>): void {
  expect(reply, 'the server closed without any response').not.toBe('closed');
  const { status, headers, body } = reply as RawReply;
  const kind = `${status}${(headers['content-type'] ?? '').startsWith('application/json') ? '' : ' raw'}`;
  seen.set(kind, (seen.get(kind) ?? 0) + 1);
  expect(DOCUMENTED).toContain(status);
  if (status < 400) return;
  if (!(headers['content-type'] ?? '').startsWith('application/json')) {
    expect(NODE_RAW).toContain(status);
    expect(body).toBe('');
    return;
  }
  if (head) return; // a HEAD response carries headers only
  const parsed = JSON.parse(body) as Record<string, unknown>;
  expect(Object.keys(parsed).sort()).toEqual(['code', 'error', 'ok']);
  expect(parsed['ok']).toBe(false);
  expect(typeof parsed['error']).toBe('string');
  expect(typeof parsed['code']).toBe('string');
}

describe('fuzzing the ingress over real HTTP', () => {
  let svc: TestService;
  const objectKeysBefore = Object.getOwnPropertyNames(Object.prototype).sort();
  const arrayKeysBefore = Object.getOwnPropertyNames(Array.prototype).sort();

  beforeAll(async () => {
    svc = await startTestService({
      hooks: {
        bodyTimeoutMs: BODY_TIMEOUT_MS,
        throttle: { maxFailures: 1_000_000, windowSeconds: 60 },
        // A signed mapping: its body is read before authentication, so framing lies reach that reader too.
        mappings: [{ id: 'signed', match: { path: 'signed' }, action: 'wake', textTemplate: 'x', signature: { scheme: 'github', secret: 'fuzz-secret' } }],
      },
      gateway: { http: { headersTimeoutMs: 2000, requestTimeoutMs: 3000 } },
    });
  });
  afterAll(async () => {
    await svc.close();
  });

  async function expectAlive(): Promise<void> {
    const health = await fetch(`${svc.url}/healthz`, { signal: AbortSignal.timeout(REPLY_BOUND_MS) });
    expect(health.status).toBe(200);
  }

  it('answers random and adversarial JSON bodies with a documented status and a JSON error, never a 500', async () => {
    const seen = new Map<string, number>();
    const endpoint = fc.constantFrom('wake', 'agent', 'gmail', 'signed', 'no-such-hook');
    const contentType = fc.oneof(fc.constant('application/json'), fc.constantFrom(...CONTENT_TYPES));
    await fc.assert(
      fc.asyncProperty(endpoint, contentType, bodyBytes, async (name, type, body) => {
        const typeHeader = type === undefined ? '' : `Content-Type: ${type}\r\n`;
        const head = `POST /hooks/${name} HTTP/1.1\r\nHost: fuzz\r\nAuthorization: Bearer ${TEST_TOKEN}\r\n${typeHeader}Connection: close\r\n`;
        expectDocumented(await rawExchange(svc.url, frame(head, body, 'exact'), { ms: REPLY_BOUND_MS }), false, seen);
        await expectAlive();
      }),
      { numRuns: RUNS },
    );
    // The cases reached the store as well as the refusals (a fuzzer stuck at the parser proves little).
    expect((seen.get('200') ?? 0) + (seen.get('202') ?? 0)).toBeGreaterThan(0);
    expect(seen.get('400') ?? 0).toBeGreaterThan(0);
  });

  it('answers odd methods, paths, headers and framing lies with a documented status, never hanging', async () => {
    const seen = new Map<string, number>();
    const request = fc.record({
      method: fc.constantFrom(...METHODS),
      segments: fc.array(fc.constantFrom(...SEGMENTS), { minLength: 0, maxLength: 3 }),
      prefix: fc.oneof(
        { weight: 4, arbitrary: fc.constant('/hooks/') },
        { weight: 1, arbitrary: fc.constantFrom('/hooks', '//hooks//', '/HOOKS/', '/', '/metrics', '/healthz', '/readyz', '/hooks%2F') },
      ),
      auth: fc.constantFrom(...AUTH_FORMS),
      headers: fc.subarray(EXTRA_HEADERS, { maxLength: 3 }),
      type: fc.oneof(fc.constant('application/json'), fc.constantFrom(...CONTENT_TYPES)),
      framing: fc.oneof({ weight: 3, arbitrary: fc.constantFrom<Framing>('exact', 'chunked') }, { weight: 2, arbitrary: fc.constantFrom(...FRAMINGS) }),
      body: bodyBytes,
    });
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const path = `${r.prefix}${r.segments.join('/')}`;
        const lines = [...r.auth, ...r.headers].map(([name, value]) => `${name}: ${value}\r\n`).join('');
        const typeHeader = r.type === undefined ? '' : `Content-Type: ${r.type}\r\n`;
        const head = `${r.method} ${path} HTTP/1.1\r\nHost: fuzz\r\n${lines}${typeHeader}`;
        const isHead = r.method === 'HEAD';
        expectDocumented(await rawExchange(svc.url, frame(head, r.body, r.framing), { ms: REPLY_BOUND_MS, head: isHead }), isHead, seen);
        await expectAlive();
      }),
      { numRuns: RUNS },
    );
    expect(seen.size).toBeGreaterThan(3);
  });

  it('leaves no prototype polluted and still serves normal requests after the fuzzing', async () => {
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(objectKeysBefore);
    expect(Object.getOwnPropertyNames(Array.prototype).sort()).toEqual(arrayKeysBefore);
    const wake = await post(`${svc.hooksUrl}/wake`, { text: 'after the storm' });
    expect(wake.status).toBe(200);
    expect(wake.body).toEqual({ ok: true, mode: 'now' });
    const stored = svc.db.prepare('SELECT text FROM events WHERE run_id IS NULL ORDER BY id DESC LIMIT 1').get() as { text: string };
    expect(stored.text).toBe('after the storm');
    const agent = await post(`${svc.hooksUrl}/agent`, { message: 'still parsing' });
    expect(agent.status).toBe(202);
    expect(agent.body.runId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await post(`${svc.hooksUrl}/wake`, { text: 'x' }, { authorization: 'Bearer wrong' })).status).toBe(401);
    const internalErrors = svc.logs.filter((line) => line['event'] === 'http.internal_error');
    expect(internalErrors).toEqual([]);
  });
});
