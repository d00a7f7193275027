import { defineSenderPreset, lines, type NoiseFilter } from './sender.js';


const NOT_BOT: NoiseFilter = {
  reason: 'Messages by bots and apps (your agent\'s own replies among them) would start a reply loop.',
  keep: { all: [{ field: 'payload.event.bot_id', exists: false }, { field: 'payload.event.subtype', notEquals: 'bot_message' }] },
};
const PLAIN_MESSAGE: NoiseFilter = {
  reason: 'Edits, deletions, joins and other `subtype`s of `message` are not someone talking to the agent.',
  keep: { any: [{ field: 'payload.event.subtype', exists: false }, { field: 'payload.event.subtype', in: ['file_share', 'thread_broadcast'] }] },
};

const THREAD = '{{default event.thread_ts event.ts}}';

/** A message the app posted (chat.postMessage answers its channel and ts); its bot_id filter catches it too, this says why. */
const OWN_MESSAGE = { channel: 'slack', id: '{{#if event.ts}}{{event.channel}}:{{event.ts}}{{/if}}', to: '{{event.channel}}', text: '{{event.text}}' };

const SOMEONE_IN_A_CONVERSATION: NoiseFilter = {
  reason: 'A message event without a user or a conversation id (Slack sends both) has no one to answer.',
  keep: { all: [{ field: 'payload.event.user', regex: '.' }, { field: 'payload.event.channel', regex: '.' }] },
};

const MENTION = lines(
  'Slack: <@{{event.user}}> mentioned the app in channel {{event.channel}}{{#if event.thread_ts}} (in a thread){{/if}}',
  'Message {{event.ts}}{{#if team_id}} in workspace {{team_id}}{{/if}}{{#if event.text}}',
  '',
  '{{excerpt event.text 4000}}{{/if}}',
);

const DIRECT_MESSAGE = lines(
  'Slack: direct message from <@{{event.user}}> (conversation {{event.channel}})',
  'Message {{event.ts}}{{#if team_id}} in workspace {{team_id}}{{/if}}{{#if event.files.[0].name}}',
  'Files: {{#each event.files}}{{#if @index}}, {{/if}}{{name}}{{/each}}{{/if}}{{#if event.text}}',
  '',
  '{{excerpt event.text 4000}}{{/if}}',
);

const SLASH_COMMAND = lines(
  'Slack: {{default user_name user_id}} ran {{command}} in {{#if channel_name}}#{{channel_name}}{{else}}channel {{channel_id}}{{/if}}{{#if team_domain}} ({{team_domain}}){{/if}}',
  '{{#if text}}Text: {{oneline text 4000}}{{else}}(no text after the command){{/if}}',
);

const FALLBACK =
  'Slack {{pick (default event.type type)}}{{#if event.subtype}} ({{pick event.subtype}}){{/if}} event{{#if (default event_id trigger_id)}} {{default event_id trigger_id}}{{/if}}{{#if team_id}} in workspace {{team_id}}{{/if}}{{#if (default event.event_ts action_ts)}} at {{default event.event_ts action_ts}}{{/if}}{{#if (default event.text message.text)}}\nText: {{oneline (default event.text message.text) 2000}}{{/if}}';

/** Slack does not document a largest delivery; events and commands are small, 1 MiB leaves room for long messages with files. */
const SLACK_MAX_BODY_BYTES = 1024 * 1024;

/** A Slack app's Events API (app mentions, direct messages) and slash commands (X-Slack-Signature). */
export const slackPreset = defineSenderPreset({
  name: 'slack',
  title: 'Slack',
  scheme: 'slack',
  summary: 'POST {hooks.path}/slack: app mentions, direct messages to the app (Events API) and slash commands, one session per thread or conversation.',
  replyChannel: 'slack',
  maxBodyBytes: SLACK_MAX_BODY_BYTES,
  defaultEvents: ['app_mention', 'message', 'slash_command'],
  groups: [
    {
      id: 'app_mention',
      handles: ['app_mention'],
      message: MENTION,
      // A mention and the replies in its thread are one conversation.
      sessionKey: `{{#if event.channel}}hook:slack:{{team_id}}:{{event.channel}}:${THREAD}{{/if}}`,
      // In the mention's thread (a new one under a top-level mention).
      replyTo: `{{#if event.channel}}{{event.channel}}#${THREAD}{{/if}}`,
      ownMessages: OWN_MESSAGE,
      filters: [SOMEONE_IN_A_CONVERSATION, NOT_BOT],
    },
    {
      id: 'message',
      handles: ['message'],
      message: DIRECT_MESSAGE,
      sessionKey: '{{#if event.channel}}hook:slack:{{team_id}}:{{event.channel}}{{/if}}',
      replyTo: '{{#if event.channel}}{{event.channel}}{{#if event.thread_ts}}#{{event.thread_ts}}{{/if}}{{/if}}',
      ownMessages: OWN_MESSAGE,
      filters: [
        {
          reason: 'Only direct messages to the app: channel messages reach the app only where it was added, and a mention there already arrives as `app_mention`.',
          keep: { field: 'payload.event.channel_type', equals: 'im' },
        },
        SOMEONE_IN_A_CONVERSATION,
        NOT_BOT,
        PLAIN_MESSAGE,
      ],
    },
    // Last: a slash command carries no event type, so the groups above pass it over by `events`.
    {
      id: 'slash_command',
      handles: ['slash_command'],
      eventless: { field: 'payload.command', startsWith: '/' },
      message: SLASH_COMMAND,
      sessionKey: '{{#if channel_id}}hook:slack:{{team_id}}:{{channel_id}}:{{user_id}}{{/if}}',
      // Answered to whoever ran it, in that conversation, whether or not the app is a member (Slack accepts it for 30 minutes).
      replyTo: '{{response_url}}',
    },
  ],
  fallback: {
    message: FALLBACK,
    sessionKey: '',
  },
  example: {
    name: 'slack',
    payload: {
      type: 'event_callback',
      team_id: 'T0001',
      event_id: 'Ev0001',
      event: { type: 'app_mention', user: 'U0042', text: '<@U0BOT> summarise the release notes', ts: '1700000000.000100', channel: 'C0007' },
    },
    expect: {
      actions: 1,
      kind: 'agent',
      contains: ['Slack: <@U0042> mentioned the app in channel C0007', 'summarise the release notes'],
      sessionKey: 'hook:slack:T0001:C0007:1700000000.000100',
    },
  },
});
