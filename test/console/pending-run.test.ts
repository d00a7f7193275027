import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../helpers/service.js';
import { ConsoleClient, post, startConsoleService } from './support.js';

/** A delivery that joined a debounce group links to the group's run id; the console shows it as pending until the group fires. */
describe('the console on a run that is still a debounce group', () => {
  let svc: TestService;
  let client: ConsoleClient;
  beforeAll(async () => {
    svc = await startConsoleService({
      hooks: {
        mappings: [
          // A window of an hour: the group stays open for the whole test.
          { id: 'batched', match: { path: 'batched' }, action: 'agent', messageTemplate: 'Build {{build}}', debounce: { key: '{{branch}}', windowSeconds: 3600 } },
        ],
      },
    });
    client = await ConsoleClient.login(svc);
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('shows the pending run with its mapping, fire time and merged deliveries; the requests list links to it', async () => {
    const first = await post(`${svc.hooksUrl}/batched`, { branch: 'main', build: 1 });
    const second = await post(`${svc.hooksUrl}/batched`, { branch: 'main', build: 2 });
    expect([first.status, second.status]).toEqual([202, 202]);
    const runId = (first.body as { runId: string }).runId;
    expect((second.body as { runId: string; debounced: boolean })).toEqual({ ok: true, runId, debounced: true });

    const shown = await client.get(`/api/runs/${runId}`);
    expect(shown.status).toBe(200);
    expect(shown.body.run).toMatchObject({ runId, status: 'pending', mappingId: 'batched', deliveries: 2, firesAt: expect.any(String) });

    const requests = await client.get('/api/requests');
    const rows = (requests.body.requests as Array<{ hook: string; runIds?: string[] }>).filter((row) => row.hook === 'batched');
    expect(rows.length).toBe(2);
    expect(rows.every((row) => JSON.stringify(row).includes(runId))).toBe(true);
  });

  it('lists pending runs on the Runs list, first, with their deliveries and fire time; the status filter chooses them', async () => {
    const a = await post(`${svc.hooksUrl}/batched`, { branch: 'feature-a', build: 1 });
    await post(`${svc.hooksUrl}/batched`, { branch: 'feature-a', build: 2 });
    await post(`${svc.hooksUrl}/batched`, { branch: 'feature-a', build: 3 });
    const b = await post(`${svc.hooksUrl}/batched`, { branch: 'feature-b', build: 1 });
    const done = await post(`${svc.hooksUrl}/agent`, { message: 'not debounced', deliver: false });
    expect([a.status, b.status, done.status]).toEqual([202, 202, 202]);
    const [groupA, groupB, ran] = [a.body.runId as string, b.body.runId as string, done.body.runId as string];

    const all = await client.get('/api/runs');
    expect(all.status).toBe(200);
    const rows = all.body.runs as Array<Record<string, unknown>>;
    const pendingRows = rows.filter((row) => row['status'] === 'pending');
    // Pending first (newest first), then the runs.
    expect(rows.slice(0, pendingRows.length)).toEqual(pendingRows);
    expect(pendingRows.find((row) => row['runId'] === groupA)).toEqual({
      runId: groupA,
      status: 'pending',
      mappingId: 'batched',
      hook: 'batched',
      name: 'batched',
      sessionKey: expect.stringMatching(/^hook:/),
      deliveries: 3,
      firesAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(pendingRows.map((row) => row['runId'])).toEqual(expect.arrayContaining([groupA, groupB]));
    expect(rows.some((row) => row['runId'] === ran && row['status'] !== 'pending')).toBe(true);

    const onlyPending = await client.get('/api/runs?status=pending');
    expect((onlyPending.body.runs as Array<{ status: string }>).every((row) => row.status === 'pending')).toBe(true);
    expect((onlyPending.body.runs as Array<{ runId: string }>).map((row) => row.runId)).toEqual(expect.arrayContaining([groupA, groupB]));
    const queued = await client.get('/api/runs?status=queued');
    expect((queued.body.runs as Array<{ status: string }>).some((row) => row.status === 'pending')).toBe(false);
    const byHook = await client.get('/api/runs?status=pending&hook=agent');
    expect(byHook.body.runs).toEqual([]);
    const paged = await client.get('/api/runs?status=pending&limit=1');
    expect(paged.body.runs).toHaveLength(1);
    const next = await client.get(`/api/runs?status=pending&limit=1&before=${paged.body.next as string}`);
    expect((next.body.runs as Array<{ runId: string }>)[0]?.runId).not.toBe((paged.body.runs as Array<{ runId: string }>)[0]?.runId);
  });
});
