import { HookError } from '../errors.js';
import type { ActionBuilder, BuildContext } from '../actions/build.js';
import type { ReceivedFacts } from '../actions/handoff.js';
import type { AdmittedAction } from '../actions/types.js';
import type { EnvelopeMeta } from '../envelope/envelope.js';
import { FIELD_POINTERS, type CompiledMapping, type MappingAction, type TemplatedField } from './compiled.js';
import type { SafeRecord } from './context.js';
import type { TransformOverride } from './transform-port.js';
import { persistentKey } from './compile.js';

export type RenderedFields = Partial<Record<TemplatedField, string>>;

const FIELDS_BY_KIND: Readonly<Record<MappingAction, readonly TemplatedField[]>> = {
  agent: ['message', 'name', 'sessionKey', 'to', 'model', 'thinking', 'from', 'subject'],
  wake: ['text', 'name', 'from', 'subject'],
  notify: ['text', 'name', 'to'],
};

/**
 * Renders the templated fields the final action kind uses, against the original payload.
 * A field the transform overrides is not rendered at all: the override is used as is (it is
 * never itself a template).
 */
export function renderFields(mapping: CompiledMapping, kind: MappingAction, context: SafeRecord, override: TransformOverride): RenderedFields {
  const rendered: RenderedFields = {};
  for (const field of FIELDS_BY_KIND[kind]) {
    const template = mapping.templates[field];
    if (template === undefined || (field !== 'from' && field !== 'subject' && override[field] !== undefined)) continue;
    try {
      rendered[field] = template(context);
    } catch (error) {
      throw new HookError('MAPPING_INVALID', `hook mapping "${mapping.id}" could not render ${FIELD_POINTERS[field].replace('/', '.')}`, { cause: error });
    }
  }
  return rendered;
}

/** Optional fields are trimmed; what renders empty is unset, so the default applies. */
function optional(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === '' ? undefined : trimmed;
}

export interface BuildInput {
  mapping: CompiledMapping;
  kind: MappingAction;
  rendered: RenderedFields;
  override: TransformOverride;
  hookName: string;
  /** What a target or a callback's receiver learns of the request (docs/forward.md). */
  received?: ReceivedFacts;
  /** The request's `callback` query parameter, honoured when the mapping's allowRequestCallback lists it. */
  requestCallback?: string | undefined;
}

/** Merges override over rendered fields and builds the validated, enveloped action. */
export function buildAction(builder: ActionBuilder, input: BuildInput): AdmittedAction {
  const { mapping, kind, rendered, override } = input;
  const name = optional(override.name ?? rendered.name);
  const context: BuildContext = {
    origin: { hook: input.hookName, mappingId: mapping.id },
    via: 'mapped',
    content: mapping.trusted ? 'trusted' : envelopeMeta(mapping, name ?? input.hookName, rendered),
    handoff: {
      forward: override.forward ?? mapping.handoff?.forward,
      callback: requestCallback(mapping, input.requestCallback) ?? mapping.handoff?.callback,
      received: input.received,
    },
  };
  if (kind === 'notify') {
    const fields = { text: override.text ?? rendered.text ?? '', name, channel: override.channel ?? mapping.channel, to: optional(override.to ?? rendered.to) };
    return builder.notify(fields, context);
  }
  const wakeMode = override.wakeMode ?? mapping.wakeMode;
  if (kind === 'wake') return builder.wake({ text: override.text ?? rendered.text ?? '', mode: wakeMode }, context);
  const to = optional(override.to ?? rendered.to);
  return builder.agent(
    {
      message: override.message ?? rendered.message ?? '',
      name,
      sessionKey: optional(override.sessionKey ?? rendered.sessionKey) ?? sessionOfMode(mapping, override.sessionMode),
      wakeMode,
      deliver: override.deliver ?? mapping.deliver,
      channel: override.channel ?? mapping.channel,
      to,
      undeliverable: to === undefined && mapping.skipWithoutRecipient === true ? noRecipientReason(mapping.id, override.channel ?? mapping.channel) : undefined,
      model: optional(override.model ?? rendered.model),
      thinking: optional(override.thinking ?? rendered.thinking),
      timeoutSeconds: override.timeoutSeconds ?? mapping.timeoutSeconds,
      agentId: override.agentId,
    },
    context,
  );
}

/** Why an agent reply is not sent (`noRecipient: "skip"`): recorded as the run's skipped delivery. */
function noRecipientReason(mappingId: string, channel: string | undefined): string {
  return `no recipient on ${(channel ?? 'last').toLowerCase()}: this delivery names none to reply to (mapping "${mappingId}" leaves "to" empty for it); set "to" to send such replies elsewhere`;
}

/** A run without a key: the mapping's sessionMode, unless the transform chose one. */
function sessionOfMode(mapping: CompiledMapping, mode: 'isolated' | 'persistent' | undefined): string | undefined {
  if (mode === undefined) return mapping.persistentSessionKey;
  return mode === 'persistent' ? persistentKey(mapping.id) : undefined;
}

function envelopeMeta(mapping: CompiledMapping, task: string, rendered: RenderedFields): EnvelopeMeta {
  const meta: EnvelopeMeta = { source: mapping.envelopeSource, task };
  const from = optional(rendered.from);
  if (from !== undefined) meta.from = from;
  const subject = optional(rendered.subject);
  if (subject !== undefined) meta.subject = subject;
  return meta;
}

/** A request's own `callback`: only a target the mapping's allowRequestCallback lists (400 otherwise); ignored where none is allowed. */
function requestCallback(mapping: CompiledMapping, requested: string | undefined): string | undefined {
  const allowed = mapping.handoff?.requestCallbacks;
  if (requested === undefined || allowed === undefined) return undefined;
  if (allowed.includes(requested)) return requested;
  throw new HookError('INVALID_BODY', `callback "${requested.slice(0, 60)}" is not allowed for this hook (allowRequestCallback: ${allowed.join(', ')})`);
}
