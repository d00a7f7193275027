import type { Config } from '../src/config/schema.js';
import type { MappingConfig } from '../src/config/mapping-schema.js';
import { findScheme } from '../src/auth/signatures/index.js';
import type { PresetDebounce, PresetEntry } from '../src/config/preset-schema.js';
import { definePreset, type PresetDefinition, type PresetExample } from './define.js';
import { eventCondition, intersect, uncovered } from './event-patterns.js';

/**
 * Entry options copied onto every mapping of the preset as they are. The run limits are counted
 * for the preset as a whole (MappingSource.limitOwner), not per mapping.
 */
const PRESET_MAPPING_OPTIONS = ['wakeMode', 'rateLimit', 'throttle', 'concurrency', 'budget'] as const;

/** A template written one line per argument. */
export const lines = (...parts: string[]): string => parts.join('\n');

/** A filter condition or tree, in the shape of a mapping's `filter`. */
export type FilterNode = Record<string, unknown>;

/** A default noise filter: deliveries failing `keep` are skipped; `reason` is shown by `hookgate presets` and docs/presets.md. */
export interface NoiseFilter {
  reason: string;
  keep: FilterNode;
}

/** The event types one template renders: one mapping of the preset, routed by its `events`. */
export interface EventGroup {
  /** Suffix of the mapping id (`preset:github/pull_request`). */
  id: string;
  /** Event patterns the template renders well; a type outside every group goes to the preset's fallback. */
  handles: readonly string[];
  /** Template: the message (agent) or text (wake). */
  message: string;
  /** Template: the session key of the entity, empty when the delivery names none. */
  sessionKey: string;
  filters?: readonly NoiseFilter[];
  /**
   * Deliveries that carry no event type (Slack's slash commands): the group is enabled by naming
   * its `handles` in `events`, and recognised by this condition instead of an event type.
   */
  eventless?: FilterNode;
  /** Default debounce of the group, keyed by its session key; `reason` goes into docs. */
  debounce?: { windowSeconds: number; maxWaitSeconds: number; reason: string };
  /**
   * Template: the entity a reply on the sender's own channel goes to (`owner/repo#12`, a Slack
   * thread), empty when a delivery names none. Absent: the group's deliveries name none.
   */
  replyTo?: string;
  /**
   * How the group's deliveries name a message (a comment, a note) the service may have posted on
   * the sender's channel: such a delivery is skipped as "self" (a mapping's `ownMessages`).
   */
  ownMessages?: NonNullable<MappingConfig['ownMessages']>;
}

export interface SenderSpec {
  name: string;
  /** The sender's name in prompts and summaries (`GitHub`). */
  title: string;
  scheme: string;
  summary: string;
  /** The largest delivery the sender documents (the path's body limit, within hooks.bodyBudgetBytes). */
  maxBodyBytes: number;
  defaultEvents: readonly string[];
  groups: readonly EventGroup[];
  /** Events the user names that no group renders: a generic template. */
  fallback: { message: string; sessionKey: string };
  /** Noise filters of every group. */
  filters?: readonly NoiseFilter[];
  /** The channel that answers on the sender's own entities (`github`): with it and no `to`, replies go where each event came from. */
  replyChannel?: string;
  example: PresetExample;
}

const COMMON_OPTIONS = ['path', 'events', 'filter', 'action', 'deliver', 'channel', 'to', 'model', 'thinking', 'debounce', 'allowUnsafeExternalContent', ...PRESET_MAPPING_OPTIONS] as const;
const COMMON_SIGNATURE_OPTIONS = ['secret', 'secrets', 'toleranceSeconds', 'allowToken'] as const;

/** The entry keys that go into the mappings' `signature` as they are: the common ones and the scheme's own. */
function signatureOptions(scheme: string): string[] {
  const found = findScheme(scheme);
  if (found === undefined) throw new Error(`preset scheme "${scheme}" is not a signature scheme`);
  return [...COMMON_SIGNATURE_OPTIONS, ...Object.keys(found.options)];
}

