import { ConfigError, HookError, type ErrorCode } from '../errors.js';
import type { Logger } from '../log.js';
import type { Config } from '../config/schema.js';
import type { ActionBuilder } from '../actions/build.js';
import type { AdmittedAction } from '../actions/types.js';
import { sealAction } from '../actions/seal.js';
import { PRESETS, type PresetDefinition } from '../../presets/index.js';
import { compileMapping, RESERVED_NAMES, trimSlashes } from './compile.js';
import type { CompiledMapping } from './compiled.js';
import { sanitizeHeaders, sanitizeQuery, toSafeRecord } from './context.js';
import { createMatchIndex, mismatchReason, sourceHolds } from './match.js';
import { runMapping, type DebouncePlan, type ItemTrace, type PreparedRequest } from './apply-mapping.js';
import { admit, type AdmissionVerdict } from '../admission/admit.js';
import type { ConditionTrace } from '../admission/filter-eval.js';
import { collectMappingSources } from './mapping-records.js';
import { createTemplateCompiler } from './template.js';
import type { TransformPort, VerifiedSignature } from './transform-port.js';
import { SIGNATURE_HEADER_NAMES, type CompiledSignature } from '../auth/signatures/index.js';
import { admitRateLimit, type AdmissionLimits, type PendingRateLimit, type RateLimitSkip } from '../admission/rate-limit.js';
import { explainLimits, type LimitExplanation } from '../admission/explain-limits.js';
import { buildTemplateContext, type SafeRecord } from './context.js';

export interface HookRequest {
  /** Sub-path after `{hooks.path}/`, slashes trimmed. */
  name: string;
  payload: Record<string, unknown>;
  /** Lower-cased names. */
  headers: Record<string, string>;
  query: Record<string, string>;
  /** Set by the HTTP layer once the routed mapping's signature verified; transforms see it as `input.signature`. */
  signature?: VerifiedSignature;
  /**
   * Whether the request is authenticated for a candidate mapping (its signature verifies for it,
   * or it takes the token the request carried), asked of every candidate, the first included:
   * resolution starts at the first one it is authenticated for and never runs another. Without it
   * the first candidate runs (a signed one only with `signature` set) and later ones only when
   * they take the token.
   */
  authenticatedFor?: (mapping: RoutedMapping) => Promise<boolean>;
}

/** The mapping a request would run, as the HTTP layer needs it to authenticate the request first. */
export interface RoutedMapping {
  id: string;
  signature: CompiledSignature | undefined;
}

export type MappingOutcome =
  /** `rateLimit`: the mapping's, to be counted in the acceptance's transaction (the store decides). */
  | { kind: 'actions'; mappingId: string; actions: AdmittedAction[]; debounce?: DebouncePlan; rateLimit?: PendingRateLimit }
  | { kind: 'skip'; mappingId: string; reason: 'transform-null' | 'empty-fan-out' }
  /** Every matching mapping passed the delivery over: the first one's reason. */
  | { kind: 'skip'; mappingId: string; reason: 'event' | 'filter'; event: string | undefined }
  | RateLimitSkip
  | { kind: 'no-match' };

/** Everything `hookgate try` shows: what was considered, what won, what it rendered and built. */
export interface Explanation {
  name: string;
  /** The payload's `source` string, which `match.source` compares against. */
  source: string | undefined;
  considered: Array<{ mappingId: string; label: string; matched: boolean; reason: string | undefined }>;
  mapping: { id: string; label: string } | undefined;
  /** Undefined when the request failed (see `error`). */
  outcome: MappingOutcome | undefined;
  /** `detail`: why, when the caller's message hides it (e.g. the override field a transform got wrong). */
  error: { code: ErrorCode; status: number; message: string; detail?: string } | undefined;
  /** Per matching mapping with events/filter: the event type read, each condition's value and result. */
  admission: Array<{ mappingId: string; event: string | undefined; passed: boolean; reason: 'event' | 'filter' | undefined; conditions: ConditionTrace[] }>;
  /** One per fan-out item that finished (one without forEach). */
  items: ItemTrace[];
  notes: string[];
  /** The winner's limits: each key for this delivery and what it would do right now. */
  limits: LimitExplanation[];
}

export interface MappingEngine {
  /** Throws HookError (MAPPING_INVALID, MODEL_NOT_ALLOWED, INVALID_BODY, TRANSFORM_FAILED, TRANSFORM_UNAVAILABLE). */
  resolve(request: HookRequest): Promise<MappingOutcome>;
  /** The mapping `resolve` would run for this name and payload, without running it (undefined: none). */
  route(name: string, payload: Record<string, unknown>): RoutedMapping | undefined;
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
}

