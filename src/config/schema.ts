import Type, { type Static } from 'typebox';
import { MappingSchema } from './mapping-schema.js';
import { PresetListSchema } from './preset-schema.js';
import { ProviderConfigSchema } from '../providers/config-schema.js';
import { ChannelsConfigSchema } from '../channels/config-schema.js';
import { ConsoleConfigSchema } from '../console/config-schema.js';
import { GmailSchema } from './gmail-schema.js';
import { StorageSchema } from './storage-schema.js';
import { DefaultsLimitFields } from './limits-schema.js';
import { TargetsConfigSchema } from '../forward/config-schema.js';

/**
 * The one source of truth for the configuration file. Every field has a description (the
 * configuration reference in docs/configuration.md is checked against it) and every object
 * refuses unknown keys, so a typo is an error instead of a silently ignored setting.
 */
const HttpLimitsSchema = Type.Object(
  {
    headersTimeoutMs: Type.Integer({ minimum: 100, maximum: 600000, default: 10000, description: 'Request line and headers must arrive within this, else the connection is closed (slowloris).' }),
    requestTimeoutMs: Type.Integer({ minimum: 100, maximum: 3600000, default: 60000, description: 'The whole request (headers and body) must arrive within this, else 408 and close.' }),
    keepAliveTimeoutMs: Type.Integer({ minimum: 0, maximum: 600000, default: 5000, description: 'An idle keep-alive connection is closed after this.' }),
    maxHeaderBytes: Type.Integer({ minimum: 1024, maximum: 1048576, default: 16384, description: 'Largest request line plus headers; larger gets 431 (answered by node:http itself).' }),
    maxConnections: Type.Integer({ minimum: 1, maximum: 1000000, default: 1024, description: 'Open connections at most; further ones are closed at once.' }),
  },
  { additionalProperties: false, default: {}, description: 'Limits of the HTTP server against slow and abusive clients.' },
);

const GatewaySchema = Type.Object(
  {
    bind: Type.String({ default: '127.0.0.1', description: 'Address to listen on. Keep loopback unless a trusted reverse proxy or tailnet is in front.' }),
    port: Type.Integer({ minimum: 0, maximum: 65535, default: 8787, description: 'TCP port (0 picks a free one).' }),
    auth: Type.Optional(
      Type.Object(
        { token: Type.Optional(Type.String({ minLength: 1, description: "The service's own token (admin endpoints such as /metrics). Must differ from hooks.token." })) },
        { additionalProperties: false, description: "The service's own authentication." },
      ),
    ),
    trustedProxies: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description: 'Peer addresses (IPs) of reverse proxies whose X-Forwarded-For is believed for the client address.',
    }),
    shutdownGraceMs: Type.Integer({ minimum: 0, default: 10000, description: 'How long SIGTERM waits for in-flight requests before closing connections.' }),
    http: HttpLimitsSchema,
    console: ConsoleConfigSchema,
  },
  { additionalProperties: false, default: {}, description: 'The HTTP listener.' },
);

const ThrottleSchema = Type.Object(
  {
    maxFailures: Type.Integer({ minimum: 1, default: 20, description: 'Failed auth attempts from one client allowed within windowSeconds.' }),
    windowSeconds: Type.Integer({ minimum: 1, default: 60, description: 'Window over which failures are counted; also how long the first block lasts.' }),
    maxBlockSeconds: Type.Integer({
      minimum: 1,
      default: 3600,
      description:
        'Longest block. After a block, each further failure blocks again for twice the previous block, up to this; a quiet address is forgotten after it.',
    }),
  },
  {
    additionalProperties: false,
    default: {},
    description:
      'Failed-auth throttling per client address, an IPv6 client counted by its /64 (hooks, GET /metrics, the console login): while blocked, every request gets 429 with Retry-After, the right token included.',
  },
);

