import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { StartedParts, stopAll, type PartStop } from '../../src/started-parts.js';

/** Parts that record their stop in `stopped`; those named in `failing` reject (or throw) after recording. */
function parts(names: string[], failing: Record<string, 'reject' | 'throw'>, stopped: string[]): PartStop[] {
  return names.map((name) => ({
    name,
    stop: () => {
      stopped.push(name);
      if (failing[name] === 'throw') throw new Error(`${name} threw`);
      if (failing[name] === 'reject') return Promise.reject(new Error(`${name} rejected`));
      return Promise.resolve();
    },
  }));
}

describe('stopAll', () => {
  it('stops every part in order even when some fail, then rejects with an AggregateError of every failure', async () => {
    const stopped: string[] = [];
    const outcome = stopAll(parts(['socket', 'runtime', 'store', 'engine'], { runtime: 'reject', engine: 'throw' }, stopped));
    const error = await outcome.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(stopped).toEqual(['socket', 'runtime', 'store', 'engine']);
    expect(error).toBeInstanceOf(AggregateError);
    expect((error as AggregateError).errors.map((cause: Error) => cause.message)).toEqual(['runtime rejected', 'engine threw']);
    expect((error as AggregateError).message).toBe('cannot stop runtime (runtime rejected), engine (engine threw)');
  });

  it('resolves when every part stops', async () => {
    const stopped: string[] = [];
    await expect(stopAll(parts(['a', 'b'], {}, stopped))).resolves.toBeUndefined();
    expect(stopped).toEqual(['a', 'b']);
  });
});

describe('StartedParts.releaseAll', () => {
  it('releases newest first, logs each failure with its part, and releases each part once', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger({ level: 'warn', destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) } });
    const stopped: string[] = [];
    const started = new StartedParts();
    for (const part of parts(['store', 'engine', 'runtime'], { engine: 'reject' }, stopped)) started.add(part.name, part.stop);
    await started.releaseAll(logger);
    await started.releaseAll(logger);
    expect(stopped).toEqual(['runtime', 'engine', 'store']);
    expect(lines.map((line) => [line['event'], line['part'], line['err']])).toEqual([['service.release_failed', 'engine', 'engine rejected']]);
  });
});
