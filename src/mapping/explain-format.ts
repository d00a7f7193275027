import type { AdmittedAction } from '../actions/types.js';
import type { Explanation } from './engine.js';
import type { ItemTrace } from './apply-mapping.js';

/** The exact text the agent (or the main session, for wake) will read: enveloped unless the mapping opted out. */
export function promptOf(action: AdmittedAction): string {
  return action.kind === 'agent' ? action.message : action.text;
}

function actionsOf(explanation: Explanation): AdmittedAction[] {
  return explanation.outcome?.kind === 'actions' ? explanation.outcome.actions : [];
}

/** The `--json` form: one object; `action`/`prompt` are the first of `actions`/`prompts` (fan-out gives several). */
export function explanationJson(explanation: Explanation, warnings: readonly string[]): Record<string, unknown> {
  const actions = actionsOf(explanation);
  return {
    matched: explanation.mapping !== undefined,
    hook: explanation.name,
    mapping: explanation.mapping ?? null,
    outcome: explanation.outcome?.kind ?? 'error',
    skipReason: explanation.outcome?.kind === 'skip' ? explanation.outcome.reason : null,
    error: explanation.error ?? null,
    action: actions[0] ?? null,
    prompt: actions[0] === undefined ? null : promptOf(actions[0]),
    actions,
    prompts: actions.map(promptOf),
    considered: explanation.considered,
    admission: explanation.admission,
    items: explanation.items.map((item) => ({ index: item.index ?? null, transform: item.transform ?? null, override: item.override ?? null, rendered: item.rendered, debounceKey: item.debounceKey ?? null })),
    notes: explanation.notes,
    limits: explanation.limits,
    warnings,
  };
}

/** The human form of `hookgate try`. */
export function formatExplanation(explanation: Explanation, warnings: readonly string[]): string {
  const lines: string[] = warnings.map((warning) => `warning: ${warning}`);
  const source = explanation.source === undefined ? 'no string "source"' : `source "${explanation.source}"`;
  lines.push(`hook "${explanation.name}" (payload ${source})`, '', 'mappings considered:');
  if (explanation.considered.length === 0) lines.push('  (none)');
  for (const entry of explanation.considered) {
    lines.push(`  ${entry.matched ? '✓' : '✗'} ${entry.mappingId} (${entry.label})${entry.matched ? ': matched' : `: ${entry.reason ?? ''}`}`);
  }
  for (const entry of explanation.admission) lines.push('', ...formatAdmission(entry));
  for (const note of explanation.notes) lines.push(`note: ${note}`);
  if (explanation.mapping === undefined) {
    const outcome = explanation.outcome;
    if (outcome?.kind === 'skip') lines.push('', resultLine(explanation));
    else lines.push('', 'no mapping matched → 404');
    return `${lines.join('\n')}\n`;
  }
  lines.push('', `winner: ${explanation.mapping.id} (${explanation.mapping.label})`);
  if (explanation.limits.length > 0) lines.push('', 'limits (right now; nothing counted):');
  for (const limit of explanation.limits) lines.push(`  ${limit.limit}${limit.key === undefined ? '' : ` key ${JSON.stringify(limit.key)}`}: ${limit.verdict}`);
  const count = explanation.items.length;
  explanation.items.forEach((item, position) => lines.push('', ...formatItem(item, position, count)));
  lines.push('', resultLine(explanation));
  return `${lines.join('\n')}\n`;
}

function formatItem(item: ItemTrace, position: number, count: number): string[] {
  const lines = [count > 1 || item.index !== undefined ? `item ${position + 1} of ${count} (array index ${item.index ?? 0}):` : 'request:'];
  if (item.transform !== undefined) lines.push(`  transform: ${item.transform === 'skip' ? 'returned null (item skipped)' : item.transform}`);
  if (item.override !== undefined) lines.push(`  override: ${JSON.stringify(item.override)}`);
  if (item.debounceKey !== undefined) lines.push(`  debounce key: ${item.debounceKey === '' ? '(empty: acts at once)' : JSON.stringify(item.debounceKey)}`);
  const rendered = Object.entries(item.rendered);
  lines.push(rendered.length === 0 ? '  rendered fields: (none)' : '  rendered fields:');
  for (const [field, value] of rendered) lines.push(...block(`    ${field}:`, value, '      '));
  if (item.action !== undefined) {
    const { kind, ...rest } = item.action;
    const shown = Object.fromEntries(Object.entries(rest).filter(([key]) => key !== 'message' && key !== 'text'));
    lines.push(`  action: ${kind} ${JSON.stringify(shown)}`);
    lines.push(...routeLines(item.action));
    const title = kind === 'notify' ? '  text (sent to the channel, no model; mentions and links neutralised there):' : '  prompt (exactly what the agent receives):';
    lines.push(...block(title, promptOf(item.action), '    │ '));
  }
  return lines;
}

