import { hostname } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { configPathFrom, loadConfigFile } from '../config/load.js';
import { ConfigError } from '../errors.js';
import { createTargets, type TargetClient } from '../forward/index.js';
import { silentLogger } from '../log.js';
import { nearestName } from '../near-name.js';
import { createEdgeApi } from '../relay/client/edge-api.js';
import { runConsumer } from '../relay/client/consumer.js';
import { createProgress } from '../relay/client/progress.js';
import { CONSUMER_PATTERN, MAX_EVENTS, MAX_WAIT_SECONDS } from '../relay/wire.js';
import { parseCommandLine, UsageError } from './args.js';
import type { CommandIo } from './io.js';

/** The environment variable the relay token may come from instead of --token (kept out of `ps`). */
export const RELAY_TOKEN_ENV = 'HOOKGATE_RELAY_TOKEN';

export interface RelayArgs {
  from: string;
  target: string;
  token: string | undefined;
  to: string;
  config: string | undefined;
  consumer: string | undefined;
  wait: number;
  max: number;
}

/** A wrong command line throws UsageError (src/cli.ts prints it with the usage, exit 2). */
export function parseRelayArgs(argv: string[]): RelayArgs {
  const { values } = parseCommandLine({
    args: argv,
    strict: true,
    options: {
      from: { type: 'string' },
      target: { type: 'string' },
      token: { type: 'string' },
      to: { type: 'string' },
      config: { type: 'string' },
      consumer: { type: 'string' },
      wait: { type: 'string' },
      max: { type: 'string' },
    },
  });
  for (const required of ['from', 'target', 'to'] as const) if (values[required] === undefined || values[required] === '') throw new UsageError(`--${required} is required`);
  const from = values.from as string;
  if (!/^https?:\/\/[^/@\s]+(\/\S*)?$/.test(from)) throw new UsageError(`--from wants the edge's hooks URL, e.g. https://edge.example/hooks, not ${JSON.stringify(from)}`);
  if (values.consumer !== undefined && !new RegExp(CONSUMER_PATTERN).test(values.consumer)) throw new UsageError('--consumer wants 1 to 100 letters, digits and . _ : @ - (starting with a letter or digit)');
  return {
    from,
    target: values.target as string,
    token: values.token,
    to: values.to as string,
    config: values.config,
    consumer: values.consumer,
    wait: whole(values.wait, '--wait', 1, MAX_WAIT_SECONDS) ?? 30,
    max: whole(values.max, '--max', 1, MAX_EVENTS) ?? 10,
  };
}

function whole(text: string | undefined, option: string, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  const value = /^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!(value >= min && value <= max)) throw new UsageError(`${option} wants a whole number from ${min} to ${max}, not ${JSON.stringify(text)}`);
  return value;
}

/**
 * `hookgate relay`: pulls a relay target's events from the edge and hands each to a local target
 * of --config (docs/relay.md), until SIGINT or SIGTERM (exit 0). A refusal that asking again cannot
 * change — a wrong token, no such target on the edge — is one line on stderr and exit 1; so is a
 * local target that cannot be used.
 */
export async function runRelay(argv: string[], io: CommandIo): Promise<number> {
  const args = parseRelayArgs(argv);
  const token = args.token ?? io.env[RELAY_TOKEN_ENV];
  if (token === undefined || token === '') throw new UsageError(`a relay token is required: --token, or $${RELAY_TOKEN_ENV}`);
  let target: Handing;
  try {
    target = await localTarget(args, io);
  } catch (error) {
    if (!(error instanceof ConfigError || error instanceof LocalTargetError)) throw error;
    io.stderr(`hookgate relay: ${error.message}\n`);
    return 1;
  }
  const consumer = args.consumer ?? `${hostname().replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 80) || 'relay'}-${process.pid}`;
  const stop = stopOnSignals();
  const progress = createProgress({ write: io.stdout, isTTY: process.stdout.isTTY === true });
  io.stdout(`hookgate relay: pulling "${args.target}" from ${args.from} as ${consumer}, handing to "${target.name}" (${target.kind})\n`);
  const api = createEdgeApi({ from: args.from, target: args.target, token, consumer, fetch: globalThis.fetch });
  const sleep = (ms: number, signal: AbortSignal) => delay(ms, undefined, { signal }).catch(() => undefined);
  const end = await runConsumer({ api, target, waitSeconds: args.wait, max: args.max, progress, now: Date.now, sleep, signal: stop.signal });
  stop.dispose();
  if (end.kind === 'stopped') {
    progress.stopped();
    return 0;
  }
  const what = end.status === 401 || end.status === 403 ? `refused the token for relay target "${args.target}"` : `refused the pull of relay target "${args.target}"`;
  io.stderr(`hookgate relay: the edge ${what} (${end.status}${end.code === undefined ? '' : ` ${end.code}`}: ${end.message})\n`);
  return 1;
}

type Handing = TargetClient & { handOff: NonNullable<TargetClient['handOff']> };

class LocalTargetError extends Error {}

/** --to among --config's targets: one that takes actions (openclaw, hermes, http). */
async function localTarget(args: RelayArgs, io: CommandIo): Promise<Handing> {
  const path = configPathFrom(args.config, io.env, io.cwd);
  // Only the targets' secrets are needed here: an unset ${VAR} elsewhere is left as it is.
  const tolerance = { needed: ['/targets'], warnings: [] as string[] };
  const config = await loadConfigFile(path, io.env, tolerance);
  const targets = createTargets(config.targets, { fetch: globalThis.fetch, logger: silentLogger() });
  const target = targets.get(args.to);
  if (target === undefined) {
    const near = nearestName(args.to, targets.keys());
    throw new LocalTargetError(`--to "${args.to}" is not a target in ${path}${near === undefined ? '' : `; did you mean "${near}"?`} (targets: ${[...targets.keys()].join(', ') || 'none'})`);
  }
  if (target.handOff === undefined || target.relay !== undefined) throw new LocalTargetError(`--to "${args.to}" is a ${target.kind} target; events are handed to an openclaw, hermes or http target`);
  return target as Handing;
}

/** SIGINT/SIGTERM stop the consumer cleanly; a second one ends the process at once. */
function stopOnSignals(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onSignal = (): void => {
    if (controller.signal.aborted) process.exit(130);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
