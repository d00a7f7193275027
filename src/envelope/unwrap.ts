import { SECURITY_NOTICE, endMarker, startMarker } from './envelope.js';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A marker as a pattern, with `idPattern` where the id goes. */
function markerPattern(marker: (id: string) => string, idPattern: string): string {
  const [before = '', after = ''] = marker('\u0000').split('\u0000');
  return `${escapeRegExp(before)}${idPattern}${escapeRegExp(after)}`;
}

const NOTICE = escapeRegExp(SECURITY_NOTICE);
/**
 * One envelope as envelope.ts assembles it: the notice (optional: a prompt may state it once for
 * several envelopes), the start marker, header lines up to `---`, the content, and the end marker
 * carrying the same id. The content was sanitised when wrapped, so it holds no end marker form
 * and the first end marker with the id is the real one.
 */
const ENVELOPE = new RegExp(
  `(?:${NOTICE}\\n)?${markerPattern(startMarker, '([0-9a-f]+)')}\\n((?:[^\\n]*\\n)*?)---\\n([\\s\\S]*?)\\n${markerPattern(endMarker, '\\1')}`,
  'g',
);
const LONE_NOTICE = new RegExp(`${NOTICE}\\n?`, 'g');

/**
 * The text with every envelope replaced by the content it wraps, and any remaining security
 * notice removed: what a person wrote, for the echo provider's replies. Never used on what a
 * model receives — that stays enveloped.
 */
export function unwrapEnvelopes(text: string): string {
  return replaceEnvelopes(text, (content) => content);
}

/**
 * Every envelope replaced by what `open` makes of its content and its header lines (`Source: …`,
 * `From: …`, sanitised when wrapped), and any remaining security notice removed. For text handed
 * to a gateway that wraps it in its own envelope (docs/forward.md): the model sees one, not two.
 */
export function replaceEnvelopes(text: string, open: (content: string, headers: string[]) => string): string {
  if (!text.includes('<<<') && !text.includes('SECURITY NOTICE')) return text;
  const replaced = text.replace(ENVELOPE, (_match, _id: string, headers: string, content: string) => open(content, headers.split('\n').filter((line) => line !== '')));
  return replaced.replace(LONE_NOTICE, '');
}
