import type { ForwardedAction } from './types.js';
import { documentOrigin } from '../actions/handoff.js';

export { documentOrigin, type DocumentOrigin } from '../actions/handoff.js';

/** The document's version: a receiver checks it before reading the rest. */
export const ACTION_DOCUMENT_TYPE = 'hookgate.action.v1';

/**
 * `hookgate.action.v1`: an action as an `http` target receives it (and a relay's consumer, and a
 * Hermes route's template). `id` is Hookgate's run id, the same on every attempt, so a receiver
 * dedupes on it. The text is what the model should read: inside Hookgate's untrusted-content
 * envelope when it came from a payload (`untrusted: true`).
 */
export function actionDocument(id: string, action: ForwardedAction): Record<string, unknown> {
  const head = { type: ACTION_DOCUMENT_TYPE, id, kind: action.kind };
  const tail = { origin: documentOrigin(action.origin), untrusted: action.untrusted === true };
  if (action.kind === 'wake') return { ...head, text: action.text, mode: action.mode, ...tail };
  const optional = { to: action.to, model: action.model, thinking: action.thinking, timeoutSeconds: action.timeoutSeconds };
  const present = Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined));
  const fields = { message: action.message, name: action.name, sessionKey: action.sessionKey, wakeMode: action.wakeMode, deliver: action.deliver, channel: action.channel };
  return { ...head, ...fields, ...present, ...tail };
}
