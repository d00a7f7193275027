import { HookError } from '../errors.js';
import type { Logger } from '../log.js';
import type { ActionBuilder } from '../actions/build.js';
import type { ReceivedFacts } from '../actions/handoff.js';
import type { AdmittedAction } from '../actions/types.js';
import type { CompiledMapping } from './compiled.js';
import { buildTemplateContext, type SafeRecord } from './context.js';
import { splitItems, type FanOutItem } from './fan-out.js';
import { checkOverride } from './override.js';
import { checkRequired } from './required-fields.js';
import { FIELD_POINTERS } from './compiled.js';
import { buildAction, renderFields, type RenderedFields } from './render.js';
import type { TransformOverride, TransformPort, VerifiedSignature } from './transform-port.js';
import { withRunLimitKeys } from '../admission/run-limit-keys.js';

/** A request once matched: names trimmed, credentials removed from headers and query, secret-looking headers and parameters set apart. */
export interface PreparedRequest {
  name: string;
  /** The request's path and query without credentials, as transforms see it (`input.url`). */
  url: string;
  payload: Record<string, unknown>;
  safePayload: SafeRecord;
  headers: Record<string, string>;
  /** Secret-looking headers kept out of `headers`: a mapping's view adds those it lists in allowSecretHeaders (./secret-header-access.ts). */
  withheld: Readonly<Record<string, string>>;
  query: Record<string, string>;
  /** Secret-looking query parameters kept out of `query` (and `url`): a mapping's view adds those it lists in allowSecretQuery. */
  withheldQuery: Readonly<Record<string, string>>;
  /** `headers` and `query` as templates see them, made once for every item of the request. */
  safeHeaders: SafeRecord;
  safeQuery: SafeRecord;
  now: string;
  signature: VerifiedSignature | undefined;
  /** The whole request's template context, built on first use and then shared (a limit's key, the mapping's templates). */
  templateContext: () => SafeRecord;
}

/** What happened to one item (the whole payload without forEach): shown by `hookgate try`. */
export interface ItemTrace {
  index: number | undefined;
  transform: 'override' | 'skip' | 'unchanged' | undefined;
  override: TransformOverride | undefined;
  rendered: RenderedFields;
  action: AdmittedAction | undefined;
  /** The rendered `debounce.key` (mappings with debounce). */
  debounceKey?: string;
}

/** How a debounced mapping's actions merge: its settings and each action's rendered key ('' acts at once). */
export interface DebouncePlan {
  windowMs: number;
  maxWaitMs: number;
  keep: 'last' | 'all';
  maxChars: number;
  maxDeliveries: number;
  maxBytes: number;
  keys: string[];
}

export type RunOutcome =
  | { kind: 'actions'; mappingId: string; actions: AdmittedAction[]; debounce?: DebouncePlan }
  | { kind: 'skip'; mappingId: string; reason: 'transform-null' | 'empty-fan-out' };

export interface RunDeps {
  builder: ActionBuilder;
  transforms: TransformPort | undefined;
  logger: Logger;
  /** Transform modules already warned about for returning keys Hookgate does not use (one warning per module). */
  warnedModules?: Set<string>;
}

/**
 * Runs a matched mapping: fan-out, then per item transform → render → merge → build. Items run
 * concurrently (transforms queue in the sandbox pool); any failing item fails the request, so
 * the caller commits all actions or none. `traces` receives one entry per finished item.
 */
export async function runMapping(mapping: CompiledMapping, request: PreparedRequest, deps: RunDeps, traces: ItemTrace[] = []): Promise<{ outcome: RunOutcome; notes: string[] }> {
  const notes: string[] = [];
  const fanOut = splitItems(mapping.id, mapping.forEach, request.payload, request.safePayload);
  if (fanOut.dropped > 0) {
    deps.logger.warn({ event: 'mapping.fanout.truncated', hook: request.name, mappingId: mapping.id, dropped: fanOut.dropped }, 'fan-out items dropped');
    notes.push(`${fanOut.dropped} item(s) of "${mapping.forEach}" beyond ${fanOut.items.length} were dropped`);
  }
  if (fanOut.items.length === 0) return { outcome: { kind: 'skip', mappingId: mapping.id, reason: 'empty-fan-out' }, notes };
  const results = await Promise.all(
    fanOut.items.map(async (item, slot) => {
      const trace = await runItem(mapping, request, item, deps, notes);
      traces[slot] = trace;
      return trace;
    }),
  );
  const produced = results.filter((trace) => trace.action !== undefined);
  const actions = produced.map((trace) => trace.action as AdmittedAction);
  if (actions.length === 0) return { outcome: { kind: 'skip', mappingId: mapping.id, reason: 'transform-null' }, notes };
  if (mapping.admission?.debounce === undefined) return { outcome: { kind: 'actions', mappingId: mapping.id, actions }, notes };
  const { key: _template, ...settings } = mapping.admission.debounce;
  const debounce: DebouncePlan = { ...settings, keys: produced.map((trace) => trace.debounceKey ?? '') };
  return { outcome: { kind: 'actions', mappingId: mapping.id, actions, debounce }, notes };
}

