// Placeholder until the channel registry lands: the spec's channel names.
export const CHANNEL_NAMES = ['whatsapp', 'telegram', 'discord', 'slack', 'mattermost', 'signal', 'imessage', 'msteams', 'log'] as const;

const ALIASES: Record<string, string> = { teams: 'msteams', imsg: 'imessage' };

/** The canonical channel name for what a user typed (`last`, a registry name or an alias), or undefined. */
export function normalizeChannelName(input: string): string | undefined {
  const lower = input.trim().toLowerCase();
  const name = ALIASES[lower] ?? lower;
  if (name === 'last') return name;
  return (CHANNEL_NAMES as readonly string[]).includes(name) ? name : undefined;
}
