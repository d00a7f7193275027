/**
 * Bytes counted in whole seconds of the clock, the current one and the one before: how much a body
 * brought over the last one to two seconds, in two numbers per body (no list of arrivals).
 */
export class RecentBytes {
  private second = Number.NEGATIVE_INFINITY;
  private current = 0;
  private previous = 0;

  add(now: number, bytes: number): void {
    this.roll(now);
    this.current += bytes;
  }

  /** The bytes of the current second and the one before it. */
  total(now: number): number {
    this.roll(now);
    return this.current + this.previous;
  }

  private roll(now: number): void {
    const second = Math.floor(now / 1000);
    if (second === this.second) return;
    this.previous = second === this.second + 1 ? this.current : 0;
    this.current = 0;
    this.second = second;
  }
}
