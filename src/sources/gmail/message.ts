import type { GmailMessagePart, GmailMessageResource } from './gmail-api.js';

/** One message as the gmail preset reads it (`messages[i]` of the payload). */
export interface GmailPayloadMessage {
  id: string;
  threadId: string;
  from: string;
  subject: string;
  snippet: string;
  date: string;
  body?: string;
}

export interface GmailPayload {
  source: 'gmail';
  messages: GmailPayloadMessage[];
  [key: string]: unknown;
}

export interface BodyOptions {
  includeBody: boolean;
  maxBytes: number;
}

/** Header values, snippet and body of a users.messages.get resource; the body only when asked for. */
export async function toPayloadMessage(resource: GmailMessageResource, options: BodyOptions): Promise<GmailPayloadMessage> {
  const headers = resource.payload?.headers ?? [];
  const header = (name: string) => headers.find((item) => item.name.toLowerCase() === name)?.value ?? '';
  const message: GmailPayloadMessage = {
    id: resource.id,
    threadId: resource.threadId ?? '',
    from: header('from'),
    subject: header('subject'),
    snippet: resource.snippet ?? '',
    date: header('date') || internalDate(resource.internalDate),
  };
  if (options.includeBody) message.body = cutToBytes(await bodyText(resource.payload), options.maxBytes);
  return message;
}

/** The first text/plain part that is not an attachment, else the first text/html one as text. */
export async function bodyText(root: GmailMessagePart | undefined): Promise<string> {
  if (root === undefined) return '';
  const plain = findPart(root, 'text/plain');
  if (plain !== undefined) return decodePart(plain);
  const html = findPart(root, 'text/html');
  if (html === undefined) return '';
  const { convert } = await import('html-to-text'); // loaded on first use: only Gmail needs it
  return convert(decodePart(html), { wordwrap: false, selectors: [{ selector: 'img', format: 'skip' }] });
}

function findPart(part: GmailMessagePart, mimeType: string): GmailMessagePart | undefined {
  const isAttachment = (part.filename ?? '') !== '' || part.body?.attachmentId !== undefined;
  if (part.mimeType?.toLowerCase() === mimeType && !isAttachment && part.body?.data !== undefined) return part;
  for (const child of part.parts ?? []) {
    const found = findPart(child, mimeType);
    if (found !== undefined) return found;
  }
  return undefined;
}

function decodePart(part: GmailMessagePart): string {
  return Buffer.from(part.body?.data ?? '', 'base64url').toString('utf8');
}

/** At most `maxBytes` of UTF-8, never splitting a character. */
export function cutToBytes(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1; // back to a character's first byte
  return bytes.subarray(0, end).toString('utf8');
}

function internalDate(value: string | undefined): string {
  const ms = Number(value);
  return value !== undefined && Number.isFinite(ms) ? new Date(ms).toISOString() : '';
}
