import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { createLogger } from '../../src/log.js';
import { createTransformRunner, type SandboxTransformRunner } from '../../src/sandbox/index.js';
import type { SandboxLimits, TransformInput } from '../../src/sandbox/index.js';

export const FIXTURES = fileURLToPath(new URL('../fixtures/transforms/root/', import.meta.url));
export const EXAMPLES_DIR = fileURLToPath(new URL('../../transforms/', import.meta.url));

/**
 * Small limits keep hostile cases fast. The time limit is wall-clock: a test about something else
 * must not meet it on a loaded machine, so tests that are about the time limit ask for LIMIT_TEST_MS
 * and assert on the reason and the log events, never on elapsed time.
 */
export const TEST_LIMITS: SandboxLimits = { memoryMb: 32, timeoutMs: 20_000, workers: 2 };
/** The time limit of tests that are about it: short, so runaway calls cost little. */
export const LIMIT_TEST_MS = 200;

export interface TestRunner {
  runner: SandboxTransformRunner;
  /** Parsed log lines written so far. */
  logs: Array<Record<string, unknown>>;
  /** Closes the runner and proves every worker process it ever showed is gone. */
  close(): Promise<void>;
}

export function startRunner(
  options: { dir?: string; limits?: Partial<SandboxLimits>; now?: () => number; rssCeilingMb?: number; rssCheckMs?: number; idleCheckMs?: number; growAfterMs?: number } = {},
): TestRunner {
  const logs: Array<Record<string, unknown>> = [];
  const seen = new Set<number>();
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) } });
  const runner = createTransformRunner({
    transformsDir: options.dir ?? FIXTURES,
    limits: { ...TEST_LIMITS, ...options.limits },
    logger,
    ...(options.now ? { now: options.now } : {}),
    ...(options.rssCeilingMb === undefined ? {} : { rssCeilingMb: options.rssCeilingMb }),
    ...(options.rssCheckMs === undefined ? {} : { rssCheckMs: options.rssCheckMs }),
    ...(options.idleCheckMs === undefined ? {} : { idleCheckMs: options.idleCheckMs }),
    ...(options.growAfterMs === undefined ? {} : { growAfterMs: options.growAfterMs }),
  });
  const track = (): void => runner.workerPids().forEach((pid) => seen.add(pid));
  track();
  const timer = setInterval(track, 20);
  return {
    runner,
    logs,
    async close() {
      clearInterval(timer);
      track();
      await runner.close();
      expect(runner.workerPids()).toEqual([]);
      for (const pid of seen) expect(isAlive(pid), `worker ${pid} still running`).toBe(false);
    },
  };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function input(payload: unknown, extra: Partial<TransformInput> = {}): TransformInput {
  return { payload, headers: {}, query: {}, path: '', ...extra };
}

/** The HookError code a promise rejects with. */
export async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
  return 'resolved';
}
