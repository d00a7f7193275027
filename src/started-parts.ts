import type { Logger } from './log.js';

/**
 * What a start-up has started so far (threads, connections, sandbox workers, sockets), so that
 * a step that throws releases everything before it, newest first, and the process can exit
 * with the error instead of hanging on an open handle.
 */
export class StartedParts {
  private readonly releases: Array<{ name: string; release: () => unknown }> = [];

  /** Registers how to undo a step that has just succeeded. */
  add(name: string, release: () => unknown): void {
    this.releases.push({ name, release });
  }

  /** Undoes every step, newest first; a release that fails is logged and the others still run. */
  async releaseAll(logger: Logger): Promise<void> {
    for (const { name, release } of this.releases.splice(0).reverse()) {
      try {
        await release();
      } catch (error) {
        logger.warn({ event: 'service.release_failed', part: name, err: (error as Error).message }, `cannot release ${name} after a failed start`);
      }
    }
  }
}
