import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/sqlite/connection.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import { silentLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics/metrics.js';
import { routeOf } from '../../src/http/request-metrics.js';
import { openSocket, readResponse } from '../helpers/raw-http.js';
import { post, startTestService, TEST_TOKEN, type TestService } from '../helpers/service.js';

const GATEWAY_TOKEN = 'gateway-admin-token-9876';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]!] = pair[2]!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = JSON.stringify(Object.entries(labels).sort());
  return samples.find((sample) => sample.name === name && JSON.stringify(Object.entries(sample.labels).sort()) === wanted)?.value;
}

async function scrape(svc: TestService, token = GATEWAY_TOKEN): Promise<{ status: number; type: string | null; text: string }> {
  const response = await fetch(`${svc.url}/metrics`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(5000) });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

describe('GET /metrics', () => {
  const services: TestService[] = [];
  afterEach(async () => {
    for (const svc of services.splice(0)) await svc.close();
  });

  async function start(config: Record<string, unknown> = { gateway: { auth: { token: GATEWAY_TOKEN } } }): Promise<TestService> {
    const svc = await startTestService(config);
    services.push(svc);
    return svc;
  }

  it('does not exist (404) when no gateway token is configured', async () => {
    const svc = await start({});
    const response = await fetch(`${svc.url}/metrics`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { code: string }).code).toBe('NOT_FOUND');
  });

  it('answers 401 without the gateway token or with the hook token, and Prometheus text with it', async () => {
    const svc = await start();
    const anonymous = await fetch(`${svc.url}/metrics`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    expect((await scrape(svc, TEST_TOKEN)).status).toBe(401);
    expect((await fetch(`${svc.url}/metrics?token=${GATEWAY_TOKEN}`)).status).toBe(401);
    const scraped = await scrape(svc);
    expect(scraped.status).toBe(200);
    expect(scraped.type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(scraped.text).toContain('# TYPE hookgate_http_requests_total counter');
  });

  it('counts requests by route and status, auth failures and 413s, without raw paths, tokens or payloads', async () => {
    const svc = await start({ gateway: { auth: { token: GATEWAY_TOKEN } }, hooks: { maxBodyBytes: 1024 } });
    const secretText = 'PAYLOAD-SECRET-4711';
    expect((await post(`${svc.hooksUrl}/wake`, { text: secretText })).status).toBe(200);
    expect((await post(`${svc.hooksUrl}/wake`, { text: secretText })).status).toBe(200);
    expect((await post(`${svc.hooksUrl}/agent`, { message: secretText })).status).toBe(202);
    expect((await post(`${svc.hooksUrl}/private-hook-name-31337`, { any: 1 })).status).toBe(404);
    expect((await post(`${svc.hooksUrl}/wake`, { text: 'x' }, { authorization: 'Bearer nope' })).status).toBe(401);
    expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
    const socket = await openSocket(svc.url);
    socket.write('POST /hooks/wake HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n');
    expect((await readResponse(socket)).status).toBe(413);
    socket.destroy();

    const { text } = await scrape(svc);
    const samples = parseExposition(text);
    expect(valueOf(samples, 'hookgate_http_requests_total', { route: 'wake', status: '200' })).toBe(2);
    expect(valueOf(samples, 'hookgate_http_requests_total', { route: 'agent', status: '202' })).toBe(1);
    expect(valueOf(samples, 'hookgate_http_requests_total', { route: 'mapped', status: '404' })).toBe(1);
    expect(valueOf(samples, 'hookgate_http_requests_total', { route: 'wake', status: '401' })).toBe(1);
    expect(valueOf(samples, 'hookgate_http_requests_total', { route: 'wake', status: '413' })).toBe(1);
    expect(valueOf(samples, 'hookgate_http_requests_total', { route: 'health', status: '200' })).toBe(1);
    expect(valueOf(samples, 'hookgate_auth_failures_total', { outcome: 'unauthorized' })).toBe(1);
    expect(valueOf(samples, 'hookgate_body_limit_rejections_total')).toBe(1);
    const routes = new Set(samples.filter((sample) => sample.name === 'hookgate_http_requests_total').map((sample) => sample.labels['route']));
    expect([...routes].every((route) => ['wake', 'agent', 'mapped', 'runs', 'health', 'metrics', 'other'].includes(route!))).toBe(true);
    for (const secret of ['private-hook-name-31337', secretText, TEST_TOKEN, GATEWAY_TOKEN]) expect(text).not.toContain(secret);
  });

  it('counts throttled attempts separately from plain 401s', async () => {
    // The guesser comes through the (trusted) local proxy from another address: the scraper's own is not blocked.
    const svc = await start({ gateway: { auth: { token: GATEWAY_TOKEN }, trustedProxies: ['127.0.0.1', '::1'] }, hooks: { throttle: { maxFailures: 2, windowSeconds: 60 } } });
    const guesser = { authorization: 'Bearer nope', 'x-forwarded-for': '203.0.113.9' };
    for (let attempt = 0; attempt < 3; attempt += 1) await post(`${svc.hooksUrl}/wake`, { text: 'x' }, guesser);
    const samples = parseExposition((await scrape(svc)).text);
    expect(valueOf(samples, 'hookgate_auth_failures_total', { outcome: 'unauthorized' })).toBe(2);
    expect(valueOf(samples, 'hookgate_auth_failures_total', { outcome: 'throttled' })).toBe(1);
  });

  it('shares the hooks\' throttle: an address blocked for guessing hook tokens gets 429 on /metrics, the gateway token included', async () => {
    const svc = await start({ gateway: { auth: { token: GATEWAY_TOKEN } }, hooks: { throttle: { maxFailures: 2, windowSeconds: 60 } } });
    for (let attempt = 0; attempt < 2; attempt += 1) await post(`${svc.hooksUrl}/wake`, { text: 'x' }, { authorization: 'Bearer nope' });
    const blocked = await scrape(svc);
    expect(blocked.status).toBe(429);
    expect(blocked.text).not.toContain('hookgate_');
  });

  it('reads pending events from the store when scraped', async () => {
    const svc = await start();
    for (const text of ['a', 'b', 'c']) await post(`${svc.hooksUrl}/wake`, { text, mode: 'next-heartbeat' });
    const samples = parseExposition((await scrape(svc)).text);
    expect(valueOf(samples, 'hookgate_pending_events')).toBe(3);
  });

  it('keeps a separate registry per service, so two services in one process do not share counts', async () => {
    const one = await start();
    const two = await start();
    await post(`${one.hooksUrl}/wake`, { text: 'only one' });
    const first = parseExposition((await scrape(one)).text);
    const second = parseExposition((await scrape(two)).text);
    expect(valueOf(first, 'hookgate_http_requests_total', { route: 'wake', status: '200' })).toBe(1);
    expect(valueOf(second, 'hookgate_http_requests_total', { route: 'wake', status: '200' })).toBeUndefined();
  });
});

describe('the metrics registry', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('reports transforms, run outcomes, delivery failures and queue depths computed at scrape time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookgate-metrics-'));
    dirs.push(dir);
    const path = join(dir, 'store.sqlite');
    const db = openDatabase(path, { synchronous: 'normal' });
    const store = openSqliteStore({ path, synchronous: 'normal' }, { logger: silentLogger(), idempotencyTtlMs: 60_000, role: 'command' });
    const metrics = createMetrics({ depths: () => store.depths(), processMetrics: false });
    metrics.observeTransform('github.js', 12, 'ok');
    metrics.observeTransform('github.js', 1000, 'timeout');
    metrics.observeTransform('github.js', 3, 'failed');
    metrics.runFinished('ok');
    metrics.runFinished('timeout');
    metrics.runFinished('something-new');
    metrics.deliveryFailed('telegram');
    const insertRun = db.prepare("INSERT INTO runs (run_id, created_at, status, hook, name, session_key, action) VALUES (?, 0, ?, 'agent', 'n', 's', '{}')");
    insertRun.run('r1', 'queued');
    insertRun.run('r2', 'queued');
    insertRun.run('r3', 'running');
    insertRun.run('r4', 'ok');

    const samples = parseExposition(await metrics.render());
    expect(valueOf(samples, 'hookgate_transform_duration_seconds_count', { module: 'github.js', outcome: 'ok' })).toBe(1);
    expect(valueOf(samples, 'hookgate_transform_failures_total', { module: 'github.js', outcome: 'timeout' })).toBe(1);
    expect(valueOf(samples, 'hookgate_transform_failures_total', { module: 'github.js', outcome: 'failed' })).toBe(1);
    expect(valueOf(samples, 'hookgate_transform_failures_total', { module: 'github.js', outcome: 'ok' })).toBeUndefined();
    expect(valueOf(samples, 'hookgate_runs_finished_total', { status: 'ok' })).toBe(1);
    expect(valueOf(samples, 'hookgate_runs_finished_total', { status: 'timeout' })).toBe(1);
    expect(valueOf(samples, 'hookgate_runs_finished_total', { status: 'other' })).toBe(1);
    expect(valueOf(samples, 'hookgate_delivery_failures_total', { channel: 'telegram' })).toBe(1);
    expect(valueOf(samples, 'hookgate_runs', { status: 'queued' })).toBe(2);
    expect(valueOf(samples, 'hookgate_runs', { status: 'running' })).toBe(1);
    expect(valueOf(samples, 'hookgate_pending_events')).toBe(0);
    await store.close();
    db.close();
  });

  it('labels requests by route, never by the raw path', () => {
    expect(routeOf('POST', '/hooks/wake', '/hooks')).toBe('wake');
    expect(routeOf('POST', '/hooks//agent/', '/hooks')).toBe('agent');
    expect(routeOf('POST', '/hooks/github/push', '/hooks')).toBe('mapped');
    expect(routeOf('GET', '/hooks/runs/abc', '/hooks')).toBe('runs');
    expect(routeOf('GET', '/hooks/relay/laptop/events', '/hooks')).toBe('relay');
    expect(routeOf('POST', '/hooks/relay/laptop/ack', '/hooks')).toBe('relay');
    expect(routeOf('POST', '/hooks/relay/laptop', '/hooks')).toBe('mapped');
    expect(routeOf('POST', '/hooks', '/hooks')).toBe('other');
    expect(routeOf('GET', '/readyz', '/hooks')).toBe('health');
    expect(routeOf('GET', '/hooksx/wake', '/hooks')).toBe('other');
    expect(routeOf('POST', '/hooks/wake', undefined)).toBe('other');
  });
});
