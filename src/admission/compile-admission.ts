import type { MappingConfig } from '../config/mapping-schema.js';
import { TemplateSyntaxError, type CompiledTemplate, type TemplateCompiler } from '../compiled-template.js';
import { compileEventMatcher, eventFieldReader, eventTypeReaderFor, type EventTypeReader } from './event-type.js';
import { compileFilter, type CompiledFilter } from './filter-compile.js';

export interface CompiledDebounce {
  readonly key: CompiledTemplate;
  readonly windowMs: number;
  readonly maxWaitMs: number;
  readonly keep: 'last' | 'all';
  readonly maxChars: number;
  readonly maxDeliveries: number;
  readonly maxBytes: number;
}

/** A mapping's admission rules, compiled at load: which deliveries it acts on, and how they merge. */
export interface CompiledAdmission {
  /** Undefined when neither the scheme nor `eventField` says where the type is. */
  readonly eventOf: EventTypeReader | undefined;
  readonly events: ((event: string | undefined) => boolean) | undefined;
  readonly filter: CompiledFilter | undefined;
  readonly debounce: CompiledDebounce | undefined;
}

type Problem = (field: string, message: string) => void;

export const DEFAULT_DEBOUNCE_MAX_CHARS = 20_000;
/** keep "all": what a group stores at most before the next delivery opens a new one (docs/flow-control.md). */
export const DEFAULT_DEBOUNCE_MAX_DELIVERIES = 1000;
export const DEFAULT_DEBOUNCE_MAX_BYTES = 16 * 1024 * 1024;

/** Compiles `events`, `eventField`, `filter` and `debounce`; undefined when the mapping has none of them. */
export function compileAdmission(config: MappingConfig, templates: TemplateCompiler, problem: Problem): CompiledAdmission | undefined {
  if (config.events === undefined && config.filter === undefined && config.debounce === undefined && config.eventField === undefined) return undefined;
  let eventOf = eventTypeReaderFor(config.signature?.scheme);
  if (config.eventField !== undefined) {
    const reader = eventFieldReader(config.eventField);
    if (typeof reader === 'string') problem('eventField', reader);
    else eventOf = reader;
  }
  if (config.events !== undefined && eventOf === undefined) {
    problem('events', `events needs the event type: signature scheme "${config.signature?.scheme ?? '(none)'}" does not say where it is, so set eventField (e.g. "payload.type" or "headers.x-event")`);
  }
  let filter: CompiledFilter | undefined;
  if (config.filter !== undefined) {
    const compiled = compileFilter(config.filter);
    for (const issue of compiled.problems) problem(issue.field, issue.message);
    filter = compiled.filter;
    if (filter !== undefined && eventOf === undefined && usesEvent(filter)) problem('filter', 'a condition reads "event" but the mapping has no event type (signature scheme or eventField)');
  }
  return {
    eventOf,
    events: config.events === undefined ? undefined : compileEventMatcher(config.events),
    filter,
    debounce: compileDebounce(config, templates, problem),
  };
}

function usesEvent(filter: CompiledFilter): boolean {
  if (filter.kind === 'condition') return filter.field.root === 'event';
  if (filter.kind === 'not') return usesEvent(filter.child);
  return filter.children.some(usesEvent);
}

function compileDebounce(config: MappingConfig, templates: TemplateCompiler, problem: Problem): CompiledDebounce | undefined {
  const debounce = config.debounce;
  if (debounce === undefined) return undefined;
  let key: CompiledTemplate | undefined;
  try {
    key = templates.compile(debounce.key);
  } catch (error) {
    if (!(error instanceof TemplateSyntaxError)) throw error;
    problem('debounce/key', `debounce.key does not compile: ${error.message}`);
  }
  const maxWaitSeconds = debounce.maxWaitSeconds ?? debounce.windowSeconds * 10;
  if (maxWaitSeconds < debounce.windowSeconds) problem('debounce/maxWaitSeconds', `debounce.maxWaitSeconds (${maxWaitSeconds}) is shorter than windowSeconds (${debounce.windowSeconds})`);
  for (const field of ['maxChars', 'maxDeliveries', 'maxBytes'] as const) {
    if (debounce[field] !== undefined && debounce.keep !== 'all') problem(`debounce/${field}`, `debounce.${field} applies only to keep: "all"`);
  }
  if (key === undefined) return undefined;
  return {
    key,
    windowMs: Math.round(debounce.windowSeconds * 1000),
    maxWaitMs: Math.round(maxWaitSeconds * 1000),
    keep: debounce.keep ?? 'last',
    maxChars: debounce.maxChars ?? DEFAULT_DEBOUNCE_MAX_CHARS,
    maxDeliveries: debounce.maxDeliveries ?? DEFAULT_DEBOUNCE_MAX_DELIVERIES,
    maxBytes: debounce.maxBytes ?? DEFAULT_DEBOUNCE_MAX_BYTES,
  };
}
