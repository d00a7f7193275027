/** Time as the runtime sees it: injected so tests advance it instead of sleeping. */
export interface Clock {
  now(): number;
  setTimer(fn: () => void, ms: number): TimerHandle;
  clearTimer(handle: TimerHandle): void;
}

/** Opaque to callers; each clock knows what it handed out. */
export type TimerHandle = object;

/** Wall-clock time and Node timers. Timers are unref'd: pending runtime work never keeps a CLI alive. */
export const realClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const timer = setTimeout(fn, Math.max(0, ms));
    timer.unref();
    return timer;
  },
  clearTimer(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
};
