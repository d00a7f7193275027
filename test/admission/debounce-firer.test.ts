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
import { createManualClock, type ManualClock } from '../helpers/manual-clock.js';
import type { DebounceStore } from '../../src/store/debounce-port.js';

/** The debounce store with every call counted by method (reads and writes alike are store work). */
function counted(debounce: DebounceStore): { debounce: DebounceStore; calls: Map<string, number>; total: () => number } {
  const calls = new Map<string, number>();
  const wrapped = Object.fromEntries(
    Object.entries(debounce).map(([name, method]) => [name, (...args: unknown[]) => {
      calls.set(name, (calls.get(name) ?? 0) + 1);
      return (method as (...a: unknown[]) => unknown)(...args);
    }]),
  ) as unknown as DebounceStore;
  return { debounce: wrapped, calls, total: () => [...calls.values()].reduce((sum, n) => sum + n, 0) };
}

/** Runs the timers due now and lets the firer's promise chains (store calls included) run to their end. */
async function flush(clock: ManualClock): Promise<void> {
  for (let i = 0; i < 10; i += 1) {
    clock.advance(0);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function advanceBySeconds(clock: ManualClock, seconds: number): Promise<void> {
  for (let second = 0; second < seconds; second += 1) {
    clock.advance(1000);
    await flush(clock);
  }
}

describe('the debounce firer', () => {
  let dir: string;
  let store: Store | undefined;
  afterEach(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function openStore(): Store {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-firer-'));
    const opened = openSqliteStore({ path: join(dir, 'hookgate.sqlite'), synchronous: 'normal' }, { logger: silentLogger(), idempotencyTtlMs: 3_600_000, role: 'service' });
    store = opened;
    return opened;
  }

  it('does no store work while no mapping debounces, and looks every poll once a reload adds one', async () => {
    const opened = openStore();
    const clock = createManualClock();
    const { debounce, calls, total } = counted(opened.debounce);
    const firer = createDebounceFirer({ debounce, ingress: opened.ingress, owner: 'test', logger: silentLogger(), clock, polling: false });
    firer.start();
    await flush(clock);
    // One look at start, for groups an earlier config left: a read, and no claim (a write) with nothing due.
    const atStart = total();
    expect(calls.get('claimDue') ?? 0).toBe(0);
    await advanceBySeconds(clock, 600);
    expect(total()).toBe(atStart);
    firer.setPolling(true);
    await flush(clock);
    await advanceBySeconds(clock, 5);
    expect(calls.get('claimDue') ?? 0).toBeGreaterThanOrEqual(5);
    await firer.stop();
  });

  it('fires a group an earlier config left in the store at its time without polling, then looks no more', async () => {
    const opened = openStore();
    const clock = createManualClock();
    const join1 = { mappingId: 'removed', key: 'k', action: agent('left over'), windowMs: 5000, maxWaitMs: 50_000, keep: 'last' as const, maxChars: 20_000, maxDeliveries: 1000, maxBytes: 1 << 24 };
    const outcome = await opened.debounce.join({ joins: [join1] }, clock.now());
    const groupId = outcome.kind === 'committed' ? outcome.groups[0]?.groupId : undefined;
    if (groupId === undefined) throw new Error('expected the join to open a group');
    const { debounce, total } = counted(opened.debounce);
    const firer = createDebounceFirer({ debounce, ingress: opened.ingress, owner: 'test', logger: silentLogger(), clock, polling: false });
    firer.start();
    await flush(clock);
    clock.advance(4999);
    await flush(clock);
    expect(await opened.runs.view(groupId)).toBeUndefined();
    clock.advance(1);
    await until(async () => (await opened.runs.view(groupId)) !== undefined);
    await flush(clock);
    expect(await opened.debounce.countOpen()).toBe(0);
    const afterFiring = total();
    await advanceBySeconds(clock, 600);
    expect(total()).toBe(afterFiring);
    await firer.stop();
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