/** A preset for a sender that signs its deliveries: one mapping per event group, then the fallback. */
export function defineSenderPreset(spec: SenderSpec): PresetDefinition & { spec: SenderSpec } {
  const signatureKeys = signatureOptions(spec.scheme);
  const definition = definePreset({
    name: spec.name,
    summary: spec.summary,
    scheme: spec.scheme,
    defaultEvents: spec.defaultEvents,
    options: [...signatureKeys, ...COMMON_OPTIONS],
    maxBodyBytes: spec.maxBodyBytes,
    defaultsExplained: explainDefaults(spec),
    mappings: (hooks, entry) => senderMappings(spec, signatureKeys, hooks, entry),
    example: spec.example,
  });
  return Object.freeze({ ...definition, spec });
}

/** The noise filters and debounces of each group, for `hookgate presets`. */
function explainDefaults(spec: SenderSpec): Array<{ events: readonly string[]; rule: string; reason: string }> {
  const out: Array<{ events: readonly string[]; rule: string; reason: string }> = [];
  for (const noise of spec.filters ?? []) out.push({ events: ['*'], rule: `skip unless ${JSON.stringify(noise.keep)}`, reason: noise.reason });
  for (const group of spec.groups) {
    for (const noise of group.filters ?? []) out.push({ events: group.handles, rule: `skip unless ${JSON.stringify(noise.keep)}`, reason: noise.reason });
    if (group.debounce !== undefined) {
      const { windowSeconds, maxWaitSeconds, reason } = group.debounce;
      out.push({ events: group.handles, rule: `debounce ${windowSeconds} s (at most ${maxWaitSeconds} s) per ${group.sessionKey.replace(/\{\{#if [^}]*\}\}|\{\{\/if\}\}/g, '')}`, reason });
    }
  }
  // One line per rule: the bot filter of five groups is one rule over their events.
  const merged = new Map<string, { events: string[]; rule: string; reason: string }>();
  for (const entry of out) {
    const key = `${entry.rule}\n${entry.reason}`;
    const found = merged.get(key);
    if (found === undefined) merged.set(key, { ...entry, events: [...entry.events] });
    else found.events.push(...entry.events);
  }
  return [...merged.values()];
}

function senderMappings(spec: SenderSpec, signatureKeys: readonly string[], hooks: Config['hooks'], entry: PresetEntry): MappingConfig[] {
  const events = entry.events ?? spec.defaultEvents;
  const shared = sharedFields(spec, signatureKeys, hooks, entry);
  const idBase = entry.path === undefined || entry.path === spec.name ? `preset:${spec.name}` : `preset:${spec.name}:${entry.path}`;
  const mappings: MappingConfig[] = [];
  for (const group of spec.groups) {
    const groupEvents = intersect(events, group.handles);
    if (groupEvents.length === 0) continue;
    const noise = [...(group.filters ?? []), ...(spec.filters ?? [])].map((filter) => filter.keep);
    const filter = allOf(group.eventless === undefined ? noise : [group.eventless, ...noise], entry.filter);
    const own = group.ownMessages === undefined ? {} : { ownMessages: group.ownMessages };
    const routed: MappingConfig = group.eventless === undefined ? { ...shared, ...own, id: `${idBase}/${group.id}`, events: groupEvents } : { ...shared, ...own, id: `${idBase}/${group.id}` };
    mappings.push(withReplyTo(withTemplates(routed, entry, group.message, group.sessionKey, filter, debounceOf(entry, group)), spec, entry, group.replyTo));
  }
  const rest = uncovered(events, spec.groups.flatMap((group) => group.handles));
  if (rest.length > 0) {
    const handled = spec.groups.flatMap((group) => group.handles);
    const filter = allOf([{ not: eventCondition(handled) }, ...(spec.filters ?? []).map((noise) => noise.keep)], entry.filter);
    const fallback = withTemplates({ ...shared, id: `${idBase}/other`, events: rest }, entry, spec.fallback.message, spec.fallback.sessionKey, filter, debounceOf(entry, undefined));
    mappings.push(withReplyTo(fallback, spec, entry, undefined));
  }
  return mappings;
}

