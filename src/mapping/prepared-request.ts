import { HookError } from '../errors.js';
import type { AdmissionVerdict } from '../admission/admit.js';
import type { CompiledMapping } from './compiled.js';
import { buildTemplateContext, sanitizeHeaders, sanitizeQuery, toSafeRecord, type ContextParts, type SafeRecord } from './context.js';
import { trimSlashes } from './compile.js';
import type { PreparedRequest } from './apply-mapping.js';
import type { HookRequest, MappingOutcome, RoutedMapping } from './hook-request.js';

/** The request as every mapping sees it, and the small steps resolve() and explain() share. */

export function routedOf(mapping: CompiledMapping): RoutedMapping {
  return { id: mapping.id, signature: mapping.signature };
}

export function identify(request: HookRequest): { name: string; source: string | undefined } {
  if (typeof request.payload !== 'object' || request.payload === null || Array.isArray(request.payload)) {
    throw new HookError('INVALID_BODY', 'body must be a JSON object');
  }
  const source = Object.hasOwn(request.payload, 'source') ? request.payload['source'] : undefined;
  return { name: trimSlashes(request.name), source: typeof source === 'string' ? source : undefined };
}

/** What a limit's key template renders against: the delivery as the mapping's templates see it. */
export function limitContext(prepared: PreparedRequest): SafeRecord {
  return prepared.templateContext();
}

export function prepare(request: HookRequest, name: string, now: Date, signatureHeaders: ReadonlySet<string>, hooksPath: string): PreparedRequest {
  const { visible: headers, withheld } = sanitizeHeaders(request.headers, signatureHeaders);
  const query = sanitizeQuery(request.query);
  const search = new URLSearchParams(query).toString();
  const safePayload = toSafeRecord(request.payload);
  const safeHeaders = toSafeRecord(headers);
  const safeQuery = toSafeRecord(query);
  const at = now.toISOString();
  return {
    name,
    url: `${hooksPath}/${name}${search === '' ? '' : `?${search}`}`,
    payload: request.payload,
    safePayload,
    headers,
    withheld,
    query,
    safeHeaders,
    safeQuery,
    now: at,
    signature: request.signature,
    templateContext: lazyContext(safePayload, { headers: safeHeaders, query: safeQuery, path: name, now: at }),
  };
}

/**
 * The request as one mapping sees it: the shared view, plus the withheld headers the mapping lists.
 * Unchanged (the same object, its context shared) when it lists none the request carries.
 */
export function requestFor(prepared: PreparedRequest, allowed: ReadonlySet<string> | undefined): PreparedRequest {
  if (allowed === undefined) return prepared;
  const shown = Object.entries(prepared.withheld).filter(([name]) => allowed.has(name));
  if (shown.length === 0) return prepared;
  const headers = { ...prepared.headers, ...Object.fromEntries(shown) };
  const safeHeaders = toSafeRecord(headers);
  const templateContext = lazyContext(prepared.safePayload, { headers: safeHeaders, query: prepared.safeQuery, path: prepared.name, now: prepared.now });
  return { ...prepared, headers, safeHeaders, templateContext };
}

/** The request's template context, built on first use and then shared. */
function lazyContext(safePayload: SafeRecord, parts: ContextParts): () => SafeRecord {
  let context: SafeRecord | undefined;
  return () => (context ??= buildTemplateContext(safePayload, parts));
}

type PassedOver = Extract<MappingOutcome, { reason: 'event' | 'filter' }>;

export function skipped(mappingId: string, verdict: Exclude<AdmissionVerdict, { pass: true }>): PassedOver {
  return { kind: 'skip', mappingId, reason: verdict.reason, event: verdict.event };
}

/**
 * The answer when every mapping passed a delivery over: the first mapping whose `events` took it
 * and whose filter refused it, else the first mapping's reason. A preset's bot filter on its
 * comment mapping says why a bot's comment was skipped; the mappings before it, which never
 * listed the event, say nothing about it.
 */
export function tellingSkip(sofar: PassedOver | undefined, next: PassedOver): PassedOver {
  return sofar === undefined || (sofar.reason === 'event' && next.reason === 'filter') ? next : sofar;
}
