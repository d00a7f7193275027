import { isAscii } from 'node:buffer';
import { HookError } from '../errors.js';

/** How a body is decoded: always as UTF-8; `asciiOnly` when its declared charset agrees with UTF-8 on ASCII bytes only. */
export interface BodyCharset {
  /** The charset as declared (lower-cased), or `utf-8` when none is. */
  name: string;
  asciiOnly: boolean;
}

const UTF8 = new Set(['utf-8', 'utf8']);
/** Charsets whose ASCII bytes mean what they mean in UTF-8; any other byte would be decoded differently. */
const ASCII_COMPATIBLE = new Set(['us-ascii', 'ascii', 'iso-8859-1', 'iso8859-1', 'iso_8859-1', 'latin1']);
/** A charset is echoed in the refusal; a longer one is cut there. */
const SHOWN_CHARS = 40;

/**
 * What the Content-Type's `charset` parameter (any case, quoted or not) lets the body be read as.
 * Bodies are decoded as UTF-8 only (RFC 8259 §8.1: JSON exchanged between systems is UTF-8), so a
 * charset that would decode the same bytes differently is refused rather than guessed at:
 * UTF-16 read as UTF-8 is garbage, and ISO-8859-1 read as UTF-8 turns every accented letter into
 * U+FFFD. US-ASCII and ISO-8859-1 are read when every byte is ASCII, where all three agree.
 */
export function bodyCharset(contentType: string): BodyCharset | HookError {
  let charset: BodyCharset = { name: 'utf-8', asciiOnly: false };
  for (const match of contentType.matchAll(/;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/gi)) {
    const name = (match[1] ?? match[2] ?? '').trim().toLowerCase();
    if (UTF8.has(name)) continue;
    if (!ASCII_COMPATIBLE.has(name)) {
      return new HookError('UNSUPPORTED_MEDIA_TYPE', `request body charset "${name.slice(0, SHOWN_CHARS)}" is not supported: send UTF-8 (charset=utf-8, or none)`, {
        closeConnection: true,
      });
    }
    charset = { name, asciiOnly: true };
  }
  return charset;
}

/** Refuses a body whose declared charset is read only when it is all ASCII, and is not. */
export function checkAscii(charset: BodyCharset, body: Buffer | string): void {
  if (!charset.asciiOnly) return;
  const ascii = typeof body === 'string' ? !/[^\x00-\x7f]/.test(body) : isAscii(body);
  if (!ascii) {
    throw new HookError('UNSUPPORTED_MEDIA_TYPE', `request body charset "${charset.name}" is decoded only when every byte is ASCII: send UTF-8 (charset=utf-8, or none)`);
  }
}
