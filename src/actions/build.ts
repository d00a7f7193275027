import { HookError, type ErrorCode } from '../errors.js';
import { CHANNEL_NAMES, normalizeChannelName } from '../channels/index.js';
import type { EnvelopeMeta } from '../envelope/envelope.js';
import type { ActionOrigin, AdmittedAgentAction, AdmittedWakeAction, NotifyAction, WakeMode } from './types.js';
import { catalogsOf, createModelPolicy, type ModelPolicy } from './models.js';
import { newTimeOrderedId } from './ids.js';
import { ANY_RECIPIENT, createRecipientPolicy, defaultLastChannel, type AllowToConfig, type RecipientPolicy } from '../channels/recipients.js';
import type { Config } from '../config/schema.js';
import { createSessionKeyPolicy, type SessionKeyPolicy } from './session-keys.js';
import { agentIdProblem } from './agent-id.js';
import { handoffFields, NO_TARGETS, type HandoffChoice, type TargetPolicy } from './handoff.js';
import { targetPolicyOf } from '../forward/index.js';

/** Fields of an agent action as a request or a mapping gives them, before defaults and checks. */
interface AgentFields {
  message: string;
  name?: string | undefined;
  sessionKey?: string | undefined;
  wakeMode?: WakeMode | undefined;
  deliver?: boolean | undefined;
  channel?: string | undefined;
  to?: string | undefined;
  /** Why the reply will not be delivered, decided now (a mapping's `noRecipient: "skip"` without a recipient). */
  undeliverable?: string | undefined;
  model?: string | undefined;
  thinking?: string | undefined;
  timeoutSeconds?: number | undefined;
  /** OpenClaw's agent routing: only Hookgate's one agent, `main`, within hooks.allowedAgentIds. */
  agentId?: string | undefined;
}

interface WakeFields {
  text: string;
  mode?: WakeMode | undefined;
}

interface NotifyFields {
  text: string;
  name?: string | undefined;
  channel?: string | undefined;
  to?: string | undefined;
}

export interface BuildContext {
  origin: ActionOrigin;
  /** `direct` for /wake and /agent, `mapped` for mappings: picks the wording of empty-field errors. */
  via: 'direct' | 'mapped';
  /** How to wrap the content: envelope metadata, or `trusted` when a mapping opted out in config. */
  content: EnvelopeMeta | 'trusted';
  /** `forward` and `callback` chosen for this action (docs/forward.md); `agents.defaults.forward` applies without one. */
  handoff?: HandoffChoice | undefined;
}

export interface ActionBuilder {
  agent(fields: AgentFields, context: BuildContext): AdmittedAgentAction;
  wake(fields: WakeFields, context: BuildContext): AdmittedWakeAction;
  /** Text straight to a channel: no envelope (the channel neutralises it), no model, no session. */
  notify(fields: NotifyFields, context: BuildContext): NotifyAction;
  /** The session-key fence, for the load-time check of literal mapping keys. */
  readonly sessions: SessionKeyPolicy;
}

export interface ActionBuilderDeps {
  models: ModelPolicy;
  /** channels.<id>.allowTo; none → any recipient. */
  recipients?: RecipientPolicy;
  /** Where `last` goes before the main session has a route (see defaultLastChannel in src/runtime/routing.ts). */
  lastChannel?: string;
  /** Default: the spec's (request keys allowed inside `hook:`). */
  sessions?: SessionKeyPolicy;
  /** hooks.allowedAgentIds; undefined: any id may be named (only `main` exists). */
  allowedAgentIds?: readonly string[] | undefined;
  /** Channels that can deliver (configured blocks and `log`); undefined: any known channel is accepted. */
  configuredChannels?: ReadonlySet<string> | undefined;
  /** The configured targets and `agents.defaults.forward`; none: nothing is forwarded. */
  targets?: TargetPolicy | undefined;
  newRunId?: () => string;
}

/**
 * The one place where request fields become an action: defaults, channel and model rules, and
 * which envelope the content gets. Used by /wake, /agent and the mapping engine alike. Untrusted
 * content leaves here raw with its `envelope` metadata; the store seals it (src/actions/seal.ts).
 */
