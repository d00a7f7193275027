/**
 * What transformLimits.isolateBudgetMb trades: two modules called in alternation in one sandbox
 * worker, with a budget that keeps both isolates (each call reuses its isolate) and with budget 0
 * (each call disposes the other module's isolate and creates its own again: context, guest
 * prelude, bundle). Prints wall time and the worker's CPU per call.
 *
 *   node --import tsx bench/isolate-budget.ts
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTransformRunner } from '../src/sandbox/index.js';
import { createLogger } from '../src/log.js';
import { payload } from './lib/payloads.js';
import { treeCpuMs } from './lib/processes.js';

const CALLS = 100;
const dir = mkdtempSync(join(tmpdir(), 'hookgate-isolate-budget-'));
const source = fileURLToPath(new URL('../transforms/github-issue.js', import.meta.url));
for (const name of ['a.js', 'b.js']) copyFileSync(source, join(dir, name));
const input = { payload: JSON.parse(payload('github', 1024)) as unknown, headers: { 'x-github-event': 'issues' }, query: {}, path: '' };

try {
  for (const budget of [1024, 0, 1024, 0]) {
    const runner = createTransformRunner({ transformsDir: dir, limits: { memoryMb: 32, timeoutMs: 5000, workers: 1, isolateBudgetMb: budget }, logger: createLogger({ level: 'error' }) });
    const modules = [await runner.load({ module: 'a.js' }), await runner.load({ module: 'b.js' })];
    for (let i = 0; i < 20; i++) for (const m of modules) await runner.run(m, input);
    const pid = runner.workerPids()[0] ?? 0;
    const cpu0 = treeCpuMs(pid);
    const t0 = performance.now();
    for (let i = 0; i < CALLS; i++) for (const m of modules) await runner.run(m, input);
    const calls = CALLS * modules.length;
    console.log(`isolateBudgetMb ${String(budget).padStart(4)}: ${((performance.now() - t0) / calls).toFixed(2)} ms wall, ${((treeCpuMs(pid) - cpu0) / calls).toFixed(2)} ms worker CPU per call`);
    await runner.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
