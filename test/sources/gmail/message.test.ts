import { describe, expect, it } from 'vitest';
import { bodyText, cutToBytes, toPayloadMessage } from '../../../src/sources/gmail/message.js';
import type { GmailMessagePart } from '../../../src/sources/gmail/gmail-api.js';

const data = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
const part = (mimeType: string, text: string, extra: Partial<GmailMessagePart> = {}): GmailMessagePart => ({ mimeType, filename: '', body: { size: text.length, data: data(text) }, ...extra });

describe('Gmail message bodies', () => {
  it('prefers the text/plain part of a multipart/alternative message', async () => {
    const root = { mimeType: 'multipart/alternative', parts: [part('text/plain', 'plain words'), part('text/html', '<p>html words</p>')] };
    expect(await bodyText(root)).toBe('plain words');
  });

  it('converts HTML to text when there is no text/plain part, dropping tags, scripts and images', async () => {
    const html = '<html><head><style>p{color:red}</style></head><body><p>Hello <b>Ada</b></p><img src="x.png" alt="tracker"><ul><li>one</li></ul></body></html>';
    const text = await bodyText({ mimeType: 'multipart/mixed', parts: [{ mimeType: 'multipart/alternative', parts: [part('text/html', html)] }] });
    expect(text).toContain('Hello Ada');
    expect(text).toContain('one');
    expect(text).not.toMatch(/<|color:red|tracker/);
  });

  it('ignores a text/plain attachment', async () => {
    const root = { mimeType: 'multipart/mixed', parts: [part('text/plain', 'attached file', { filename: 'notes.txt' }), part('text/html', '<p>the body</p>')] };
    expect(await bodyText(root)).toBe('the body');
  });

  it('cuts to maxBytes of UTF-8 without splitting a character', async () => {
    expect(cutToBytes('héllo', 2)).toBe('h'); // é is two bytes: not cut in half
    expect(cutToBytes('😀😀', 5)).toBe('😀');
    expect(cutToBytes('short', 100)).toBe('short');
  });

  it('leaves the body out unless includeBody, and reads headers case-insensitively', async () => {
    const resource = {
      id: 'abc',
      threadId: 'thr',
      snippet: 'snip',
      internalDate: '1795430400000',
      payload: { mimeType: 'text/plain', headers: [{ name: 'FROM', value: 'a@x' }, { name: 'subject', value: 'S' }], body: { data: data('body text') } },
    };
    expect(await toPayloadMessage(resource, { includeBody: false, maxBytes: 10 })).toEqual({ id: 'abc', threadId: 'thr', from: 'a@x', subject: 'S', snippet: 'snip', date: new Date(1795430400000).toISOString() });
    expect((await toPayloadMessage(resource, { includeBody: true, maxBytes: 4 })).body).toBe('body');
  });
});