export function createActionBuilder(deps: ActionBuilderDeps): ActionBuilder {
  const newRunId = deps.newRunId ?? newTimeOrderedId;
  const recipients = deps.recipients ?? ANY_RECIPIENT;
  const lastChannel = deps.lastChannel ?? 'last';
  const sessions = deps.sessions ?? createSessionKeyPolicy();
  const targets = deps.targets ?? NO_TARGETS;
  return {
    sessions,
    agent(fields, context) {
      const message = requireText(fields.message, context, 'message');
      if (fields.agentId !== undefined) checkAgentId(fields.agentId, deps.allowedAgentIds);
      const channel = resolveChannel(fields.channel);
      const handoff = handoffFields(context.handoff, targets, { origin: context.origin, untrusted: context.content !== 'trusted', forwardable: true });
      // A forwarded run delivers through the target's channels, not this service's: only the name is checked here.
      const local = handoff.forward === undefined;
      if (local && deps.configuredChannels !== undefined) checkConfigured(channel, deps.configuredChannels, context);
      const action: AdmittedAgentAction = {
        kind: 'agent',
        runId: newRunId(),
        message,
        name: optionalText(fields.name) ?? defaultName(context.origin),
        sessionKey: sessions.resolve(optionalText(fields.sessionKey), context.via === 'direct' ? 'request' : 'mapping'),
        wakeMode: fields.wakeMode ?? 'now',
        deliver: fields.deliver ?? true,
        channel,
        ...handoff,
      };
      if (context.content !== 'trusted') action.envelope = context.content;
      const to = optionalText(fields.to);
      if (local) recipients.checkAdmission(channel, to, lastChannel);
      if (to !== undefined) action.to = to;
      else if (fields.undeliverable !== undefined && action.deliver) action.undeliverable = fields.undeliverable;
      const model = optionalText(fields.model);
      if (model !== undefined) action.model = deps.models.resolveOverride(model);
      else if (fields.model !== undefined) throw new HookError('INVALID_BODY', 'model must not be empty');
      const thinking = optionalText(fields.thinking);
      if (thinking !== undefined) action.thinking = thinking;
      if (fields.timeoutSeconds !== undefined) action.timeoutSeconds = fields.timeoutSeconds;
      return action;
    },
    wake(fields, context) {
      const text = requireText(fields.text, context, 'text');
      const { forward, ...handoff } = handoffFields(context.handoff, targets, { origin: context.origin, untrusted: context.content !== 'trusted', forwardable: true });
      // A forwarded wake is a run (it has an id and an end); one that stays here is a main-session event.
      const action: AdmittedWakeAction = { kind: 'wake', ...(forward === undefined ? {} : { runId: newRunId(), forward }), text, mode: fields.mode ?? 'now', ...handoff };
      if (context.content !== 'trusted') action.envelope = context.content;
      return action;
    },
    notify(fields, context) {
      const text = requireText(fields.text, context, 'text');
      const channel = resolveChannel(fields.channel);
      if (deps.configuredChannels !== undefined) checkConfigured(channel, deps.configuredChannels, context);
      const handoff = handoffFields(context.handoff, targets, { origin: context.origin, untrusted: false, forwardable: false });
      const action: NotifyAction = { kind: 'notify', runId: newRunId(), text, name: optionalText(fields.name) ?? defaultName(context.origin), channel, ...handoff };
      const to = optionalText(fields.to);
      recipients.checkAdmission(channel, to, lastChannel);
      if (to !== undefined) action.to = to;
      return action;
    },
  };
}

/** The builder a configuration asks for: its model allow-list and its channels' recipient lists. */
export function createConfiguredActionBuilder(config: Pick<Config, 'agents' | 'channels' | 'hooks'> & Partial<Pick<Config, 'models' | 'targets'>>): ActionBuilder {
  const defaults = config.agents.defaults;
  const { allowRequestSessionKey, allowedSessionKeyPrefixes, defaultSessionKey, allowedAgentIds } = config.hooks;
  return createActionBuilder({
    models: createModelPolicy(defaults, catalogsOf(config.models?.providers ?? {})),
    recipients: createRecipientPolicy(config.channels as AllowToConfig),
    lastChannel: defaultLastChannel(defaults),
    sessions: createSessionKeyPolicy({ allowRequestSessionKey, allowedSessionKeyPrefixes, defaultSessionKey }),
    allowedAgentIds,
    configuredChannels: configuredChannelNames(config.channels),
    targets: targetPolicyOf(config.targets ?? {}, defaults.forward),
  });
}

/** `log` and every `channels.<name>` block not switched off: the channels a delivery can reach. */
function configuredChannelNames(channels: Config['channels']): ReadonlySet<string> {
  const names = new Set(['log']);
  for (const [name, block] of Object.entries(channels as Record<string, { enabled?: boolean } | undefined>)) {
    if (block !== undefined && block.enabled !== false) names.add(name);
  }
  return names;
}

/** A channel that is known but not configured would fail at delivery, after a 202: refused at admission. */
function checkConfigured(channel: string, configured: ReadonlySet<string>, context: BuildContext): void {
  if (channel === 'last' || configured.has(channel)) return;
  const listed = ['last', ...configured].map((name) => JSON.stringify(name)).join(', ');
  const where = context.via === 'mapped' ? `hook mapping "${context.origin.mappingId ?? context.origin.hook}": ` : '';
  throw new HookError(context.via === 'mapped' ? 'MAPPING_INVALID' : 'INVALID_BODY', `${where}channel "${channel}" is not configured (no channels.${channel} block); configured: ${listed}`);
}

function requireText(value: string, context: BuildContext, field: 'message' | 'text'): string {
  if (value.trim() !== '') return value;
  const code: ErrorCode = context.via === 'mapped' ? 'MAPPING_INVALID' : 'INVALID_BODY';
  throw new HookError(code, context.via === 'mapped' ? `hook mapping requires ${field}` : `${field} required`);
}

function optionalText(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

function resolveChannel(input: string | undefined): string {
  if (input === undefined) return 'last';
  const name = normalizeChannelName(input);
  if (name === undefined) throw new HookError('INVALID_BODY', unknownChannelMessage(input));
  return name;
}

/** Phrased like every other enum field (src/schema-errors.ts); the input is echoed short and escaped. */
export function unknownChannelMessage(input: string): string {
  const allowed = ['last', ...CHANNEL_NAMES].map((name) => JSON.stringify(name)).join(', ');
  return `channel must be one of ${allowed} (got ${JSON.stringify(input.slice(0, 40))})`;
}

function checkAgentId(agentId: string, allowed: readonly string[] | undefined): void {
  const problem = agentIdProblem(agentId, allowed);
  if (problem !== undefined) throw new HookError('INVALID_BODY', problem);
}

function defaultName(origin: ActionOrigin): string {
  return origin.hook === 'agent' ? 'Hook' : origin.hook;
}
