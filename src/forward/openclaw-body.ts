import { replaceEnvelopes } from '../envelope/unwrap.js';
import type { AgentAction, WakeAction } from '../actions/types.js';

/** The parts of an `openclaw` target's config that shape what is sent. */
export interface OpenClawFields {
  agentId?: string | undefined;
  allowRequestSessionKey?: boolean | undefined;
  allowedSessionKeyPrefixes?: readonly string[] | undefined;
  waitForCompletion?: boolean | undefined;
}

/** A key Hookgate made up for a run that named none: OpenClaw makes its own then, nothing to note. */
const GENERATED_KEY = /^hook:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The envelope header lines OpenClaw's own envelope does not carry (it says `Source` and `Task` itself). */
const KEPT_HEADERS = /^(From|Subject): /;

/**
 * The message OpenClaw's `/hooks/agent` receives. OpenClaw wraps every such message in its own
 * untrusted-content envelope, so Hookgate's is opened here: the model sees the content once, in
 * one envelope (OpenClaw's), already sanitised by Hookgate's seal (so no marker survives to close
 * OpenClaw's early), with the sender and subject lines kept as its first lines.
 */
export function openclawMessage(action: AgentAction): string {
  if (action.untrusted !== true) return action.message;
  return replaceEnvelopes(action.message, (content, headers) => {
    const kept = headers.filter((line) => KEPT_HEADERS.test(line));
    return kept.length === 0 ? content : `${kept.join('\n')}\n\n${content}`;
  });
}

/**
 * `/hooks/wake`: OpenClaw does not wrap wake text (it becomes a main-session system event), so
 * the text keeps Hookgate's envelope, the only one the model sees.
 */
export function openclawWakeBody(action: WakeAction, fields: OpenClawFields): Record<string, unknown> {
  return { text: action.text, mode: action.mode, ...(fields.agentId === undefined ? {} : { agentId: fields.agentId }) };
}

/** `/hooks/agent`: OpenClaw's fields, within its rules for session keys and destinations; `notes` say what was left out. */
export function openclawAgentBody(action: AgentAction, fields: OpenClawFields): { body: Record<string, unknown>; notes: string[] } {
  const notes: string[] = [];
  const body: Record<string, unknown> = { message: openclawMessage(action), name: action.name, wakeMode: action.wakeMode, deliver: action.deliver };
  if (fields.agentId !== undefined) body['agentId'] = fields.agentId;
  const key = sessionKeyToSend(action.sessionKey, fields);
  if (key.send) body['sessionKey'] = action.sessionKey;
  else if (key.note !== undefined) notes.push(key.note);
  if (action.deliver && action.channel !== 'last' && action.to !== undefined) Object.assign(body, { channel: action.channel, to: action.to });
  else if (action.deliver && action.channel !== 'last') notes.push(`channel "${action.channel}" not sent: OpenClaw takes a channel only with its \`to\``);
  if (action.model !== undefined) body['model'] = action.model;
  if (action.thinking !== undefined) body['thinking'] = action.thinking;
  if (action.timeoutSeconds !== undefined) body['timeoutSeconds'] = Math.max(1, Math.floor(action.timeoutSeconds));
  if (fields.waitForCompletion === true) body['waitForCompletion'] = true;
  return { body, notes };
}

function sessionKeyToSend(key: string, fields: OpenClawFields): { send: boolean; note?: string } {
  const generated = GENERATED_KEY.test(key);
  if (fields.allowRequestSessionKey !== true) {
    return generated ? { send: false } : { send: false, note: 'sessionKey not sent: the target does not allow request session keys (allowRequestSessionKey)' };
  }
  const prefixes = fields.allowedSessionKeyPrefixes ?? ['hook:'];
  if (prefixes.some((prefix) => key.startsWith(prefix))) return { send: true };
  return { send: false, note: `sessionKey not sent: it starts with none of the target's allowedSessionKeyPrefixes (${prefixes.join(', ')})` };
}