const TransformLimitsSchema = Type.Object(
  {
    memoryMb: Type.Integer({ minimum: 8, maximum: 1024, default: 32, description: 'Heap limit of one transform isolate, in MiB.' }),
    timeoutMs: Type.Integer({ minimum: 10, maximum: 60000, default: 1000, description: 'Time limit of one transform call, async work included.' }),
    workers: Type.Integer({
      minimum: 1,
      maximum: 16,
      default: 2,
      description:
        'Most sandbox worker processes. The first starts with the service; another starts when calls of one module have waited 200 ms for every running worker to have room, ' +
        'and an extra worker without calls for workerIdleSeconds stops.',
    }),
    workerIdleSeconds: Type.Integer({
      minimum: 1,
      maximum: 86400,
      default: 60,
      description: 'Seconds without a call after which a sandbox worker beyond the first stops (about 60 MB of memory each).',
    }),
    isolateBudgetMb: Type.Integer({
      minimum: 0,
      maximum: 65536,
      default: 32,
      description:
        'Heap (MiB, V8 total heap size of each isolate) of the transform isolates one sandbox worker keeps between calls. Past it, the least recently used ' +
        'are disposed; their next call creates a fresh isolate and runs the module\'s top level again (~15 ms of CPU on that call). The most recently used is always kept. ' +
        'A small module\'s isolate has a ~2.8 MiB heap and costs ~2.2 MB of RSS.',
    }),
    isolateIdleSeconds: Type.Integer({
      minimum: 0,
      maximum: 86400,
      default: 300,
      description: 'Seconds without a call after which a module\'s isolate is disposed (its next call re-creates it). 0: only isolateBudgetMb disposes.',
    }),
    workerRssMb: Type.Optional(
      Type.Integer({
        minimum: 64,
        maximum: 65536,
        description:
          'Resident memory (MiB) past which a sandbox worker process is killed and replaced: checked on every answer and every 200 ms while calls run (Linux). ' +
          'Catches memory outside the isolate heap that memoryMb cannot bound. Default 256 + memoryMb.',
      }),
    ),
    console: Type.Boolean({
      default: false,
      description: "Log transforms' console.* lines as `transform.console` events. Off by default: they usually carry payload text, which the log otherwise never holds.",
    }),
  },
  { additionalProperties: false, default: {}, description: 'Limits of the transform sandbox.' },
);

