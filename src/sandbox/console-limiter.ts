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
 * Console lines usually carry payload text, and raw payloads stay out of the service log unless
 * the operator asks (`hooks.transformLimits.console`): when off, a module's first console write
 * is reported once, without its text, so a silent `console.log` does not puzzle whoever debugs it.
 */
export class ConsoleLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly silenced = new Set<string>();
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly enabled: boolean;

  constructor(logger: Logger, now: () => number = Date.now, enabled = false) {
    this.logger = logger;
    this.now = now;
    this.enabled = enabled;
  }

  write(module: string, lines: readonly string[]): void {
    if (lines.length === 0) return;
    if (!this.enabled) return this.reportSilenced(module);
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

  private reportSilenced(module: string): void {
    if (this.silenced.has(module)) return;
    this.silenced.add(module);
    this.logger.info(
      { event: 'transform.console.off', module },
      'transform wrote to the console; its lines are not logged (set hooks.transformLimits.console: true to log them)',
    );
  }
}
