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
});