/** Compiles every template and loads every transform; throws ConfigError listing every problem with its path. */
export async function createMappingEngine(options: MappingEngineOptions): Promise<MappingEngine> {
  const { sources, issues } = collectMappingSources(options.hooks, options.presets ?? PRESETS);
  const compileDeps = { templates: createTemplateCompiler(), builder: options.builder, transforms: options.transforms, allowedAgentIds: options.hooks.allowedAgentIds };
  const results = await Promise.all(sources.map((source) => compileMapping(source, compileDeps)));
  issues.push(...results.flatMap((result) => result.issues));
  if (issues.length > 0) throw new ConfigError(issues);
  const mappings = results.flatMap((result) => (result.mapping === undefined ? [] : [result.mapping]));
  const warnings = Object.freeze(results.flatMap((result) => result.warnings));
  for (const warning of warnings) options.logger.warn({ event: 'mapping.warning' }, warning);
  const index = createMatchIndex(mappings);
  const signatureHeaders: ReadonlySet<string> = new Set([...SIGNATURE_HEADER_NAMES, ...mappings.flatMap((mapping) => mapping.signature?.secretHeaders ?? [])]);
  const now = options.now ?? (() => new Date());
  const runDeps = { builder: options.builder, transforms: options.transforms, logger: options.logger, warnedModules: new Set<string>() };

  return {
    mappingCount: mappings.length,
    warnings,
    signatureHeaders,
    async resolve(request) {
      const { name, source } = identify(request);
      const candidates = index.candidates(name).filter((mapping) => sourceHolds(mapping, source));
      if (candidates.length === 0) return { kind: 'no-match' };
      const served = await authenticatedCandidates(request, candidates);
      let passedOver: MappingOutcome | undefined;
      const prepared = prepare(request, name, now(), signatureHeaders, options.hooks.path);
      for (const mapping of served) {
        const verdict = admit(mapping.admission, prepared);
        if (!verdict.pass) {
          passedOver ??= skipped(mapping.id, verdict);
          continue;
        }
        // After events and filter (a delivery passed over is not counted); a bucket known full refuses before templates and transforms.
        let rateLimit: PendingRateLimit | undefined;
        if (mapping.rateLimit !== undefined && options.rateLimits !== undefined) {
          const admitted = admitRateLimit(mapping.id, mapping.rateLimit, limitContext(prepared), options.rateLimits);
          if ('kind' in admitted) return admitted;
          rateLimit = admitted;
        }
        const { outcome } = await runMapping(mapping, prepared, runDeps);
        return outcome.kind === 'actions' && rateLimit !== undefined ? { ...outcome, rateLimit } : outcome;
      }
      return passedOver ?? { kind: 'no-match' };
    },
    route(name, payload) {
      const identified = identify({ name, payload, headers: {}, query: {} });
      const mapping = index.find(identified.name, identified.source);
      return mapping === undefined ? undefined : { id: mapping.id, signature: mapping.signature };
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
      return explainRequest(mappings, request, now(), { ...runDeps, rateLimits: options.rateLimits }, { hooksPath: options.hooks.path, signatureHeaders });
    },
  };
}

