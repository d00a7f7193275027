/**
 * Keys of an OpenClaw config file (openclaw.json) that Hookgate accepts and does not use. Each
 * is removed before validation and reported by `hookgate check` (and logged at start) as
 * ignored, one line per key present, with why. Anything not listed stays an unknown-key error,
 * so a typo in Hookgate's own keys is still caught. `*` matches any one key.
 */
export interface IgnoredKey {
  path: string;
  reason: string;
}

const NO_FEATURE = 'an OpenClaw feature Hookgate does not have';

const TOP_LEVEL = [
  'meta', 'wizard', 'env', 'auth', 'browser', 'ui', 'skills', 'plugins', 'tools', 'session', 'messages', 'commands', 'cron',
  'talk', 'web', 'discovery', 'canvasHost', 'diagnostics', 'update', 'bindings', 'broadcast', 'audio', 'approvals', 'memory',
  'secrets', 'nodeHost', 'acp', 'media', 'routing', 'identity',
].map((key) => ({ path: key, reason: NO_FEATURE }));

const GATEWAY = [
  { path: 'gateway/mode', reason: 'Hookgate always runs as a local service' },
  { path: 'gateway/controlUi', reason: 'no control UI' },
  { path: 'gateway/tailscale', reason: 'Tailscale serve/funnel is not managed; bind "tailnet" is' },
  { path: 'gateway/remote', reason: 'no remote gateway mode' },
  { path: 'gateway/reload', reason: 'the config file and transforms are always watched' },
  { path: 'gateway/tls', reason: 'put a TLS-terminating reverse proxy in front' },
  { path: 'gateway/nodes', reason: NO_FEATURE },
  { path: 'gateway/http/endpoints', reason: 'no OpenAI-compatible endpoints are served' },
  { path: 'gateway/auth/mode', reason: 'gateway.auth.token is the only mode' },
  { path: 'gateway/auth/password', reason: 'gateway.auth.token is the only mode' },
  { path: 'gateway/auth/allowTailscale', reason: 'no Tailscale identity auth' },
];

const AGENTS = [
  { path: 'agents/list', reason: 'Hookgate runs one agent, "main"' },
  ...[
    'workspace', 'repoRoot', 'skipBootstrap', 'bootstrapMaxChars', 'userTimezone', 'timeFormat', 'contextTokens', 'cliBackends',
    'memorySearch', 'contextPruning', 'compaction', 'thinkingDefault', 'verboseDefault', 'elevatedDefault', 'blockStreamingDefault',
    'blockStreamingBreak', 'blockStreamingChunk', 'blockStreamingCoalesce', 'humanDelay', 'typingIntervalSeconds', 'typingMode',
    'mediaMaxMb', 'imageModel', 'sandbox', 'subagents',
  ].map((key) => ({ path: `agents/defaults/${key}`, reason: NO_FEATURE })),
  ...['target', 'to', 'prompt', 'model', 'includeReasoning', 'activeHours', 'session'].map((key) => ({
    path: `agents/defaults/heartbeat/${key}`,
    reason: 'the heartbeat uses agents.defaults.model and delivers to the main session\'s last route',
  })),
];

const HOOKS = [{ path: 'hooks/internal', reason: 'internal (event script) hooks are an OpenClaw feature; webhooks are served' }];

const MODELS = [
  { path: 'models/mode', reason: 'providers are exactly those configured (no built-in catalog to merge with)' },
  { path: 'models/providers/*/auth', reason: 'apiKey is sent as a bearer token' },
];

/** OpenClaw channels Hookgate has no delivery for, and per-channel inbound chat settings (Hookgate only sends). */
const OPENCLAW_ONLY_CHANNELS = ['googlechat', 'bluebubbles', 'matrix', 'zalo', 'zalouser', 'nostr', 'line', 'feishu', 'twitch', 'irc', 'nextcloud-talk', 'tlon', 'webchat', 'defaults'];
const INBOUND_CHANNEL_KEYS = [
  'dmPolicy', 'allowFrom', 'groupPolicy', 'groupAllowFrom', 'groups', 'guilds', 'accounts', 'historyLimit', 'dmHistoryLimit',
  'textChunkLimit', 'chunkMode', 'mediaMaxMb', 'replyToMode', 'streamMode', 'actions', 'capabilities', 'configWrites', 'markdown',
  'blockStreaming', 'reactionLevel', 'ackReaction', 'commands', 'dm', 'slashCommand', 'selfChatMode', 'sendReadReceipts', 'mode', 'appToken',
];
const CHANNELS = [
  ...OPENCLAW_ONLY_CHANNELS.map((name) => ({ path: `channels/${name}`, reason: 'not a channel Hookgate delivers to' })),
  ...INBOUND_CHANNEL_KEYS.map((key) => ({ path: `channels/*/${key}`, reason: 'inbound chat settings; Hookgate only sends replies' })),
];

const LOGGING = ['file', 'consoleLevel', 'consoleStyle', 'redactSensitive', 'redactPatterns'].map((key) => ({
  path: `logging/${key}`,
  reason: 'logs are JSON on stdout at logging.level; secrets are always redacted',
}));

export const OPENCLAW_IGNORED_KEYS: readonly IgnoredKey[] = [...TOP_LEVEL, ...GATEWAY, ...AGENTS, ...HOOKS, ...MODELS, ...CHANNELS, ...LOGGING];
