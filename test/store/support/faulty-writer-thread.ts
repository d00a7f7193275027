/**
 * Test-only entry of the store's writer thread: the production writer (writer-serve.ts) with an
 * extension that injects faults on request — a crash inside the next commit, and the two pragmas
 * that simulate a full disk (`max_page_count`) or a read-only store (`query_only`) on the
 * writer's own connection. Tests reach it through ./writer-faults.ts.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { WriterConnection } from '../../../src/store/sqlite/writer-serve.js';
import type { WriterInit, WriterReply } from '../../../src/store/sqlite/writer-protocol.js';

// By its .ts path: the thread's resolve hook (bin/source-hooks.js) maps `.js` specifiers of the
// sources only, and this file is not one of them.
const { serveWriter } = (await import(new URL('../../../src/store/sqlite/writer-serve.ts', import.meta.url).href)) as typeof import('../../../src/store/sqlite/writer-serve.js');

/** Exit code of the simulated crash. */
export const CRASH_EXIT_CODE = 70;

let crashArmed = false;

function setPragma(value: unknown, writer: WriterConnection): WriterReply {
  const { name, setting } = value as { name: string; setting: number | boolean };
  if (name === 'max_page_count' && typeof setting === 'number' && Number.isSafeInteger(setting) && setting > 0) {
    writer.db.exec(`PRAGMA max_page_count = ${setting}`);
  } else if (name === 'query_only' && typeof setting === 'boolean') {
    writer.db.exec(`PRAGMA query_only = ${setting ? 'ON' : 'OFF'}`);
  } else {
    return { type: 'error', message: `pragma ${name} = ${String(setting)} is not allowed` };
  }
  return { type: 'probed', writable: writer.probe() };
}

if (parentPort === null) throw new Error('faulty-writer-thread.ts runs as a worker thread');
serveWriter(parentPort, workerData as WriterInit, {
  beforeCommit() {
    // After the rows are written, before COMMIT: the thread dies as a crash would.
    if (crashArmed) process.exit(CRASH_EXIT_CODE);
  },
  handle(request, writer) {
    if (request.name === 'crash-next-commit') {
      crashArmed = true;
      return { type: 'done' };
    }
    if (request.name === 'pragma') return setPragma(request.value, writer);
    return { type: 'error', message: `unknown fault ${request.name}` };
  },
});
