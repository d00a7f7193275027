import { sanitizeUntrusted } from '../envelope/sanitize.js';
import type { FinishedStatus } from '../store/port.js';

/** Longest summary body, in code points: the main session gets a line, not the whole reply. */
export const SUMMARY_MAX_CHARS = 500;

/**
 * The line a finished run posts into the main session: `Hook <name>: <reply>` when ok,
 * `Hook <name> (<status>): <reason>` otherwise; one line, the body cut at SUMMARY_MAX_CHARS.
 * The name comes from the request (or a template over the payload), the reply or error may quote
 * it: the whole line goes through the envelope's sanitiser, as any payload text does (the heartbeat
 * prompt also puts it inside its envelope). A prefix of sanitised text holds no marker form, so the
 * cut cannot make one.
 */
export function runSummary(name: string, status: FinishedStatus, detail: string): string {
  const label = singleLine(name) || 'agent';
  const body = truncate(singleLine(detail), SUMMARY_MAX_CHARS) || (status === 'ok' ? '(empty reply)' : '(no reason given)');
  return sanitizeUntrusted(status === 'ok' ? `Hook ${label}: ${body}` : `Hook ${label} (${status}): ${body}`);
}

/** Collapses every run of whitespace (newlines included) into one space. */
export function singleLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** At most max code points; a cut text ends with an ellipsis (within the limit). */
export function truncate(text: string, max: number): string {
  const points = Array.from(text);
  if (points.length <= max) return text;
  return `${points.slice(0, Math.max(0, max - 1)).join('')}…`;
}
