import type { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { post, startTestService, type TestService } from '../helpers/service.js';

/**
 * A store that refuses writes (full disk, read-only database) costs the requests that needed it
 * a 503 with Retry-After, never the process, never half of a request; /readyz reports the fault
 * while it lasts, and everything works again once it clears. (The basic disk-full case is in
 * durability.test.ts.)
 */

const MAX_PAGES = 1_073_741_823;

/**
 * A full disk as SQLite sees it: no page beyond `extra` more may be added. The limit is set on the
 * connection that commits acceptances (the store's writer), through the test writer's fault injection (test/store/support/).
 */
async function fillDisk(svc: TestService, extra = 0): Promise<void> {
  const { page_count: pages } = svc.db.prepare('PRAGMA page_count').get() as { page_count: number };
  await svc.faults!.pragma('max_page_count', pages + extra);
}

function clearDisk(svc: TestService): Promise<void> {
  return svc.faults!.pragma('max_page_count', MAX_PAGES);
}

function count(db: DatabaseSync, sql: string, ...params: string[]): number {
  return Number((db.prepare(sql).get(...params) as { n: number }).n);
}

const fanOut = {
  hooks: {
    mappings: [{ id: 'batch', match: { path: 'batch' }, forEach: 'items', messageTemplate: 'item {{items[0].n}}: {{items[0].text}}', deliver: false }],
  },
};

describe('store faults', () => {
  let svc: TestService | undefined;
  afterEach(async () => {
    await svc?.close();
    svc = undefined;
  });

  async function ready(): Promise<number> {
    return (await fetch(`${svc!.url}/readyz`, { signal: AbortSignal.timeout(5000) })).status;
  }

  it('answers 503 with Retry-After while the database is read-only, reports not ready, and recovers', async () => {
    svc = await startTestService({}, { faults: true });
    const db = svc.db;
    expect(await ready()).toBe(200);
    await svc.faults!.pragma('query_only', true);
    const refused = await post(`${svc.hooksUrl}/wake`, { text: 'during the fault' }, { 'idempotency-key': 'ro-1' });
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ ok: false, code: 'STORE_UNAVAILABLE' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const readiness = await fetch(`${svc.url}/readyz`);
    expect(readiness.status).toBe(503);
    expect(Number(readiness.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);

    await svc.faults!.pragma('query_only', false);
    const accepted = await post(`${svc.hooksUrl}/wake`, { text: 'during the fault' }, { 'idempotency-key': 'ro-1' });
    expect(accepted.status).toBe(200);
    expect(accepted.headers.get('idempotent-replayed')).toBeNull();
    expect(await ready()).toBe(200);
    expect(count(db, "SELECT count(*) AS n FROM events WHERE text = 'during the fault'")).toBe(1);
  });

  it('reports not ready while the disk is full even before a request fails', async () => {
    svc = await startTestService({}, { faults: true });
    await fillDisk(svc);
    expect(await ready()).toBe(503);
    await clearDisk(svc);
    expect(await ready()).toBe(200);
  });

  it('stores no item of a fan-out when the disk fills part-way through it, and all of it after recovery', async () => {
    svc = await startTestService(fanOut, { faults: true });
    const db = svc.db;
    const items = [1, 2, 3].map((n) => ({ n, text: `${'x'.repeat(30_000)}${n}` }));
    // Room for about one item's pages: the first insert fits, a later one cannot.
    await fillDisk(svc, 10);
    const refused = await post(`${svc.hooksUrl}/batch`, { items }, { 'idempotency-key': 'batch-1' });
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe('STORE_UNAVAILABLE');
    expect(count(db, 'SELECT count(*) AS n FROM runs')).toBe(0);
    expect(count(db, "SELECT count(*) AS n FROM idempotency WHERE key = 'batch-1'")).toBe(0);
    expect(await ready()).toBe(503);

    await clearDisk(svc);
    const accepted = await post(`${svc.hooksUrl}/batch`, { items }, { 'idempotency-key': 'batch-1' });
    expect(accepted.status).toBe(202);
    expect(accepted.body.runIds).toHaveLength(3);
    expect(count(db, 'SELECT count(*) AS n FROM runs')).toBe(3);
    expect(await ready()).toBe(200);
  });

  it('keeps each request of a concurrent burst all-or-nothing when the disk fills mid-burst', async () => {
    svc = await startTestService({}, { faults: true });
    const db = svc.db;
    await fillDisk(svc, 40);
    const keys = Array.from({ length: 30 }, (_, index) => `burst-${index}`);
    const message = (key: string) => `${key} ${'y'.repeat(12_000)}`;
    const replies = await Promise.all(
      keys.map((key) => post(`${svc!.hooksUrl}/agent`, { message: message(key), deliver: false }, { 'idempotency-key': key })),
    );
    expect(replies.map((reply) => reply.status).every((status) => status === 202 || status === 503)).toBe(true);
    expect(replies.some((reply) => reply.status === 503)).toBe(true);
    keys.forEach((key, index) => {
      const reply = replies[index]!;
      const keyRows = count(db, 'SELECT count(*) AS n FROM idempotency WHERE key = ?', key);
      const runRows = count(db, 'SELECT count(*) AS n FROM runs WHERE instr(action, ?) > 0', `${key} y`);
      expect([keyRows, runRows], key).toEqual(reply.status === 202 ? [1, 1] : [0, 0]);
    });
    const refused = replies.filter((reply) => reply.status === 503);
    expect(refused.every((reply) => Number(reply.headers.get('retry-after')) > 0)).toBe(true);

    await clearDisk(svc);
    const retried = await Promise.all(
      keys.map((key) => post(`${svc!.hooksUrl}/agent`, { message: message(key), deliver: false }, { 'idempotency-key': key })),
    );
    expect(retried.map((reply) => reply.status)).toEqual(keys.map(() => 202));
    const acceptedFirst = keys.flatMap((_, index) => (replies[index]!.status === 202 ? [index] : []));
    expect(acceptedFirst.map((index) => retried[index]!.body.runId)).toEqual(acceptedFirst.map((index) => replies[index]!.body.runId));
    expect(count(db, 'SELECT count(*) AS n FROM runs')).toBe(keys.length);
    expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
  });
});