const HooksSchema = Type.Object(
  {
    enabled: Type.Boolean({ default: false, description: 'Turns the webhook endpoints on. Off: no hook routes (404), /healthz still answers.' }),
    token: Type.Optional(Type.String({ minLength: 1, description: 'Shared secret every hook request must carry. Required when enabled.' })),
    path: Type.String({ default: '/hooks', description: 'Path prefix of the endpoints; normalised, may not be `/`.' }),
    maxBodyBytes: Type.Integer({ minimum: 1, maximum: 64 * 1024 * 1024, default: 262144, description: 'Largest accepted body; larger gets 413.' }),
    bodyTimeoutMs: Type.Integer({ minimum: 100, maximum: 600000, default: 10000, description: 'A body not fully received within this time gets 408.' }),
    maxWaitSeconds: Type.Integer({
      minimum: 1,
      maximum: 3600,
      default: 120,
      description: 'Longest time `waitForCompletion: true` on /agent holds the answer (never past the run\'s own timeout); past it the answer is the usual 202.',
    }),
    bodyBudgetBytes: Type.Integer({
      minimum: 1,
      maximum: 1024 * 1024 * 1024,
      default: 64 * 1024 * 1024,
      description:
        'Bytes of request bodies held in memory at once, across all hook requests. A request is charged what its body has delivered so far, growing as bytes arrive, until its answer ' +
        '(a compressed body on a token-checked path: its path\'s body limit, the most it may inflate to). A chunk past the budget first cuts bodies that stalled (incomplete, under 64 KiB over the last second or two, arriving for a second or more: 408 BODY_TIMEOUT), slowest first; if it still does not fit it gets 503 SERVER_BUSY with Retry-After: 1. ' +
        'Bounds the server\'s heap under bursts of large bodies (docs/performance.md); bodies not sent yet cost nothing, so slow senders cannot hold it (docs/security.md).',
    }),
    bodyBudgetPerClientBytes: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1024 * 1024 * 1024,
        description:
          'Share of hooks.bodyBudgetBytes one client address (an IPv6 client: its /64) may hold with bodies read before their sender is authenticated (signed paths, where the signature covers the body). ' +
          'Past it that client gets 503 SERVER_BUSY while other senders still get in. Default a quarter of bodyBudgetBytes. Behind a reverse proxy, set gateway.trustedProxies so each client is its own address.',
      }),
    ),
    minBodyBytesPerSecond: Type.Integer({
      minimum: 0,
      maximum: 1024 * 1024 * 1024,
      default: 1024,
      description:
        'Least rate at which a body must arrive, judged over consecutive 2-second windows: a body still incomplete at the end of a window that brought fewer than 2 × this many bytes gets 408 BODY_TIMEOUT (on a signed path, counted as a failed authentication), so a sender that stalls releases what it holds. 0: only bodyTimeoutMs applies.',
    }),
    maxJsonDepth: Type.Integer({ minimum: 1, maximum: 10000, default: 64, description: 'Deepest nesting of arrays/objects accepted in a body; deeper gets 400.' }),
    idempotencyTtlHours: Type.Number({ exclusiveMinimum: 0, default: 24, description: 'How long an Idempotency-Key and its first response are kept.' }),
    throttle: ThrottleSchema,
    presets: PresetListSchema,
    transformsDir: Type.Optional(
      Type.String({ minLength: 1, description: 'Directory of transform modules; relative to the config file. Default `hooks/transforms` when a mapping has a transform.' }),
    ),
    transformLimits: TransformLimitsSchema,
    mappings: Type.Array(MappingSchema, { default: [], description: 'Custom hooks, tried in order; first match wins.' }),
    gmail: Type.Optional(GmailSchema),
    gmailMaxBodyBytes: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 64 * 1024 * 1024,
        description:
          'Largest body on the gmail preset\'s path when the preset is enabled. Default min(32 MiB, 100 × (3 × hooks.gmail.maxBytes + 8192)), 6.5 MiB with maxBytes 20000 (as OpenClaw); other paths keep maxBodyBytes.',
      }),
    ),
    allowRequestSessionKey: Type.Boolean({
      default: true,
      description: 'Whether a POST /agent body may choose its `sessionKey` (within allowedSessionKeyPrefixes). false: refused with 400, as OpenClaw by default.',
    }),
    allowedSessionKeyPrefixes: Type.Array(Type.String({ minLength: 1 }), {
      minItems: 1,
      default: ['hook:'],
      description: 'A session key from a request, a mapping template or a transform must start with one of these; the main session is never reachable.',
    }),
    defaultSessionKey: Type.Optional(
      Type.String({ minLength: 1, description: 'Session of agent runs that name none (all such runs share it). Default: a fresh `hook:<uuid>` per run.' }),
    ),
    allowedAgentIds: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description: 'Agent ids a request or mapping may name (`*` = any). Hookgate runs one agent, `main`: another id is refused.',
      }),
    ),
    compat: Type.Object(
      {
        openclawHeaders: Type.Boolean({ default: false, description: 'Accept `x-openclaw-token` as an alias of `x-hookgate-token`.' }),
      },
      { additionalProperties: false, default: {}, description: 'Switches for clients written for OpenClaw.' },
    ),
  },
  { additionalProperties: false, default: {}, description: 'The webhook ingress.' },
);

const ModelEntrySchema = Type.Union([
  Type.String({ minLength: 1, description: 'A `provider/model` id.' }),
  Type.Object(
    {
      id: Type.String({ minLength: 1, description: 'A `provider/model` id.' }),
      alias: Type.Optional(Type.String({ minLength: 1, description: 'Short name usable as `model`.' })),
    },
    { additionalProperties: false },
  ),
]);