function sharedFields(spec: SenderSpec, signatureKeys: readonly string[], hooks: Config['hooks'], entry: PresetEntry): MappingConfig {
  const signature: Record<string, unknown> = { scheme: spec.scheme };
  for (const key of signatureKeys) if ((entry as Record<string, unknown>)[key] !== undefined) signature[key] = (entry as Record<string, unknown>)[key];
  const mapping: MappingConfig = {
    match: { path: entry.path ?? spec.name },
    action: entry.action ?? 'agent',
    // One delivery, one model call (docs/presets.md): a run's summary waits for the next scheduled
    // heartbeat; a wake entry's event is that call, so it still wakes the main session at once.
    wakeMode: (entry.action ?? 'agent') === 'wake' ? 'now' : 'next-heartbeat',
    name: spec.title,
    signature: signature as MappingConfig['signature'] & object,
    maxBodyBytes: Math.min(spec.maxBodyBytes, hooks.bodyBudgetBytes),
  };
  for (const key of ['deliver', 'channel', 'to', 'model', 'thinking', 'allowUnsafeExternalContent', ...PRESET_MAPPING_OPTIONS] as const) {
    if (entry[key] !== undefined) (mapping as Record<string, unknown>)[key] = entry[key];
  }
  return mapping;
}

function withTemplates(
  mapping: MappingConfig,
  entry: PresetEntry,
  message: string,
  sessionKey: string,
  filter: FilterNode | undefined,
  debounce: MappingConfig['debounce'],
): MappingConfig {
  const out: MappingConfig = { ...mapping };
  if ((entry.action ?? 'agent') === 'wake') out.textTemplate = message;
  else {
    out.messageTemplate = message;
    // No key: each run gets a fresh session (events that name no entity).
    if (sessionKey !== '') out.sessionKey = sessionKey;
  }
  if (filter !== undefined) out.filter = filter;
  if (debounce !== undefined) out.debounce = debounce;
  return out;
}

/**
 * Replies on the sender's own channel without a `to` go back where each event came from (the
 * issue, merge request or thread); a delivery that names no such entity is not answered there
 * (`noRecipient: "skip"`: its run's delivery says why) instead of reaching the channel's last recipient.
 */
function withReplyTo(mapping: MappingConfig, spec: SenderSpec, entry: PresetEntry, replyTo: string | undefined): MappingConfig {
  const ownChannel = spec.replyChannel !== undefined && entry.channel?.trim().toLowerCase() === spec.replyChannel;
  if (!ownChannel || entry.to !== undefined || (entry.action ?? 'agent') !== 'agent') return mapping;
  return { ...mapping, ...(replyTo === undefined ? {} : { to: replyTo }), noRecipient: 'skip' };
}

function allOf(conditions: readonly FilterNode[], extra: unknown): FilterNode | undefined {
  const all: unknown[] = [...conditions, ...(extra === undefined ? [] : [extra])];
  if (all.length === 0) return undefined;
  return all.length === 1 ? (all[0] as FilterNode) : { all };
}

/** The entry's debounce replaces the group's default (`false`: none); its key defaults to the entity's session key. */
function debounceOf(entry: PresetEntry, group: EventGroup | undefined): MappingConfig['debounce'] {
  if (entry.debounce === false) return undefined;
  const chosen: PresetDebounce | undefined = entry.debounce ?? (group?.debounce === undefined ? undefined : { windowSeconds: group.debounce.windowSeconds, maxWaitSeconds: group.debounce.maxWaitSeconds });
  if (chosen === undefined) return undefined;
  const { key, ...settings } = chosen;
  return { key: key ?? group?.sessionKey ?? '', ...settings };
}
