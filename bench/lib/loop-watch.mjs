// Preloaded into a server under test (`node --import <this file>`) by bench/soak-profile.ts: the
// main thread's event-loop delay and V8's GC pauses, written as JSON lines to $LOOP_WATCH_OUT every
// few seconds. What makes a tail latency inside the process, as opposed to waiting for a core.
import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay, PerformanceObserver, constants } from 'node:perf_hooks';
import { isMainThread, Worker } from 'node:worker_threads';
import { getHeapSpaceStatistics } from 'node:v8';
import { Server } from 'node:http';

const out = process.env.LOOP_WATCH_OUT;
if (isMainThread && out !== undefined && out !== '') {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const kinds = { [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor', [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major', [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental', [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb' };
  let gc = {};
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = kinds[entry.detail?.kind] ?? String(entry.detail?.kind);
      const g = (gc[kind] ??= { count: 0, ms: 0, maxMs: 0 });
      g.count += 1;
      g.ms += entry.duration;
      g.maxMs = Math.max(g.maxMs, entry.duration);
    }
  }).observe({ entryTypes: ['gc'] });
  // The store's writer thread: found by its first message, asked for its heap with the rest.
  const workers = new Set();
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (...args) {
    workers.add(this);
    return post.apply(this, args);
  };
  let workerHeap = 0;
  // How long the server itself takes for a request: from the 'request' event to the response's end.
  let served = [];
  const emit = Server.prototype.emit;
  Server.prototype.emit = function (event, req, res) {
    if (event === 'request') {
      const started = performance.now();
      res.once('finish', () => served.push(performance.now() - started));
    }
    return emit.apply(this, arguments);
  };
  let cpu = process.cpuUsage();
  const timer = setInterval(() => {
    for (const worker of workers) worker.getHeapStatistics?.().then((h) => { workerHeap = h.total_heap_size; }, () => undefined);
    const now = process.cpuUsage();
    const mem = process.memoryUsage();
    const sorted = served.sort((a, b) => a - b);
    served = [];
    appendFileSync(out, JSON.stringify({
      served: { n: sorted.length, p50: sorted[Math.floor(sorted.length / 2)] ?? 0, p99: sorted[Math.floor(sorted.length * 0.99)] ?? 0, max: sorted.at(-1) ?? 0 },
      at: Date.now(),
      loop: { p50: delay.percentile(50) / 1e6, p99: delay.percentile(99) / 1e6, max: delay.max / 1e6, mean: delay.mean / 1e6 },
      gc,
      cpuMs: (now.user - cpu.user + now.system - cpu.system) / 1000,
      spaces: Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, Math.round(s.physical_space_size / 1048576)])),
      workerHeap,
      heapUsed: mem.heapUsed, heapTotal: mem.heapTotal, external: mem.external, arrayBuffers: mem.arrayBuffers, rss: mem.rss,
    }) + '\n');
    delay.reset();
    gc = {};
    cpu = now;
  }, 5000);
  timer.unref();
}
