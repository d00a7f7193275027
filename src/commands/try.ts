import { readFile } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import { ConfigError } from '../errors.js';
import { silentLogger } from '../log.js';
import { configPathFrom, loadConfigFile, type ResolvedConfig } from '../config/load.js';
import { configAdvisories } from '../config/advisories.js';
import { createConfiguredActionBuilder } from '../actions/build.js';
import { createMappingEngine, type RoutedMapping } from '../mapping/engine.js';
import { explanationJson, formatExplanation } from '../mapping/explain-format.js';
import { startTransformRunner } from '../mapping/live-engine.js';
import { usesTransforms } from '../config/mapping-schema.js';
import { parseCommandLine, UsageError } from './args.js';
import { checkTrySignature, formatTrySignature } from './try-signature.js';
import { findReplay, formatReplay, replayJson, storeMayAnswer } from './try-replay.js';
import { headerArgs, queryArgs } from './request-args.js';
import { openStore } from '../store/open.js';
import type { Store } from '../store/port.js';
import { createRateRefusals } from '../admission/rate-refusals.js';
import type { AdmissionLimits } from '../admission/rate-limit.js';
import type { OwnMessageLookup } from '../admission/own-messages.js';

export interface TryIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** Thrown for an unreadable payload file: printed, exit 1. (A wrong command line is a UsageError: exit 2.) */
class PayloadError extends Error {}

/**
 * `hookgate try`: runs a payload through the mappings exactly as a request would be, without
 * a store, a listener or the network, and shows why each mapping did or did not match, what
 * the winner rendered, and the enveloped text the agent would read.
 * Exit 0 matched (actions or a skip), 2 no mapping matched, 1 error (config, payload, or the mapping rejected it).
 * A wrong command line throws UsageError (src/cli.ts prints it with the usage, exit 2).
 */
export async function runTry(argv: string[], io: TryIo): Promise<number> {
  const args = parseTryArgs(argv);
  let runner: { close(): Promise<void> } | undefined;
  let store: Store | undefined;
  try {
    const tolerance = { needed: [], warnings: [] as string[] };
    const config = await loadConfigFile(configPathFrom(args.config, io.env, io.cwd), io.env, tolerance);
    for (const warning of tolerance.warnings) io.stderr(`warning: ${warning}\n`);
    const { payload, body } = await readPayload(resolvePath(io.cwd, args.payload));
    const transforms = usesTransforms(config.hooks.mappings) ? await startTransformRunner(config.hooks, silentLogger()) : undefined;
    runner = transforms;
    const builder = createConfiguredActionBuilder(config);
    const limits = await openLimitStore(config, args.headers);
    store = limits?.store;
    const engine = await createMappingEngine({ hooks: config.hooks, builder, transforms, logger: silentLogger(), rateLimits: limits?.rateLimits, ownMessages: limits?.ownMessages });
    const { signature, authenticated, verified } = await checkTrySignature(engine, { name: args.name, payload, body, headers: args.headers, query: args.query });
    // As the service: the walk runs only the mappings the request is authenticated for (refused or unchecked: as if correctly signed).
    const authenticatedFor = authenticated === undefined ? {} : { authenticatedFor: (mapping: RoutedMapping) => Promise.resolve(authenticated.has(mapping.id)) };
    const explanation = await engine.explain({ name: args.name, payload, headers: args.headers, query: args.query, ...authenticatedFor });
    explanation.notes.unshift(...configAdvisories(config));
    const delivery = { name: explanation.name, payload, body, headers: args.headers };
    const replay = store === undefined ? undefined : await findReplay(store, delivery, engine.candidates(args.name, payload), verified);
    const shown = explanation.mapping !== undefined || signature.candidates !== undefined;
    io.stdout(
      args.json
        ? `${JSON.stringify({ ...explanationJson(explanation, engine.warnings), signature, replay: replayJson(replay) }, null, 2)}\n`
        : `${shown ? formatTrySignature(signature) : ''}${formatExplanation(explanation, engine.warnings)}${formatReplay(replay)}`,
    );
    // Passed over by every mapping is an answer (200 skipped), as docs/mappings.md says: 2 is for no mapping at all.
    if (explanation.mapping === undefined && explanation.outcome?.kind !== 'skip') return 2;
    const badSignature = signature.result !== undefined && signature.result !== 'valid' && signature.result !== 'not-given';
    return explanation.error === undefined && !badSignature ? 0 : 1;
  } catch (error) {
    if (error instanceof ConfigError || error instanceof PayloadError) {
      io.stderr(`${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await runner?.close();
    await store?.close();
  }
}

/**
 * The store's rate-limit buckets and the service's own messages, to say whether a delivery would
 * be admitted right now, and its stored first answers, to say whether it would be a replay (read
 * only: try counts nothing). Only opened when one of them may apply and the store exists.
 */
async function openLimitStore(config: ResolvedConfig, headers: Record<string, string>): Promise<{ store: Store; rateLimits: AdmissionLimits; ownMessages: OwnMessageLookup } | undefined> {
  // The sender presets check for the service's own messages (ownMessages), as a mapping may.
  const ownMessagesChecked = config.hooks.presets.length > 0 || config.hooks.mappings.some((mapping) => mapping.ownMessages !== undefined);
  if (!ownMessagesChecked && !storeMayAnswer(config.hooks, headers)) return undefined;
  try {
    const store = await openStore(config.storage, { logger: silentLogger(), idempotencyTtlMs: config.hooks.idempotencyTtlHours * 3_600_000, role: 'command' });
    return { store, rateLimits: { store: store.limits, refusals: createRateRefusals(), now: () => store.now() }, ownMessages: { store: store.ownMessages, now: () => store.now() } };
  } catch {
    return undefined; // no store yet (or unreachable): the verdict says "not checked"
  }
}

interface TryArgs {
  name: string;
  payload: string;
  headers: Record<string, string>;
  query: Record<string, string>;
  config: string | undefined;
  json: boolean;
}

/** A wrong command line throws UsageError (src/cli.ts prints it with the usage, exit 2). */
export function parseTryArgs(argv: string[]): TryArgs {
  const { values, positionals } = parseCommandLine({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      payload: { type: 'string' },
      header: { type: 'string', multiple: true },
      query: { type: 'string', multiple: true },
      config: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const [name, ...extra] = positionals;
  if (name === undefined || extra.length > 0) throw new UsageError('exactly one hook name is expected');
  if (values.payload === undefined) throw new UsageError('--payload FILE is required');
  return {
    name,
    payload: values.payload,
    headers: headerArgs(values.header ?? []),
    query: queryArgs(values.query ?? []),
    config: values.config,
    json: values.json,
  };
}

/** The file's bytes (a signature covers them exactly) and the JSON object they hold. */
async function readPayload(path: string): Promise<{ payload: Record<string, unknown>; body: Buffer }> {
  let body: Buffer;
  try {
    body = await readFile(path);
  } catch (error) {
    throw new PayloadError(`hookgate try: cannot read payload ${path}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new PayloadError(`hookgate try: payload ${path} is not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new PayloadError(`hookgate try: payload ${path} must be a JSON object`);
  return { payload: value as Record<string, unknown>, body };
}
