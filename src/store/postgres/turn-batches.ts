/**
 * Group commit's timing, apart from what is committed: items added during one turn of the event
 * loop leave together as one batch; at most maxInFlight batches are out at once, and items added
 * meanwhile gather into the next one, so batches grow with the load.
 */
export interface TurnBatches<T> {
  add(item: T): void;
  /** Resolves once nothing is queued or in flight (everything added so far was sent and settled). */
  drain(): Promise<void>;
}

export function createTurnBatches<T>(send: (batch: T[]) => Promise<void>, maxInFlight: number): TurnBatches<T> {
  let queue: T[] = [];
  let scheduled = false;
  let inFlight = 0;
  let idle: Array<() => void> = [];

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(sendNext);
  }

  function sendNext(): void {
    scheduled = false;
    if (queue.length === 0 || inFlight >= maxInFlight) return;
    const batch = queue;
    queue = [];
    inFlight += 1;
    // send settles its own items and never rejects; the catch only keeps the chain alive.
    void send(batch)
      .catch(() => undefined)
      .finally(() => {
        inFlight -= 1;
        if (queue.length > 0) schedule();
        else if (inFlight === 0) for (const resolve of idle.splice(0)) resolve();
      });
  }

  return {
    add(item) {
      queue.push(item);
      schedule();
    },
    drain() {
      if (queue.length === 0 && inFlight === 0) return Promise.resolve();
      return new Promise((resolve) => {
        idle.push(resolve);
        schedule();
      });
    },
  };
}
