import type { Logger } from '../log.js';

const LINES_PER_SECOND = 20;
const MAX_LINE_CHARS = 500;

interface Window {
  start: number;
  count: number;
  dropped: number;
}

/**
 * Turns a transform's console output into log lines tagged with the module, at most 20 lines per
 * second per module, each at most 500 characters; what is dropped is counted and reported.
 */
export class ConsoleLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly logger: Logger;
  private readonly now: () => number;

  constructor(logger: Logger, now: () => number = Date.now) {
    this.logger = logger;
    this.now = now;
  }

  write(module: string, lines: readonly string[]): void {
    if (lines.length === 0) return;
    const now = this.now();
    let window = this.windows.get(module);
    if (!window || now - window.start >= 1000) {
      if (window && window.dropped > 0) {
        this.logger.warn({ event: 'transform.console.dropped', module, dropped: window.dropped }, 'transform console lines dropped (rate limit)');
      }
      window = { start: now, count: 0, dropped: 0 };
      this.windows.set(module, window);
    }
    for (const line of lines) {
      if (window.count >= LINES_PER_SECOND) {
        window.dropped += 1;
        continue;
      }
      window.count += 1;
      this.logger.info({ event: 'transform.console', module, line: line.slice(0, MAX_LINE_CHARS) }, 'transform console');
    }
  }
}
