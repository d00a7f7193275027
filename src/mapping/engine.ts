import { ConfigError, HookError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Config } from '../config/schema.js';
import type { ActionBuilder } from '../actions/build.js';
import { PRESETS, type PresetDefinition } from '../../presets/index.js';
import { compileMapping, trimSlashes } from './compile.js';
import type { CompiledMapping } from './compiled.js';
import { createMatchIndex, sourceHolds } from './match.js';
import { runMapping } from './apply-mapping.js';
import { admit, type AdmissionVerdict } from '../admission/admit.js';
import type { PreparedRequest } from './apply-mapping.js';
import { collectMappingSources } from './mapping-records.js';
import { shadowingWarnings } from './shadowing.js';
import { createTemplateCompiler } from './template.js';
import type { TransformPort } from './transform-port.js';
import { SIGNATURE_HEADER_NAMES } from '../auth/signatures/index.js';
import { admitRateLimit, type AdmissionLimits, type PendingRateLimit } from '../admission/rate-limit.js';
import { isOwnMessage, type OwnMessageLookup } from '../admission/own-messages.js';
import { explainRequest, type Explanation } from './explain.js';
import { identify, limitContext, prepare, requestFor, routedOf, skipped, tellingSkip } from './prepared-request.js';
import type { HookRequest, MappingOutcome, RoutedMapping } from './hook-request.js';
import { hasRunLimits, type MappingRunLimitsView } from '../admission/limit-views.js';

// Declared below the engine so explain.ts and prepared-request.ts use them without importing the engine.
export type { HookRequest, MappingOutcome, RoutedMapping } from './hook-request.js';
export type { Explanation };

export interface MappingEngine {
  /** Throws HookError (MAPPING_INVALID, MODEL_NOT_ALLOWED, INVALID_BODY, TRANSFORM_FAILED, TRANSFORM_UNAVAILABLE). */
  resolve(request: HookRequest): Promise<MappingOutcome>;
  /** Every mapping that matches this name and payload, in order: those a request may be authenticated for. */
  candidates(name: string, payload: Record<string, unknown>): RoutedMapping[];
  /** Whether a mapping that may serve this name verifies signatures: then the body is read before authentication. */
  mayRequireSignature(name: string): boolean;
  /** The same decision with its reasons, for `hookgate try`. No side effects; a HookError is reported, not thrown. */
  explain(request: HookRequest): Promise<Explanation>;
  readonly mappingCount: number;
  /**
   * Whether a mapping exists for this hook name (by `match.path`, or one without a path): after a
   * no-match, true means only `match.source` kept it from matching, false that the name is unknown.
   */
  serves(name: string): boolean;
  /** Load-time warnings (also logged once at creation), e.g. mappings without the envelope. */
  readonly warnings: readonly string[];
  /**
   * Every header that carries a signature: each scheme's own and each mapping's configured one
   * (`hmac`'s header). Never shown to any mapping's templates or transforms, nor in the console.
   */
  readonly signatureHeaders: ReadonlySet<string>;
  /** Each mapping's throttle, concurrency and budget by id (mappings with none left out), as compiled: what the runtime's gates apply. */
  readonly runLimits: ReadonlyMap<string, MappingRunLimitsView>;
  /** Whether a mapping debounces: only then does the debounce firer look at the store on its own. */
  readonly debounces: boolean;
}

export interface MappingEngineOptions {
  hooks: Config['hooks'];
  builder: ActionBuilder;
  /** Undefined when no mapping uses a transform. */
  transforms?: TransformPort | undefined;
  logger: Logger;
  now?: () => Date;
  /** The preset registry; tests pass their own. Default: presets/index.ts. */
  presets?: readonly PresetDefinition[];
  /** The store's rate-limit buckets: without it (`hookgate check`) a mapping's rateLimit is not applied. */
  rateLimits?: AdmissionLimits | undefined;
  /** What the service posted: without it a mapping's ownMessages is not checked. */
  ownMessages?: OwnMessageLookup | undefined;
}

