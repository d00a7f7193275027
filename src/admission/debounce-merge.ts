import { setImmediate as nextTurn } from 'node:timers/promises';
import { sealAction } from '../actions/seal.js';
import type { AdmittedAction } from '../actions/types.js';
import type { DueGroup, GroupMember } from '../store/debounce-port.js';

/** How a firing reads its group's members (DebounceStore.newestMember and .members of the group). */
export interface GroupReader {
  newest(): Promise<AdmittedAction | undefined>;
  /** Up to `limit` members with seq > `afterSeq`, oldest first. */
  page(afterSeq: number, limit: number): Promise<GroupMember[]>;
}

/**
 * Members read per page while a keep "all" group fires: 1, then twice as many each page, up to
 * this. Large members fill maxChars in a member or two, and no more of them is read than that;
 * small ones are read in few pages.
 */
const MEMBER_PAGE_MAX = 64;

/**
 * The one action a fired group becomes. keep "last": the newest delivery's action with a line
 * saying how many earlier ones were merged. keep "all": every delivery's content, oldest first,
 * up to maxChars: an agent message holds each delivery in its own envelope (sealed here, so the
 * result is final); a wake text stays untrusted as a whole and the heartbeat prompt wraps it; a
 * notify's texts are joined as they are (people read them, no model).
 *
 * keep "all" reads the members a page at a time and stops at the first that does not fit: what
 * firing holds and seals is bounded by maxChars (and one member), not by the group's size, and the
 * event loop is free after each member.
 */
export async function mergeGroup(group: DueGroup, reader: GroupReader): Promise<AdmittedAction> {
  const newest = await reader.newest();
  if (newest === undefined) throw new Error(`debounce group ${group.groupId} has no deliveries`);
  const base = newest.kind === 'wake' ? newest : { ...newest, runId: group.groupId };
  if (group.keep === 'last') return withContent(base, appendNote(contentOf(base), group.deliveries - 1));
  if (base.kind !== 'agent' || base.envelope === undefined) return withContent(base, await mergedText(group, reader, (action) => contentOf(action)));
  const message = await mergedText(group, reader, (action) => contentOf(sealAction(action).action));
  const { envelope: _sealedNow, ...final } = base;
  return { ...final, message };
}

async function mergedText(group: DueGroup, reader: GroupReader, partOf: (action: AdmittedAction) => string): Promise<string> {
  const text = boundedText(group.maxChars);
  for (let afterSeq = 0, size = 1; ; size = Math.min(2 * size, MEMBER_PAGE_MAX)) {
    const page = await reader.page(afterSeq, size);
    for (const member of page) {
      // A member may be as large as a request body: sealing one is the most done between two turns.
      await nextTurn();
      if (!text.add(partOf(member.action))) return text.end(group.stored);
      afterSeq = member.seq;
    }
    if (page.length < size) return text.end(group.stored);
  }
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
 * Parts oldest first while they fit maxChars, then how many of `total` were left out. The first
 * part is kept whole whatever its length: cutting a sealed part would cut its envelope's end marker.
 * `add` says whether the part fitted (the caller stops at the first that does not).
 */
function boundedText(maxChars: number): { add(part: string): boolean; end(total: number): string } {
  const shown: string[] = [];
  let length = 0;
  return {
    add(part) {
      const next = length + (shown.length === 0 ? 0 : 2) + part.length;
      if (shown.length > 0 && next > maxChars) return false;
      shown.push(part);
      length = next;
      return true;
    },
    end(total) {
      const hidden = total - shown.length;
      return hidden <= 0 ? shown.join('\n\n') : `${shown.join('\n\n')}\n\n(${hidden} more not shown)`;
    },
  };
}