function skipped(mappingId: string, verdict: Exclude<AdmissionVerdict, { pass: true }>): MappingOutcome {
  return { kind: 'skip', mappingId, reason: verdict.reason, event: verdict.event };
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

/** Why a matching mapping does not run, when the caller said which mappings the request is authenticated for. */
async function unauthenticatedReason(mapping: CompiledMapping, request: HookRequest): Promise<string | undefined> {
  if (request.authenticatedFor === undefined || (await request.authenticatedFor(routedOf(mapping)))) return undefined;
  return `not authenticated for this mapping (${mapping.signature === undefined ? 'it takes the hook token; the request came signed' : 'signature did not verify'})`;
}

function routedOf(mapping: CompiledMapping): RoutedMapping {
  return { id: mapping.id, signature: mapping.signature };
}

function identify(request: HookRequest): { name: string; source: string | undefined } {
  if (typeof request.payload !== 'object' || request.payload === null || Array.isArray(request.payload)) {
    throw new HookError('INVALID_BODY', 'body must be a JSON object');
  }
  const source = Object.hasOwn(request.payload, 'source') ? request.payload['source'] : undefined;
  return { name: trimSlashes(request.name), source: typeof source === 'string' ? source : undefined };
}

/** What a limit's key template renders against: the delivery as the mapping's templates see it. */
function limitContext(prepared: PreparedRequest): SafeRecord {
  return buildTemplateContext(prepared.safePayload, { headers: prepared.safeHeaders, query: prepared.safeQuery, path: prepared.name, now: prepared.now });
}

function prepare(request: HookRequest, name: string, now: Date, signatureHeaders: ReadonlySet<string>, hooksPath: string): PreparedRequest {
  const headers = sanitizeHeaders(request.headers, signatureHeaders);
  const query = sanitizeQuery(request.query);
  const search = new URLSearchParams(query).toString();
  return {
    name,
    url: `${hooksPath}/${name}${search === '' ? '' : `?${search}`}`,
    payload: request.payload,
    safePayload: toSafeRecord(request.payload),
    headers,
    query,
    safeHeaders: toSafeRecord(headers),
    safeQuery: toSafeRecord(query),
    now: now.toISOString(),
    signature: request.signature,
  };
}

/**
 * The actions as the store will write them (sealed: enveloped), in the outcome and in the item
 * traces alike, with a note per action whose content matched a suspicious pattern.
 */
function sealForDisplay(outcome: MappingOutcome, items: ItemTrace[], notes: string[]): MappingOutcome {
  if (outcome.kind !== 'actions') return outcome;
  const sealed = new Map<AdmittedAction, AdmittedAction>();
  for (const [index, admitted] of outcome.actions.entries()) {
    const { action, suspicious, invisible } = sealAction(admitted);
    sealed.set(admitted, action);
    if (suspicious.length > 0) notes.push(`action ${index + 1}: content matches suspicious patterns (${suspicious.join(', ')}); logged as hook.suspicious_content`);
    if (invisible > 0) notes.push(`action ${index + 1}: ${invisible} invisible character(s) removed from the content`);
  }
  for (const item of items) if (item?.action !== undefined) item.action = sealed.get(item.action) ?? item.action;
  return { ...outcome, actions: outcome.actions.map((action) => sealed.get(action) ?? action) };
}

/** A linear walk in global order (diagnostics only), stopping at the winner the index would pick. */
async function explainRequest(
  mappings: readonly CompiledMapping[],
  request: HookRequest,
  now: Date,
  deps: Parameters<typeof runMapping>[2] & { rateLimits: AdmissionLimits | undefined },
  where: { hooksPath: string; signatureHeaders: ReadonlySet<string> },
): Promise<Explanation> {
  const { name, source } = identify(request);
  const explanation: Explanation = { name, source, considered: [], mapping: undefined, outcome: undefined, error: undefined, admission: [], items: [], notes: [], limits: [] };
  if (name === '' || RESERVED_NAMES.has(name)) {
    explanation.notes.push(name === '' ? 'an empty hook name is never mapped' : `"${name}" is a built-in endpoint, never mapped`);
    explanation.outcome = { kind: 'no-match' };
    return explanation;
  }
  let winner: CompiledMapping | undefined;
  for (const mapping of mappings) {
    const reason = mismatchReason(mapping, name, source) ?? (await unauthenticatedReason(mapping, request));
    explanation.considered.push({ mappingId: mapping.id, label: mapping.label, matched: reason === undefined, reason });
    if (reason !== undefined) continue;
    if (mapping.signature !== undefined && request.authenticatedFor === undefined && explanation.considered.some((entry) => entry.matched && entry.mappingId !== mapping.id)) {
      explanation.notes.push(`mapping "${mapping.id}" is tried only if the request's signature verifies for it too`);
    }
    const conditions: ConditionTrace[] = [];
    const verdict = admit(mapping.admission, prepare(request, name, now, where.signatureHeaders, where.hooksPath), conditions);
    if (mapping.admission !== undefined) {
      explanation.admission.push({ mappingId: mapping.id, event: verdict.event, passed: verdict.pass, reason: verdict.pass ? undefined : verdict.reason, conditions });
    }
    if (verdict.pass) {
      winner = mapping;
      break;
    }
    explanation.outcome ??= skipped(mapping.id, verdict);
  }
  if (winner === undefined) {
    explanation.outcome ??= { kind: 'no-match' };
    return explanation;
  }
  explanation.outcome = undefined;
  explanation.mapping = { id: winner.id, label: winner.label };
  try {
    const prepared = prepare(request, name, now, where.signatureHeaders, where.hooksPath);
    explanation.limits = await explainLimits(winner, winner.runLimits ?? {}, limitContext(prepared), deps.rateLimits);
    const { outcome, notes } = await runMapping(winner, prepared, deps, explanation.items);
    explanation.outcome = sealForDisplay(outcome, explanation.items, notes);
    explanation.notes.push(...notes);
  } catch (error) {
    if (!(error instanceof HookError)) throw error;
    explanation.error = { code: error.code, status: error.status, message: error.message };
    if (error.cause instanceof Error) explanation.error.detail = error.cause.message;
  }
  explanation.items = explanation.items.filter((item) => item !== undefined);
  return explanation;
}
