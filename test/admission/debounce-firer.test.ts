import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDebounceFirer } from '../../src/admission/debounce.js';
import { silentLogger } from '../../src/log.js';
import type { Store } from '../../src/store/port.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import { agent } from '../store/helpers.js';
import { until } from '../helpers/wait.js';

describe('the debounce firer', () => {
  let dir: string;
  let store: Store | undefined;
  afterEach(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('fires the other groups of a batch when one cannot be committed, and leaves that one claimed for a later try', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-firer-'));
    const opened = openSqliteStore({ path: join(dir, 'hookgate.sqlite'), synchronous: 'normal' }, { logger: silentLogger(), idempotencyTtlMs: 3_600_000, role: 'service' });
    store = opened;
    const now = Date.now();
    const join1 = { mappingId: 'm', action: agent('first'), windowMs: 0, maxWaitMs: 0, keep: 'last' as const, maxChars: 20_000, maxDeliveries: 1000, maxBytes: 1 << 24 };
    const outcome = await opened.debounce.join({ joins: [{ ...join1, key: 'a' }, { ...join1, key: 'b', action: agent('second') }] }, now - 1000);
    const [failing, firing] = outcome.kind === 'committed' ? outcome.groups.map((group) => group.groupId) : [];
    // An ingress that cannot commit the first group's action.
    const ingress = { ...opened.ingress, accept: (acceptance: Parameters<typeof opened.ingress.accept>[0]) => (acceptance.actions.some((action) => action.kind === 'agent' && action.runId === failing) ? Promise.reject(new Error('disk full')) : opened.ingress.accept(acceptance)) };
    const firer = createDebounceFirer({ debounce: opened.debounce, ingress, owner: 'test', logger: silentLogger(), pollMs: 60_000 });
    firer.start();
    firer.nudge(now);
    await until(async () => (await opened.debounce.view(firing ?? '')) === undefined);
    await firer.stop();
    expect(await opened.runs.view(firing ?? '')).toMatchObject({ status: 'queued' });
    expect(await opened.debounce.view(failing ?? '')).toMatchObject({ status: 'firing' });
    expect(await opened.runs.view(failing ?? '')).toBeUndefined();
  });
});