/** Where the reply (or the notify) goes and which conversation the run continues, as resolved for this request. */
function routeLines(action: AdmittedAction): string[] {
  const callback = action.callback === undefined ? [] : [`  when the run ends: callback to ${action.callback}`];
  if (action.kind !== 'notify' && action.forward !== undefined) {
    // The target runs it (docs/forward.md): its channels and sessions are its own.
    const how = action.relay === true ? 'held for its consumers to pull (hookgate relay, docs/relay.md)' : 'the run is the handoff';
    return [`  forwarded to ${action.forward} (not run here; ${how})`, ...callback];
  }
  if (action.kind === 'wake') return callback;
  if (action.kind === 'agent' && action.undeliverable !== undefined) return [`  reply not delivered: ${action.undeliverable}`, `  session key: ${action.sessionKey}`, ...callback];
  const to = action.to === undefined ? '(none given: the last recipient used on that channel)' : action.to;
  const lines = [`  reply goes to: ${action.channel} → ${to}`];
  if (action.kind === 'agent') lines.push(`  session key: ${action.sessionKey}`);
  return [...lines, ...callback];
}

function block(title: string, text: string, indent: string): string[] {
  return [title, ...text.split('\n').map((line) => `${indent}${line}`)];
}

function resultLine(explanation: Explanation): string {
  const error = explanation.error;
  if (error !== undefined) return `error ${error.status} ${error.code}: ${error.message}${error.detail === undefined ? '' : `\n  why: ${error.detail}`}`;
  const outcome = explanation.outcome;
  if (outcome?.kind === 'skip' && outcome.reason === 'self') return `skipped (self${outcome.event === undefined ? '' : ` ${outcome.event}`}) → 200 {"ok":true,"skipped":"self"} (a message this service posted)`;
  if (outcome?.kind === 'skip' && (outcome.reason === 'event' || outcome.reason === 'filter')) {
    return `skipped (${outcome.reason}${outcome.event === undefined ? '' : ` ${outcome.event}`}) → 200 {"ok":true,"skipped":"${outcome.reason}"} (every matching mapping passed it over)`;
  }
  if (outcome?.kind === 'skip') return `skipped (${outcome.reason}) → 204`;
  const actions = actionsOf(explanation);
  const kinds = [...new Set(actions.map((action) => (action.kind !== 'notify' && action.forward !== undefined ? `${action.kind} forwarded to ${action.forward}` : action.kind)))].join('+');
  const status = actions.some((action) => action.kind === 'agent') ? 202 : 200;
  return `result: ${actions.length} ${kinds} action${actions.length === 1 ? '' : 's'} → ${status} (dry run: nothing stored)`;
}

/** A mapping's events/filter verdict: the event type it read, then each condition with its value. */
function formatAdmission(entry: Explanation['admission'][number]): string[] {
  const verdict = entry.passed ? 'passes' : `passed over (${entry.reason ?? ''})`;
  const lines = [`admission of ${entry.mappingId}: event type ${entry.event === undefined ? '(none)' : JSON.stringify(entry.event)} → ${verdict}`];
  for (const condition of entry.conditions) {
    const json = JSON.stringify(condition.actual);
    const actual = json === undefined ? '(missing)' : json.length > 120 ? `${json.slice(0, 119)}…` : json;
    lines.push(`  ${condition.result ? '✓' : '✗'} ${condition.pointer}: ${condition.field} ${condition.op} ${JSON.stringify(condition.expected)} — value ${actual}`);
  }
  return lines;
}
