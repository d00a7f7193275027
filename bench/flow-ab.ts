/**
 * The flow-control rows against the plain template row on one server, in ABBA alternation
 * (bench/lib/alternation.ts); `npm run bench` runs the same comparison for its target lines.
 *
 *   node --import tsx bench/flow-ab.ts                      # filter, debounce, rateLimit; 8 pairs of 2 s
 *   node --import tsx bench/flow-ab.ts template-1k-ratelimit 16 2
 *
 * Arguments: row ids (comma-separated; default the three flow-control rows), pairs, seconds per load.
 * Run `npm run build` first: bin/hookgate.js runs the sources when dist/ is older than them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createChildRegistry } from './lib/processes.js';
import { allRows, FLOW_CONTROL_ROWS, type Row } from './lib/plan.js';
import { compareInAlternation } from './lib/alternation.js';

const [rowArg, pairsArg, secondsArg] = process.argv.slice(2);
const variants = rowArg?.split(',') ?? [...FLOW_CONTROL_ROWS];

function rowOf(id: string): Row {
  const row = allRows().find((candidate) => candidate.id === id);
  if (row === undefined) throw new Error(`unknown row ${id}`);
  return row;
}

const children = createChildRegistry();
const tmp = mkdtempSync(join(tmpdir(), 'hookgate-flow-ab-'));
process.on('exit', () => children.killAll());
try {
  for (const id of variants) {
    const options = { pairs: Number(pairsArg ?? 8), durationSeconds: Number(secondsArg ?? 2), connections: 32, synchronous: 'full' as const, tmp, log: console.log };
    const result = await compareInAlternation(children, rowOf('template-1k'), rowOf(id), options);
    console.log(`${id} ÷ template-1k: req/s ${result.rate.toFixed(2)} × (pairs ${result.low.toFixed(2)}–${result.high.toFixed(2)}), CPU per request ${result.cpu.toFixed(2)} ×`);
  }
} finally {
  children.killAll();
  rmSync(tmp, { recursive: true, force: true });
}
