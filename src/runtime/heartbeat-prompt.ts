import { wrapUntrusted, type EnvelopeMeta } from '../envelope/envelope.js';

/** One line of a heartbeat prompt and whether it may stand outside the envelope. */
export interface PromptLine {
  line: string;
  trusted: boolean;
}

/** What the envelope around a heartbeat's untrusted lines says about them. */
export const HEARTBEAT_ENVELOPE_META: EnvelopeMeta = {
  source: 'Webhook',
  task: 'System events received since the last heartbeat, one per line',
};

/**
 * The user message of a heartbeat turn. Every line derived from a payload (wake text, run summaries,
 * which carry a request's name and a reply or error about it) goes inside one envelope, sanitised
 * again here whatever the store holds, so the security notice is said once per prompt. Only text a
 * mapping declared trusted (`allowUnsafeExternalContent`) stands before it, in arrival order.
 */
export function heartbeatPrompt(lines: readonly PromptLine[]): string {
  const trusted = lines.filter((entry) => entry.trusted).map((entry) => entry.line);
  const untrusted = lines.filter((entry) => !entry.trusted).map((entry) => entry.line);
  if (untrusted.length === 0) return trusted.join('\n');
  return [...trusted, wrapUntrusted(untrusted.join('\n'), HEARTBEAT_ENVELOPE_META)].join('\n');
}
