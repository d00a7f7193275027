/**
 * Which of a sandbox worker's isolates to dispose: the least recently used ones while their heaps
 * together exceed the budget (transformLimits.isolateBudgetMb), and any not used for `idleMs`. A
 * disposed module stays loaded: its next call creates a fresh isolate (the module's top level runs
 * again). Busy isolates (a call or a set-up running) are never chosen. Pure bookkeeping with an
 * injected clock, so the worker and the tests share it.
 */
export interface IsolateLruOptions {
  budgetBytes: number;
  /** An isolate not used for this long is disposed; 0 = only the budget disposes. */
  idleMs: number;
  now: () => number;
}

interface Entry {
  lastUsed: number;
  heapBytes: number;
  busy: number;
}

export class IsolateLru {
  /** In use order: the first is the least recently used (a Map keeps insertion order). */
  private readonly entries = new Map<string, Entry>();
  private readonly options: IsolateLruOptions;

  constructor(options: IsolateLruOptions) {
    this.options = options;
  }

  get size(): number {
    return this.entries.size;
  }

  get heapBytes(): number {
    let total = 0;
    for (const entry of this.entries.values()) total += entry.heapBytes;
    return total;
  }

  /** The isolate of `key` starts work (a call or its set-up): it is not to be disposed until done(). */
  begin(key: string): void {
    const entry = this.entries.get(key) ?? { lastUsed: this.options.now(), heapBytes: 0, busy: 0 };
    entry.busy += 1;
    this.entries.delete(key);
    this.entries.set(key, entry);
  }

  /** The work ended; `heapBytes` is the isolate's heap now, or undefined when it no longer exists. */
  done(key: string, heapBytes: number | undefined): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    entry.busy = Math.max(0, entry.busy - 1);
    entry.lastUsed = this.options.now();
    if (heapBytes === undefined) {
      if (entry.busy === 0) this.entries.delete(key);
      return;
    }
    entry.heapBytes = heapBytes;
    this.entries.delete(key);
    this.entries.set(key, entry);
  }

  /** The isolate is gone (unloaded, reset after a limit): forget it. */
  forget(key: string): void {
    this.entries.delete(key);
  }

  /**
   * Keys to dispose now, least recently used first: idle past idleMs, then as many more as it takes
   * to bring the others' heaps within the budget. The most recently used isolate is kept whatever
   * its size (a budget below one isolate would otherwise re-create it on every call). The caller
   * disposes them and forgets them.
   */
  evictions(): string[] {
    const now = this.options.now();
    const out: string[] = [];
    let total = this.heapBytes;
    let left = this.entries.size;
    for (const [key, entry] of this.entries) {
      left -= 1;
      if (entry.busy > 0) continue;
      const idle = this.options.idleMs > 0 && now - entry.lastUsed >= this.options.idleMs;
      if (!idle && (total <= this.options.budgetBytes || left === 0)) continue;
      out.push(key);
      total -= entry.heapBytes;
    }
    return out;
  }
}
