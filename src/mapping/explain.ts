import { HookError, type ErrorCode } from '../errors.js';
import type { AdmittedAction } from '../actions/types.js';
import { sealAction } from '../actions/seal.js';
import { admit, type AdmissionVerdict } from '../admission/admit.js';
import type { ConditionTrace } from '../admission/filter-eval.js';
import { explainLimits, type LimitExplanation } from '../admission/explain-limits.js';
import type { AdmissionLimits } from '../admission/rate-limit.js';
import { isOwnMessage, type OwnMessageLookup } from '../admission/own-messages.js';
import { RESERVED_NAMES } from './compile.js';
import type { CompiledMapping } from './compiled.js';
import { mismatchReason } from './match.js';
import { runMapping, type ItemTrace, type PreparedRequest } from './apply-mapping.js';
import type { HookRequest, MappingOutcome } from './hook-request.js';
import { identify, limitContext, prepare, requestFor, routedOf, skipped, tellingSkip } from './prepared-request.js';

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

/** Why a matching mapping does not run, when the caller said which mappings the request is authenticated for. */
async function unauthenticatedReason(mapping: CompiledMapping, request: HookRequest): Promise<string | undefined> {
  if (request.authenticatedFor === undefined || (await request.authenticatedFor(routedOf(mapping)))) return undefined;
  return `not authenticated for this mapping (${mapping.signature === undefined ? 'it takes the hook token; the request came signed' : 'signature did not verify'})`;
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
export async function explainRequest(
  mappings: readonly CompiledMapping[],
  request: HookRequest,
  now: Date,
  deps: Parameters<typeof runMapping>[2] & { rateLimits: AdmissionLimits | undefined; ownMessages?: OwnMessageLookup | undefined },
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
  let passedOver: ReturnType<typeof skipped> | undefined;
  for (const mapping of mappings) {
    const reason = mismatchReason(mapping, name, source) ?? (await unauthenticatedReason(mapping, request));
    explanation.considered.push({ mappingId: mapping.id, label: mapping.label, matched: reason === undefined, reason });
    if (reason !== undefined) continue;
    if (mapping.signature !== undefined && request.authenticatedFor === undefined && explanation.considered.some((entry) => entry.matched && entry.mappingId !== mapping.id)) {
      explanation.notes.push(`mapping "${mapping.id}" is tried only if the request's signature verifies for it too`);
    }
    const conditions: ConditionTrace[] = [];
    const verdict = admit(mapping.admission, requestFor(prepare(request, name, now, where.signatureHeaders, where.hooksPath), mapping), conditions);
    if (mapping.admission !== undefined) {
      explanation.admission.push({ mappingId: mapping.id, event: verdict.event, passed: verdict.pass, reason: verdict.pass ? undefined : verdict.reason, conditions });
    }
    if (await ownMessageExplained(mapping, verdict, prepare(request, name, now, where.signatureHeaders, where.hooksPath), deps.ownMessages, explanation)) return explanation;
    if (verdict.pass) {
      winner = mapping;
      break;
    }
    passedOver = tellingSkip(passedOver, skipped(mapping.id, verdict));
  }
  if (winner === undefined) {
    explanation.outcome = passedOver ?? { kind: 'no-match' };
    return explanation;
  }
  explanation.outcome = undefined;
  explanation.mapping = { id: winner.id, label: winner.label };
  try {
    const prepared = requestFor(prepare(request, name, now, where.signatureHeaders, where.hooksPath), winner);
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

/** As resolve(): once its events match, a message the service posted ends the walk as "self"; without a store it is not checked, and `try` says so. */
async function ownMessageExplained(mapping: CompiledMapping, verdict: AdmissionVerdict, prepared: PreparedRequest, lookup: OwnMessageLookup | undefined, explanation: Explanation): Promise<boolean> {
  if (mapping.ownMessages === undefined || (!verdict.pass && verdict.reason === 'event')) return false;
  if (lookup === undefined) {
    explanation.notes.push(`mapping "${mapping.id}": whether this is a message the service posted on ${mapping.ownMessages.channel} was not checked (no store to read)`);
    return false;
  }
  if (!(await isOwnMessage(mapping.ownMessages, limitContext(requestFor(prepared, mapping)), lookup))) return false;
  explanation.mapping = { id: mapping.id, label: mapping.label };
  explanation.outcome = { kind: 'skip', mappingId: mapping.id, reason: 'self', event: verdict.event };
  explanation.notes.push(`a message this service posted on ${mapping.ownMessages.channel} (mapping "${mapping.id}", ownMessages): not acted on`);
  return true;
}
