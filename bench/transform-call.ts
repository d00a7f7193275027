/**
 * Micro-benchmark of one warm transform call through the sandbox pool (ingress → worker → isolate
 * → back), for a ~1 KB GitHub payload, with both IPC encodings; plus worker start-up and the cost of
 * a fresh isolate context per call (the alternative to frozen intrinsics).
 * Run: node --import tsx bench/transform-call.ts
 */
import { fileURLToPath } from 'node:url';
import ivm from 'isolated-vm';
import { silentLogger } from '../src/log.js';
import { createTransformRunner, type TransformInput } from '../src/sandbox/index.js';

const DIR = fileURLToPath(new URL('../transforms/', import.meta.url));
const CALLS = 5000;

function payload(): TransformInput {
  const issue = { number: 42, title: 'Crash on start', html_url: 'https://github.com/acme/app/issues/42', user: { login: 'octocat' } };
  const body = { action: 'opened', issue: { ...issue, body: 'x'.repeat(700) }, repository: { full_name: 'acme/app' } };
  return { payload: body, headers: { 'x-github-event': 'issues', 'content-type': 'application/json' }, query: {}, path: 'github' };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function pool(serialization: 'json' | 'advanced'): Promise<void> {
  const started = performance.now();
  const runner = createTransformRunner({ transformsDir: DIR, limits: { memoryMb: 32, timeoutMs: 1000, workers: 2 }, logger: silentLogger(), serialization });
  const handle = await runner.load({ module: 'github-issue.js' });
  const startup = performance.now() - started;
  const input = payload();
  for (let i = 0; i < 500; i++) await runner.run(handle, input);
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const t0 = performance.now();
    await runner.run(handle, input);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  // 200 calls in flight at a time (the pool queues at most 1000 per module, then answers 503).
  const t1 = performance.now();
  for (let done = 0; done < CALLS; done += 200) await Promise.all(Array.from({ length: 200 }, () => runner.run(handle, input)));
  const throughput = CALLS / ((performance.now() - t1) / 1000);
  await runner.close();
  console.log(
    `${serialization.padEnd(8)} start+load ${startup.toFixed(0)} ms | sequential p50 ${percentile(times, 50).toFixed(3)} ms p90 ${percentile(times, 90).toFixed(3)} ms p99 ${percentile(times, 99).toFixed(3)} ms | 200 in flight: ${throughput.toFixed(0)} calls/s`,
  );
}

function contexts(): void {
  const isolate = new ivm.Isolate({ memoryLimit: 64 });
  const code = 'globalThis.f = (json) => JSON.stringify({ n: JSON.parse(json).n + 1 });';
  const arg = JSON.stringify({ n: 1 });
  const time = (label: string, n: number, fn: () => void): void => {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) fn();
    console.log(`${label}: ${(((performance.now() - t0) / n) * 1000).toFixed(1)} µs/call`);
  };
  time('fresh context per call', 100, () => {
    const context = isolate.createContextSync();
    context.evalSync(code);
    context.global.getSync('f', { reference: true }).applySync(undefined, [arg]);
    context.release();
  });
  const context = isolate.createContextSync();
  context.evalSync(code);
  const f = context.global.getSync('f', { reference: true });
  time('one context, reused', 5000, () => f.applySync(undefined, [arg]));
  isolate.dispose();
}

contexts();
// Interleaved rounds: the machine is shared, so compare modes under the same background load.
for (let round = 0; round < 3; round++) {
  await pool('json');
  await pool('advanced');
}
