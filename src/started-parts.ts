import type { Logger } from './log.js';

/** One part of the service and how to stop it. */
export interface PartStop {
  readonly name: string;
  readonly stop: () => unknown;
}

interface StopFailure {
  readonly name: string;
  readonly error: unknown;
}

/** Stops every part in the given order; one that throws or rejects does not keep the next ones open. */
async function stopEach(parts: readonly PartStop[]): Promise<StopFailure[]> {
  const failures: StopFailure[] = [];
  for (const { name, stop } of parts) {
    try {
      await stop();
    } catch (error) {
      failures.push({ name, error });
    }
  }
  return failures;
}

/**
 * Stops every part in order, then throws an AggregateError of what failed (its message names each
 * failed part and why), so a caller sees every failure, not only the first.
 */
export async function stopAll(parts: readonly PartStop[]): Promise<void> {
  const failures = await stopEach(parts);
  if (failures.length === 0) return;
  const described = failures.map(({ name, error }) => `${name} (${error instanceof Error ? error.message : String(error)})`);
  throw new AggregateError(
    failures.map((failure) => failure.error),
    `cannot stop ${described.join(', ')}`,
  );
}

/**
 * What a start-up has started so far (threads, connections, sandbox workers, sockets), so that
 * a step that throws releases everything before it, newest first, and the process can exit
 * with the error instead of hanging on an open handle.
 */
export class StartedParts {
  private readonly releases: PartStop[] = [];

  /** Registers how to undo a step that has just succeeded. */
  add(name: string, release: () => unknown): void {
    this.releases.push({ name, stop: release });
  }

  /** Undoes every step, newest first; a release that fails is logged and the others still run. */
  async releaseAll(logger: Logger): Promise<void> {
    for (const { name, error } of await stopEach(this.releases.splice(0).reverse())) {
      logger.warn({ event: 'service.release_failed', part: name, err: (error as Error).message }, `cannot release ${name} after a failed start`);
    }
  }
}