/** Compiles every template and loads every transform; throws ConfigError listing every problem with its path. */
export async function createMappingEngine(options: MappingEngineOptions): Promise<MappingEngine> {
  const { sources, issues } = collectMappingSources(options.hooks, options.presets ?? PRESETS);
  const compileDeps = { templates: createTemplateCompiler(), builder: options.builder, transforms: options.transforms, allowedAgentIds: options.hooks.allowedAgentIds };
  const results = await Promise.all(sources.map((source) => compileMapping(source, compileDeps)));
  // A preset's mappings share its entry's options: a problem or warning about one of them is said once.
  issues.push(...unique(results.flatMap((result) => result.issues), (issue) => `${issue.path}\n${issue.message}`));
  if (issues.length > 0) throw new ConfigError(issues);
  const mappings = results.flatMap((result) => (result.mapping === undefined ? [] : [result.mapping]));
  const warnings = Object.freeze(unique([...results.flatMap((result) => result.warnings), ...shadowingWarnings(sources)], (warning) => warning));
  for (const warning of warnings) options.logger.warn({ event: 'mapping.warning' }, warning);
  const index = createMatchIndex(mappings);
  const signatureHeaders: ReadonlySet<string> = new Set([...SIGNATURE_HEADER_NAMES, ...mappings.flatMap((mapping) => mapping.signature?.secretHeaders ?? [])]);
  const now = options.now ?? (() => new Date());
  const runDeps = { builder: options.builder, transforms: options.transforms, logger: options.logger, warnedModules: new Set<string>() };

  return {
    mappingCount: mappings.length,
    warnings,
    signatureHeaders,
    runLimits: new Map(mappings.flatMap((mapping) => (hasRunLimits(mapping.runLimits) ? [[mapping.id, mapping.runLimits] as const] : []))),
    debounces: mappings.some((mapping) => mapping.admission?.debounce !== undefined),
    async resolve(request) {
      const { name, source } = identify(request);
      const candidates = index.candidates(name).filter((mapping) => sourceHolds(mapping, source));
      if (candidates.length === 0) return { kind: 'no-match' };
      const served = await authenticatedCandidates(request, candidates);
      let passedOver: ReturnType<typeof skipped> | undefined;
      const prepared = prepare(request, name, now(), signatureHeaders, options.hooks.path);
      for (const mapping of served) {
        // The request as this mapping may see it (the secret-looking headers and parameters it opted into).
        const view = requestFor(prepared, mapping);
        const verdict = admit(mapping.admission, view);
        // Once its events match, whatever its filter says: the service's own message is skipped as such.
        if (await ownMessage(mapping, verdict, view, options.ownMessages)) return { kind: 'skip', mappingId: mapping.id, reason: 'self', event: verdict.event };
        if (!verdict.pass) {
          passedOver = tellingSkip(passedOver, skipped(mapping.id, verdict));
          continue;
        }
        // After events and filter (a delivery passed over is not counted); a bucket known full refuses before templates and transforms.
        let rateLimit: PendingRateLimit | undefined;
        if (mapping.rateLimit !== undefined && options.rateLimits !== undefined) {
          const admitted = admitRateLimit(mapping.id, mapping.rateLimit, limitContext(view), options.rateLimits);
          if ('kind' in admitted) return admitted;
          rateLimit = admitted;
        }
        const { outcome } = await runMapping(mapping, view, runDeps);
        return outcome.kind === 'actions' && rateLimit !== undefined ? { ...outcome, rateLimit } : outcome;
      }
      return passedOver ?? { kind: 'no-match' };
    },
    candidates(name, payload) {
      const identified = identify({ name, payload, headers: {}, query: {} });
      return index.candidates(identified.name).filter((mapping) => sourceHolds(mapping, identified.source)).map(routedOf);
    },
    mayRequireSignature(name) {
      return index.candidates(trimSlashes(name)).some((mapping) => mapping.signature !== undefined);
    },
    serves(name) {
      return index.serves(trimSlashes(name));
    },
    async explain(request) {
      return explainRequest(mappings, request, now(), { ...runDeps, rateLimits: options.rateLimits, ownMessages: options.ownMessages }, { hooksPath: options.hooks.path, signatureHeaders });
    },
  };
}

async function ownMessage(mapping: CompiledMapping, verdict: AdmissionVerdict, view: PreparedRequest, lookup: OwnMessageLookup | undefined): Promise<boolean> {
  if (mapping.ownMessages === undefined || lookup === undefined || (!verdict.pass && verdict.reason === 'event')) return false;
  return isOwnMessage(mapping.ownMessages, limitContext(view), lookup);
}

function unique<T>(items: readonly T[], keyOf: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = keyOf(item);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The candidates the request may run, in order. Defence in depth: the HTTP layer authenticates
 * before it resolves, and a mapping the request is not authenticated for never runs.
 */
async function authenticatedCandidates(request: HookRequest, candidates: readonly CompiledMapping[]): Promise<CompiledMapping[]> {
  const ask = request.authenticatedFor;
  const first = candidates[0] as CompiledMapping;
  if (ask === undefined && first.signature !== undefined && request.signature === undefined && !first.signature.allowToken) {
    throw new HookError('SIGNATURE_INVALID', `missing signature (scheme ${first.signature.scheme.name})`);
  }
  const served: CompiledMapping[] = [];
  for (const mapping of candidates) {
    const servedByDefault = mapping === first || mapping.signature === undefined || mapping.signature.allowToken;
    if (ask === undefined ? servedByDefault : await ask(routedOf(mapping))) served.push(mapping);
  }
  if (served.length === 0) throw new HookError('UNAUTHORIZED', 'the request is not authenticated for any mapping of this hook');
  return served;
}

