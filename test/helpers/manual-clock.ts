import type { Clock } from '../../src/runtime/clock.js';

export interface ManualClock extends Clock {
  /** Moves time forward by ms, running every timer that falls due on the way, in due order. */
  advance(ms: number): void;
  /** Timers not yet run or cleared. */
  pendingTimers(): number;
  /** Timers due now or earlier (advance(0) would run them). */
  dueTimers(): number;
}

interface ManualTimer {
  due: number;
  seq: number;
  fn: () => void;
}

/** A clock for tests: time moves only when advance() is called. */
export function createManualClock(start = Date.UTC(2025, 0, 1)): ManualClock {
  let now = start;
  let seq = 0;
  const timers = new Set<ManualTimer>();

  function nextDue(limit: number): ManualTimer | undefined {
    let best: ManualTimer | undefined;
    for (const timer of timers) {
      if (timer.due > limit) continue;
      if (best === undefined || timer.due < best.due || (timer.due === best.due && timer.seq < best.seq)) best = timer;
    }
    return best;
  }

  return {
    now: () => now,
    setTimer(fn, ms) {
      const timer: ManualTimer = { due: now + Math.max(0, ms), seq: seq++, fn };
      timers.add(timer);
      return timer;
    },
    clearTimer(handle) {
      timers.delete(handle as ManualTimer);
    },
    advance(ms) {
      const target = now + ms;
      for (let timer = nextDue(target); timer !== undefined; timer = nextDue(target)) {
        timers.delete(timer);
        now = Math.max(now, timer.due);
        timer.fn();
      }
      now = target;
    },
    pendingTimers: () => timers.size,
    dueTimers: () => [...timers].filter((timer) => timer.due <= now).length,
  };
}
