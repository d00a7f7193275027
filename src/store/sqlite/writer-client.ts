import { Worker } from 'node:worker_threads';
import type { Logger } from '../../log.js';
import type { ReplyEnvelope, WriterInit, WriterReply, WriterRequest } from './writer-protocol.js';

// `.ts` when run from the sources (which then need the `.js` → `.ts` resolve hook), `.js` when run
// from the dist/ build (scripts/build.mjs).
const FROM_SOURCES = import.meta.url.endsWith('.ts');
const WRITER_ENTRY = new URL(`./writer-thread${FROM_SOURCES ? '.ts' : '.js'}`, import.meta.url);
// A server run under `node --cpu-prof` (`npm run bench -- --profile`) profiles its writer thread too.
const PROFILE_ARGV = process.execArgv.filter((arg) => arg.startsWith('--cpu-prof'));
const EXEC_ARGV = [...(FROM_SOURCES ? ['--import', new URL('../../../bin/source-hooks.js', import.meta.url).href] : []), ...PROFILE_ARGV];

/** The main thread's side of the writer thread: requests answered in order, one thread at a time. */
export interface WriterClient {
  /** Rejects when the thread dies before answering (a new thread starts for the next request). */
  request(message: WriterRequest): Promise<WriterReply>;
  /** Ends the thread now, as a crash would (tests; the next request starts a new thread). */
  terminate(): Promise<void>;
  /** Closes the writer's connection and ends the thread; later requests are refused. */
  close(): Promise<void>;
}

export interface WriterClientOptions {
  logger: Logger;
  /** Called when a thread ended without being asked to (after its pending requests were rejected). */
  onDied?: () => void;
  /** The module the thread runs; tests pass a writer with a fault-injecting extension (test/store/support/). */
  entry?: URL;
}

interface Waiter {
  resolve: (reply: WriterReply) => void;
  reject: (error: Error) => void;
}

export class WriterDiedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WriterDiedError';
  }
}

/**
 * Starts the writer thread lazily and again after it died. The thread is unref'ed while nothing
 * is pending, so an idle store never keeps the process alive; a pending commit does.
 */
export function createWriterClient(init: WriterInit, options: WriterClientOptions): WriterClient {
  let worker: Worker | undefined;
  let nextId = 1;
  let closed = false;
  /** Set once close() began: the thread's exit from then on is expected. */
  let ending = false;
  const pending = new Map<number, Waiter>();

  function start(): Worker {
    const thread = new Worker(options.entry ?? WRITER_ENTRY, { workerData: init, name: 'hookgate-store-writer', execArgv: EXEC_ARGV });
    let failure: Error | undefined;
    thread.unref();
    thread.on('message', ({ id, body }: ReplyEnvelope) => {
      const waiter = pending.get(id);
      pending.delete(id);
      if (pending.size === 0) thread.unref();
      waiter?.resolve(body);
    });
    thread.on('error', (error) => (failure = error));
    thread.on('exit', (code) => {
      if (worker !== thread) return;
      worker = undefined;
      const lost = [...pending.values()];
      pending.clear();
      if (!ending) {
        options.logger.error(
          { event: 'store.writer_died', code, err: failure?.message, pending: lost.length },
          'store writer thread died; its pending commits were refused and a new thread starts for the next one',
        );
      }
      const error = new WriterDiedError(`store writer thread exited with code ${code}${failure === undefined ? '' : `: ${failure.message}`}`);
      for (const waiter of lost) waiter.reject(error);
      if (!ending) options.onDied?.();
    });
    return thread;
  }

  function request(message: WriterRequest): Promise<WriterReply> {
    if (closed) return Promise.reject(new WriterDiedError('store writer is closed'));
    worker ??= start();
    const thread = worker;
    const id = nextId++;
    return new Promise<WriterReply>((resolve, reject) => {
      if (pending.size === 0) thread.ref();
      pending.set(id, { resolve, reject });
      thread.postMessage({ id, body: message });
    });
  }

  return {
    request,
    async terminate() {
      await worker?.terminate();
    },
    async close() {
      if (ending) return;
      ending = true;
      const thread = worker;
      if (thread !== undefined) {
        const exited = new Promise((resolve) => thread.once('exit', resolve));
        try {
          await request({ type: 'close' });
        } catch {
          // it died meanwhile: nothing left to close
        }
        // Keep the thread ref'd until it is gone: otherwise an otherwise idle event loop could end
        // while close() still waits for the exit.
        thread.ref();
        await exited;
      }
      closed = true;
    },
  };
}