async function runItem(mapping: CompiledMapping, request: PreparedRequest, item: FanOutItem, deps: RunDeps, notes: string[]): Promise<ItemTrace> {
  const trace: ItemTrace = { index: item.index, transform: undefined, override: undefined, rendered: {}, action: undefined };
  if (mapping.required !== undefined) checkRequired(mapping.required, item.payload, mapping.id);
  let override: TransformOverride = {};
  if (mapping.transform !== undefined) {
    const result = await runTransform(mapping, request, item, deps);
    trace.transform = result.kind;
    if (result.kind === 'skip') return trace;
    if (result.kind === 'override') {
      const checked = checkOverride(result.value, mapping.id);
      override = trace.override = checked.value;
      reportIgnoredKeys(mapping, [...(result.ignored ?? []), ...checked.ignored], deps, notes);
    }
  }
  const kind = override.action ?? mapping.action;
  const context =
    item.safePayload === request.safePayload ? request.templateContext() : buildTemplateContext(item.safePayload, { headers: request.safeHeaders, query: request.safeQuery, path: request.name, now: request.now });
  trace.rendered = renderFields(mapping, kind, context, override);
  noteLiteralOnly(mapping, trace.rendered, notes);
  const handoff = { received: receivedFacts(request), requestCallback: request.query['callback'] };
  trace.action = withRunLimitKeys(buildAction(deps.builder, { mapping, kind, rendered: trace.rendered, override, hookName: request.name, ...handoff }), mapping.runLimitKeys, context, mapping.id);
  const debounce = mapping.admission?.debounce;
  if (debounce !== undefined) trace.debounceKey = debounce.key(context).trim();
  return trace;
}

/** A template whose fields all rendered empty (`Order  by : item(s)`): the payload lacks what it expects. */
function noteLiteralOnly(mapping: CompiledMapping, rendered: RenderedFields, notes: string[]): void {
  for (const [field, text] of Object.entries(rendered) as Array<[keyof RenderedFields, string]>) {
    if (mapping.blankRenders?.[field] !== text) continue;
    const line = `template ${FIELD_POINTERS[field].replace('/', '.')} rendered only its literal text: none of its fields are in this payload (list them in "required" to refuse such payloads)`;
    if (!notes.includes(line)) notes.push(line);
  }
}

/** Keys a transform returned that Hookgate does not use: a note for `hookgate try`, one log warning per module. */
function reportIgnoredKeys(mapping: CompiledMapping, ignored: string[], deps: RunDeps, notes: string[]): void {
  if (ignored.length === 0 || mapping.transform === undefined) return;
  const module = mapping.transform.spec.module;
  const line = `transform "${module}" returned keys Hookgate does not use, ignored: ${[...new Set(ignored)].join(', ')}`;
  if (!notes.includes(line)) notes.push(line);
  if (deps.warnedModules === undefined || deps.warnedModules.has(module)) return;
  deps.warnedModules.add(module);
  deps.logger.warn({ event: 'transform.ignored_keys', mappingId: mapping.id, module, keys: ignored.slice(0, 10) }, line);
}

async function runTransform(mapping: CompiledMapping, request: PreparedRequest, item: FanOutItem, deps: RunDeps) {
  // Both are set together at compilation; a mapping with a transform implies a port.
  if (deps.transforms === undefined || mapping.transform === undefined) throw new HookError('TRANSFORM_UNAVAILABLE', 'transform sandbox unavailable');
  try {
    const input = { payload: item.payload, headers: request.headers, query: request.query, path: request.name, url: request.url };
    return await deps.transforms.run(mapping.transform, request.signature === undefined ? input : { ...input, signature: request.signature });
  } catch (error) {
    if (error instanceof HookError) throw error;
    deps.logger.error({ event: 'transform.failed', hook: request.name, mappingId: mapping.id, err: error }, 'transform failed');
    throw new HookError('TRANSFORM_FAILED', 'hook mapping failed', { cause: error });
  }
}

/** What a target learns of the request: how it was authenticated, the sender's delivery id, when it came. */
function receivedFacts(request: PreparedRequest): ReceivedFacts {
  const signature = request.signature;
  if (signature === undefined) return { scheme: 'token', verified: false, receivedAt: request.now };
  return { scheme: signature.scheme, verified: true, receivedAt: request.now, ...(signature.id === null ? {} : { deliveryId: signature.id }) };
}
