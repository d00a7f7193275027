import { inspectEventText, inspectUntrusted } from '../envelope/envelope.js';
import type { Action, AdmittedAction } from './types.js';

/** A stored action and the suspicious pattern families found in its untrusted content. */
export interface SealedAction {
  action: Action;
  suspicious: string[];
  /** Invisible code points removed from the untrusted content before it was scanned and wrapped. */
  invisible: number;
  /**
   * False when the content came from a payload. A wake's text then becomes an untrusted event line,
   * which the heartbeat prompt puts inside its envelope; true only when a mapping opted out.
   */
  trusted: boolean;
}

/**
 * Seals an admitted action's untrusted content (see src/envelope) and scans it for injection
 * patterns, folding it once for both. An agent message gets its own envelope (it is a whole prompt);
 * a wake text is sanitised and marked untrusted, and the heartbeat prompt wraps every untrusted event
 * line of a turn in one envelope, so the security notice is said once per prompt, not once per event.
 * A forwarded wake (docs/forward.md) is wrapped like a message: no heartbeat prompt of ours holds it.
 * Pure apart from the envelope's random id: the store's writer thread runs it before each write,
 * `hookgate try` to show the prompt.
 */
export function sealAction(admitted: AdmittedAction): SealedAction {
  if (admitted.kind === 'notify') return { action: admitted, suspicious: [], invisible: 0, trusted: true };
  const { envelope, ...action } = admitted;
  if (envelope === undefined) return { action, suspicious: [], invisible: 0, trusted: true };
  if (action.kind === 'agent') {
    const { wrapped, suspicious, invisible } = inspectUntrusted(action.message, envelope);
    return { action: { ...action, message: wrapped }, suspicious, invisible, trusted: false };
  }
  // A forwarded wake reaches another gateway's model as it is, not inside this heartbeat's prompt: it gets its own envelope.
  const { wrapped, suspicious, invisible } = action.forward === undefined ? inspectEventText(action.text, envelope) : inspectUntrusted(action.text, envelope);
  return { action: { ...action, text: wrapped }, suspicious, invisible, trusted: false };
}
