/**
 * Entry of the store's writer thread (src/store/sqlite/writer-serve.ts does the work). Run from
 * dist/ (bundled) or from the sources with bin/source-hooks.js as `--import`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { serveWriter } from './writer-serve.js';
import type { WriterInit } from './writer-protocol.js';

if (parentPort === null) throw new Error('writer-thread.ts runs as a worker thread of the ingress store');
serveWriter(parentPort, workerData as WriterInit);
