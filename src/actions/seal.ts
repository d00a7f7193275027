import { inspectUntrusted } from '../envelope/envelope.js';
import type { Action, AdmittedAction } from './types.js';

/** A stored action and the suspicious pattern families found in its untrusted content. */
export interface SealedAction {
  action: Action;
  suspicious: string[];
}

/**
 * Wraps an admitted action's untrusted content in the envelope (see src/envelope) and scans it
 * for injection patterns, folding it once for both. Pure apart from the envelope's random id: the
 * store's writer thread runs it before each write, `hookgate try` to show the prompt.
 */
export function sealAction(admitted: AdmittedAction): SealedAction {
  const { envelope, ...action } = admitted;
  if (envelope === undefined) return { action, suspicious: [] };
  if (action.kind === 'agent') {
    const { wrapped, suspicious } = inspectUntrusted(action.message, envelope);
    return { action: { ...action, message: wrapped }, suspicious };
  }
  const { wrapped, suspicious } = inspectUntrusted(action.text, envelope);
  return { action: { ...action, text: wrapped }, suspicious };
}
