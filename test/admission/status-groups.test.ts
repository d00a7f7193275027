import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatStatus, readStatus } from '../../src/commands/status.js';
import { runOrPendingView } from '../../src/admission/pending-view.js';
import { silentLogger } from '../../src/log.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import type { Store } from '../../src/store/port.js';
import { agent } from '../store/helpers.js';

describe('open debounce groups where the user looks', () => {
  let dir: string;
  let store: Store;
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists them in hookgate status and shows a pending run until the group fires', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-status-'));
    store = openSqliteStore({ path: join(dir, 'store.sqlite'), synchronous: 'normal' }, { logger: silentLogger(), idempotencyTtlMs: 3_600_000, role: 'service' });
    const at = Date.UTC(2026, 0, 1);
    const join1 = { mappingId: 'gh-pr', key: 'acme/app#7', action: agent('one'), windowMs: 30_000, maxWaitMs: 300_000, keep: 'last' as const, maxChars: 20_000, maxDeliveries: 1000, maxBytes: 1 << 24 };
    const first = await store.debounce.join({ joins: [join1] }, at);
    await store.debounce.join({ joins: [{ ...join1, action: agent('two') }] }, at + 1000);
    const groupId = first.kind === 'committed' ? (first.groups[0]?.groupId as string) : '';

    const report = await readStatus(store, 'store.sqlite');
    expect(report.debounce).toMatchObject({ open: 1, groups: [{ groupId, mappingId: 'gh-pr', key: 'acme/app#7', deliveries: 2 }] });
    expect(formatStatus(report)).toContain(`debounce groups: 1 open:\n  run ${groupId}  gh-pr "acme/app#7": 2 deliveries, fires 2026-01-01T00:00:31.000Z`);
    expect(await runOrPendingView(store, groupId)).toEqual({
      runId: groupId,
      status: 'pending',
      mappingId: 'gh-pr',
      firesAt: '2026-01-01T00:00:31.000Z',
      deliveries: 2,
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    expect(await runOrPendingView(store, 'unknown')).toBeUndefined();
  });
});
