import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { post, startTestService, type TestService } from '../helpers/service.js';

describe('durable acceptance', () => {
  let svc: TestService | undefined;
  const dirs: string[] = [];
  afterEach(async () => {
    await svc?.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('returns the first response again for a retry with the same Idempotency-Key and stores nothing new', async () => {
    svc = await startTestService();
    const first = await post(`${svc.hooksUrl}/agent`, { message: 'once' }, { 'idempotency-key': 'evt-1' });
    const retry = await post(`${svc.hooksUrl}/agent`, { message: 'once' }, { 'idempotency-key': 'evt-1' });
    expect(retry.status).toBe(202);
    expect(retry.body.runId).toBe(first.body.runId);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(svc.db.prepare('SELECT count(*) AS n FROM runs').get()).toEqual({ n: 1 });
  });

  it('commits concurrent retries with one key exactly once', async () => {
    svc = await startTestService();
    const url = `${svc.hooksUrl}/wake`;
    const responses = await Promise.all(Array.from({ length: 10 }, () => post(url, { text: 'burst' }, { 'idempotency-key': 'same' })));
    expect(responses.every((response) => response.status === 200)).toBe(true);
    expect(svc.db.prepare('SELECT count(*) AS n FROM events').get()).toEqual({ n: 1 });
  });

  it('refuses a used key for a different request with 409', async () => {
    svc = await startTestService();
    await post(`${svc.hooksUrl}/wake`, { text: 'one' }, { 'idempotency-key': 'k' });
    const other = await post(`${svc.hooksUrl}/wake`, { text: 'two' }, { 'idempotency-key': 'k' });
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('IDEMPOTENCY_CONFLICT');
  });

  it('fingerprints a retry by its UTF-8 bytes: the same non-ASCII body replays, an escaped spelling of it conflicts', async () => {
    svc = await startTestService();
    const url = `${svc.hooksUrl}/wake`;
    const literal = '{"text":"café ☕ 𝄞"}';
    const first = await post(url, literal, { 'idempotency-key': 'utf8' });
    const retry = await post(url, literal, { 'idempotency-key': 'utf8' });
    // Parses to the same payload, but it is not the same request byte for byte.
    const escaped = await post(url, '{"text":"caf\\u00e9 \\u2615 \\ud834\\udd1e"}', { 'idempotency-key': 'utf8' });
    expect([first.status, retry.status, escaped.status]).toEqual([200, 200, 409]);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(escaped.body.code).toBe('IDEMPOTENCY_CONFLICT');
    expect(svc.db.prepare('SELECT count(*) AS n FROM events').get()).toEqual({ n: 1 });
  });

  it('refuses an Idempotency-Key longer than 256 characters', async () => {
    svc = await startTestService();
    const response = await post(`${svc.hooksUrl}/wake`, { text: 'x' }, { 'idempotency-key': 'k'.repeat(257) });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('INVALID_IDEMPOTENCY_KEY');
  });

  it('keeps every accepted event and run across a restart, and keys still replay', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookgate-restart-'));
    dirs.push(dir);
    svc = await startTestService({}, { dir });
    const runIds: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      expect((await post(`${svc.hooksUrl}/wake`, { text: `event ${index}` })).status).toBe(200);
      runIds.push((await post(`${svc.hooksUrl}/agent`, { message: `run ${index}` }, { 'idempotency-key': `r${index}` })).body.runId);
    }
    await svc.close();
    svc = await startTestService({}, { dir });
    const events = svc.db.prepare('SELECT text FROM events WHERE run_id IS NULL ORDER BY id').all().map((row) => (row as { text: string }).text);
    expect(events).toEqual(['event 0', 'event 1', 'event 2', 'event 3', 'event 4']);
    const runs = svc.db.prepare('SELECT run_id FROM runs').all().map((row) => (row as { run_id: string }).run_id);
    expect(runs.sort()).toEqual([...runIds].sort());
    const replay = await post(`${svc.hooksUrl}/agent`, { message: 'run 2' }, { 'idempotency-key': 'r2' });
    expect(replay.body.runId).toBe(runIds[2]);
  });

  it('answers 503 with Retry-After when the store cannot write, keeps nothing half-written, and recovers', async () => {
    svc = await startTestService({}, { faults: true });
    const db = svc.db;
    const pages = (db.prepare('PRAGMA page_count').get() as { page_count: number }).page_count;
    // A full disk, as SQLite sees it: no page may be added (set on the store's writing connection).
    await svc.faults!.pragma('max_page_count', pages);
    const big = 'x'.repeat(100_000);
    const refused = await post(`${svc.hooksUrl}/agent`, { message: big });
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe('STORE_UNAVAILABLE');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(db.prepare('SELECT count(*) AS n FROM runs').get()).toEqual({ n: 0 });
    expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
    await svc.faults!.pragma('max_page_count', 1073741823);
    expect((await post(`${svc.hooksUrl}/agent`, { message: big })).status).toBe(202);
  });
});
