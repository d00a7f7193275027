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
  const { visible: query, withheld: withheldQuery } = sanitizeQuery(request.query);
  const safePayload = toSafeRecord(request.payload);
  const safeHeaders = toSafeRecord(headers);
  const safeQuery = toSafeRecord(query);
  const at = now.toISOString();
  return {
    name,
    url: urlOf(`${hooksPath}/${name}`, query),
    payload: request.payload,
    safePayload,
    headers,
    withheld,
    query,
    withheldQuery,
    safeHeaders,
    safeQuery,
    now: at,
    signature: request.signature,
    templateContext: lazyContext(safePayload, { headers: safeHeaders, query: safeQuery, path: name, now: at }),
  };
}

/** What a mapping opted into seeing of what is withheld (`allowSecretHeaders`, `allowSecretQuery`). */
export interface SecretAccess {
  readonly allowSecretHeaders?: ReadonlySet<string> | undefined;
  readonly allowSecretQuery?: ReadonlySet<string> | undefined;
}

/**
 * The request as one mapping sees it: the shared view, plus the withheld headers and query
 * parameters the mapping lists. Unchanged (the same object, its context shared) when it lists none
 * the request carries.
 */
export function requestFor(prepared: PreparedRequest, access: SecretAccess): PreparedRequest {
  const shownHeaders = shownOf(prepared.withheld, access.allowSecretHeaders);
  const shownQuery = shownOf(prepared.withheldQuery, access.allowSecretQuery);
  if (shownHeaders === undefined && shownQuery === undefined) return prepared;
  const view = { ...prepared };
  if (shownHeaders !== undefined) {
    view.headers = { ...prepared.headers, ...shownHeaders };
    view.safeHeaders = toSafeRecord(view.headers);
  }
  if (shownQuery !== undefined) {
    view.query = { ...prepared.query, ...shownQuery };
    view.safeQuery = toSafeRecord(view.query);
    view.url = urlOf(prepared.url.split('?')[0] as string, view.query);
  }
  view.templateContext = lazyContext(prepared.safePayload, { headers: view.safeHeaders, query: view.safeQuery, path: prepared.name, now: prepared.now });
  return view;
}

/** The withheld entries a mapping lists, or undefined when the request carries none of them. */
function shownOf(withheld: Readonly<Record<string, string>>, allowed: ReadonlySet<string> | undefined): Record<string, string> | undefined {
  if (allowed === undefined) return undefined;
  const shown = Object.entries(withheld).filter(([name]) => allowed.has(name));
  return shown.length === 0 ? undefined : Object.fromEntries(shown);
}

/** The path and query a transform sees as `input.url`. */
function urlOf(path: string, query: Record<string, string>): string {
  const search = new URLSearchParams(query).toString();
  return search === '' ? path : `${path}?${search}`;
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
