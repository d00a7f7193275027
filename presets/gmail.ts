import { definePreset } from './define.js';
import type { MappingConfig } from '../src/config/mapping-schema.js';
import type { GmailConfig } from '../src/config/gmail-schema.js';

const FROM = '{{default messages[0].from messages[0].sender}}';
const SUBJECT = '{{messages[0].subject}}';

// Optional parts open their line inside the `{{#if}}`, so absent parts leave no empty label and
// the message has no trailing newline.
const MESSAGE = [
  `New email from ${FROM}`,
  `Subject: ${SUBJECT}{{#if messages[0].snippet}}`,
  'Snippet: {{messages[0].snippet}}{{/if}}{{#if messages[0].body}}',
  '',
  '{{truncate messages[0].body 20000}}{{/if}}',
].join('\n');

/** hooks.gmail.maxBytes (the watcher's per-message body cap, written by the gmail setup tool); 20,000 when unset. */
export const DEFAULT_GMAIL_MAX_BYTES = 20_000;
const MAX_GMAIL_BODY_BYTES = 32 * 1024 * 1024;

function gmailMaxBytes(gmail: Record<string, unknown> | undefined): number {
  const value = gmail?.['maxBytes'];
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : DEFAULT_GMAIL_MAX_BYTES;
}

/**
 * OpenClaw's allowance for the gmail path: a notification carries up to 100 messages, each body
 * up to maxBytes (×3 for JSON escaping of non-ASCII text) plus 8 KiB of headers and fields;
 * capped at 32 MiB. 6.5 MiB with the default maxBytes.
 */
export function gmailBodyAllowance(maxBytes: number): number {
  return Math.min(MAX_GMAIL_BODY_BYTES, 100 * (3 * maxBytes + 8192));
}

/**
 * Gmail push notifications as a gateway's gmail watcher posts them:
 * `{ source: "gmail", messages: [{ id, from, subject, snippet, body }] }`. One agent run per
 * message, each in the session of its message id, enveloped as Email with From/Subject.
 */
export const gmailPreset = definePreset({
  name: 'gmail',
  summary: 'POST {hooks.path}/gmail: one agent run per message of a Gmail notification (sender, subject, snippet, body).',
  // Its settings are hooks.gmail's, shared with the Gmail watcher.
  options: [],
  mappings(hooks): MappingConfig[] {
    const gmail: Partial<GmailConfig> = hooks.gmail ?? {};
    const mapping: MappingConfig = {
      id: 'preset:gmail',
      match: { path: 'gmail' },
      action: 'agent',
      wakeMode: 'now',
      name: 'Gmail',
      // No id → no key → the builder gives a fresh session instead of one shared `hook:gmail:`.
      sessionKey: '{{#if messages[0].id}}hook:gmail:{{messages[0].id}}{{/if}}',
      messageTemplate: MESSAGE,
      forEach: 'messages',
      envelope: { source: 'Email', from: FROM, subject: SUBJECT },
    };
    if (gmail.model !== undefined) mapping.model = gmail.model;
    if (gmail.thinking !== undefined) mapping.thinking = gmail.thinking;
    if (gmail.allowUnsafeExternalContent !== undefined) mapping.allowUnsafeExternalContent = gmail.allowUnsafeExternalContent;
    return [mapping];
  },
  bodyAllowance(hooks) {
    return { path: 'gmail', maxBodyBytes: hooks.gmailMaxBodyBytes ?? gmailBodyAllowance(gmailMaxBytes(hooks.gmail)) };
  },
  example: {
    name: 'gmail',
    payload: {
      source: 'gmail',
      messages: [
        {
          id: '18f3a2b4c5d6e7f8',
          from: 'Ada Lovelace <ada@example.com>',
          subject: 'Engine notes',
          snippet: 'Here are the notes on the analytical engine',
          body: 'Here are the notes on the analytical engine.\nBest, Ada',
        },
      ],
    },
    expect: {
      actions: 1,
      kind: 'agent',
      contains: ['New email from Ada Lovelace <ada@example.com>', 'Subject: Engine notes', 'Best, Ada'],
      sessionKey: 'hook:gmail:18f3a2b4c5d6e7f8',
    },
  },
});
