import type { Context } from 'koa';
import { HookError } from '../errors.js';
import { realClock, type Clock, type TimerHandle } from '../runtime/clock.js';
import { chargeOf } from './body-budget.js';
import { meterOf } from './body-meter.js';

/** A body still arriving must bring `minBodyBytesPerSecond` × this many seconds in each such window. */
const RATE_WINDOW_MS = 2000;

/** How fast a body must arrive. */
export interface ReadPace {
  /** The whole body within this time (hooks.bodyTimeoutMs). */
  bodyTimeoutMs: number;
  /** Least rate while the body arrives (hooks.minBodyBytesPerSecond); 0 or absent: none. */
  minBodyBytesPerSecond?: number | undefined;
  /** Where the deadline and the rate windows are timed (tests inject a manual clock). */
  clock?: Clock | undefined;
}

/**
 * Settles as `read` (the reader taking the request's body) does, unless first:
 *  - the whole body has not arrived within bodyTimeoutMs: 408 BODY_TIMEOUT;
 *  - a window of RATE_WINDOW_MS ends with fewer than minBodyBytesPerSecond × its seconds arrived in
 *    it and the body still incomplete: 408 BODY_TIMEOUT (a sender that stalls after a fast start
 *    is caught as one that trickles from the start);
 *  - the body budget refused the request's next chunk: 503 SERVER_BUSY.
 * The request stream is paused then: nothing more of that body is taken into memory, and the
 * connection closes after the answer.
 */
export function readWithin(ctx: Context, read: Promise<unknown>, pace: ReadPace): Promise<void> {
  // The whole body is in already (a small body comes with its headers): no deadline or rate can
  // be missed and no chunk can be refused any more, so no timer is set for it.
  if (chargeOf(ctx)?.refusal === undefined && meterOf(ctx).complete) return read.then(() => undefined);
  const clock = pace.clock ?? realClock;
  return new Promise<void>((resolve, reject) => {
    const timers = new Set<TimerHandle>();
    let settled = false;
    const end = (): boolean => {
      if (settled) return false;
      settled = true;
      for (const timer of timers) clock.clearTimer(timer);
      return true;
    };
    const fail = (error: unknown): void => {
      if (!end()) return;
      ctx.req.pause();
      reject(error);
    };
    timers.add(clock.setTimer(() => fail(new HookError('BODY_TIMEOUT', `request body not received within ${pace.bodyTimeoutMs} ms`, { closeConnection: true })), pace.bodyTimeoutMs));
    const rate = pace.minBodyBytesPerSecond ?? 0;
    if (rate > 0) watchRate(ctx, { clock, timers, rate, settled: () => settled, fail });
    chargeOf(ctx)?.whenRefused(fail);
    // A late settlement of `read` after a failure changes nothing: a promise settles once.
    read.then(() => {
      if (end()) resolve();
    }, fail);
  });
}

interface RateWatch {
  clock: Clock;
  timers: Set<TimerHandle>;
  rate: number;
  settled: () => boolean;
  fail: (error: unknown) => void;
}

function watchRate(ctx: Context, watch: RateWatch): void {
  const meter = meterOf(ctx);
  const least = (watch.rate * RATE_WINDOW_MS) / 1000;
  const arm = (): void => {
    const from = meter.received;
    const timer = watch.clock.setTimer(() => {
      watch.timers.delete(timer);
      // Judged once the event loop has polled the sockets: bytes a busy loop has not read yet are
      // the server's delay, not the sender's.
      setImmediate(() => {
        if (watch.settled() || meter.complete) return;
        if (meter.received - from >= least) return arm();
        watch.fail(new HookError('BODY_TIMEOUT', `request body arrived slower than ${watch.rate} bytes per second`, { closeConnection: true }));
      });
    }, RATE_WINDOW_MS);
    watch.timers.add(timer);
  };
  arm();
}
