import { sealAction } from '../actions/seal.js';
import type { AdmittedAction } from '../actions/types.js';
import type { DueGroup } from '../store/debounce-port.js';

/**
 * The one action a fired group becomes. keep "last": the newest delivery's action with a line
 * saying how many earlier ones were merged. keep "all": every delivery's content, oldest first,
 * up to maxChars: an agent message holds each delivery in its own envelope (sealed here, so the
 * result is final); a wake text stays untrusted as a whole and the heartbeat prompt wraps it; a
 * notify's texts are joined as they are (people read them, no model).
 */
export function mergeGroup(group: DueGroup): AdmittedAction {
  const newest = group.members.at(-1);
  if (newest === undefined) throw new Error(`debounce group ${group.groupId} has no deliveries`);
  const base = newest.kind === 'wake' ? newest : { ...newest, runId: group.groupId };
  if (group.keep === 'last') return withContent(base, appendNote(contentOf(base), group.deliveries - 1));
  if (base.kind !== 'agent' || base.envelope === undefined) return withContent(base, bounded(group.members.map(contentOf), group.maxChars));
  const sealed = group.members.map((member) => contentOf(sealAction(member).action));
  const { envelope: _sealedNow, ...final } = base;
  return { ...final, message: bounded(sealed, group.maxChars) };
}

function contentOf(action: { kind: 'agent'; message: string } | { kind: 'wake' | 'notify'; text: string }): string {
  return action.kind === 'agent' ? action.message : action.text;
}

function withContent(action: AdmittedAction, content: string): AdmittedAction {
  return action.kind === 'agent' ? { ...action, message: content } : { ...action, text: content };
}

function appendNote(content: string, earlier: number): string {
  if (earlier <= 0) return content;
  return `${content}\n\n(${earlier} earlier ${earlier === 1 ? 'delivery' : 'deliveries'} for this key ${earlier === 1 ? 'was' : 'were'} merged into this one)`;
}

/**
 * Parts oldest first while they fit maxChars, then how many were left out. The first part is kept
 * whole whatever its length: cutting a sealed part would cut its envelope's end marker.
 */
export function bounded(parts: readonly string[], maxChars: number): string {
  const shown: string[] = [];
  let length = 0;
  for (const part of parts) {
    const next = length + (shown.length === 0 ? 0 : 2) + part.length;
    if (shown.length > 0 && next > maxChars) break;
    shown.push(part);
    length = next;
  }
  const hidden = parts.length - shown.length;
  return hidden === 0 ? shown.join('\n\n') : `${shown.join('\n\n')}\n\n(${hidden} more not shown)`;
}
