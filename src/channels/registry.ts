import { discordChannel } from './discord.js';
import { githubChannel } from './github.js';
import { gitlabChannel } from './gitlab.js';
import { imessageChannel } from './imessage.js';
import { linearChannel } from './linear.js';
import { logChannel } from './log.js';
import { mattermostChannel } from './mattermost.js';
import { msteamsChannel } from './msteams.js';
import { signalChannel } from './signal.js';
import { slackChannel } from './slack.js';
import { telegramChannel } from './telegram.js';
import { whatsappChannel } from './whatsapp.js';

/**
 * The explicit registry of channels: a new channel is one file and one line here. Kept as a tuple
 * so the config schema (config-schema.ts) gets a precise static type per channel block. It lives
 * apart from index.ts (which builds channels from config) so the schema can read it without a cycle.
 */
export const CHANNEL_REGISTRY = [
  logChannel,
  telegramChannel,
  discordChannel,
  slackChannel,
  mattermostChannel,
  signalChannel,
  whatsappChannel,
  msteamsChannel,
  imessageChannel,
  githubChannel,
  gitlabChannel,
  linearChannel,
] as const;