/** OpenClaw's catalog shape: `{ "<provider/model>": { alias?, … } }`; keys other than alias are reported as ignored. */
const ModelMapSchema = Type.Record(
  Type.String({ minLength: 1 }),
  Type.Object({ alias: Type.Optional(Type.String({ minLength: 1, description: 'Short name usable as `model`.' })) }, { additionalProperties: true }),
);

const DefaultModelSchema = Type.Union(
  [
    Type.String({ minLength: 1 }),
    Type.Object(
      {
        primary: Type.String({ minLength: 1, description: 'The model of runs without an override.' }),
        fallbacks: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'Accepted for OpenClaw configs; Hookgate does not fall back (reported by check).' })),
      },
      { additionalProperties: false },
    ),
  ],
  { default: 'echo/echo', description: 'Model of runs without an override: `provider/model` or an alias, or `{ primary, fallbacks? }`.' },
);

const AgentDefaultsSchema = Type.Object(
  {
    model: DefaultModelSchema,
    models: Type.Optional(
      Type.Union([Type.Array(ModelEntrySchema), ModelMapSchema], {
        description: 'If set, the allow-list (and aliases) of model overrides: ids, `{id, alias}` entries, or OpenClaw\'s map `{ "<provider/model>": { alias? } }`.',
      }),
    ),
    timeoutSeconds: Type.Number({ exclusiveMinimum: 0, default: 600, description: 'Default maximum duration of an agent run.' }),
    forward: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'A target (`targets.<name>`) every wake and agent action is handed to instead of running here, unless its mapping names another: a pure front door. docs/forward.md.',
      }),
    ),
    maxConcurrent: Type.Integer({ minimum: 1, maximum: 256, default: 4, description: 'Agent runs executing at once.' }),
    ...DefaultsLimitFields,
    heartbeat: Type.Object(
      {
        every: Type.String({ default: '30m', pattern: '^[0-9]+(ms|s|m|h)$', description: 'Period of the main-session heartbeat, e.g. 30m, 1h, 45s.' }),
        ackMaxChars: Type.Integer({ minimum: 0, default: 300, description: 'A reply that is only HEARTBEAT_OK within this length delivers nothing.' }),
        promptBudgetChars: Type.Integer({ minimum: 256, default: 16000, description: 'Most event text one heartbeat takes; the rest waits for the next.' }),
      },
      { additionalProperties: false, default: {}, description: 'The main-session heartbeat.' },
    ),
    delivery: Type.Optional(
      Type.Object(
        {
          channel: Type.String({ minLength: 1, description: 'Channel used for `last` before any delivery happened.' }),
          to: Type.Optional(Type.String({ minLength: 1, description: 'Recipient on that channel.' })),
        },
        { additionalProperties: false, description: 'Default delivery route.' },
      ),
    ),
  },
  { additionalProperties: false, default: {}, description: 'Defaults for agent runs.' },
);

export const ConfigSchema = Type.Object(
  {
    gateway: GatewaySchema,
    hooks: HooksSchema,
    agents: Type.Object({ defaults: AgentDefaultsSchema }, { additionalProperties: false, default: {}, description: 'Agent settings.' }),
    models: Type.Object(
      {
        providers: Type.Record(Type.String({ pattern: '^[a-z0-9][a-z0-9_-]*$' }), ProviderConfigSchema, {
          default: {},
          description: 'Model providers by id; `echo` is built in.',
        }),
      },
      { additionalProperties: false, default: {}, description: 'Model providers.' },
    ),
    channels: ChannelsConfigSchema,
    targets: TargetsConfigSchema,
    storage: StorageSchema,
    logging: Type.Object(
      {
        level: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)), {
          default: 'info',
          description: 'Log level.',
        }),
      },
      { additionalProperties: false, default: {}, description: 'Logging.' },
    ),
  },
  { additionalProperties: false },
);

export type Config = Static<typeof ConfigSchema>;
