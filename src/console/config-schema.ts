import Type from 'typebox';

/** `gateway.console`: the operator console served from the same process (docs/console.md). */
export const ConsoleConfigSchema = Type.Object(
  {
    enabled: Type.Boolean({
      default: true,
      description: 'Serve the operator console. It also needs gateway.auth.token (the login); without one it stays off and a warning is logged.',
    }),
    path: Type.String({
      default: '/console',
      pattern: '^/[A-Za-z0-9._~-]+(/[A-Za-z0-9._~-]+)*$',
      description: 'Where the console is served, e.g. `/console`. Must not be `/` nor overlap hooks.path.',
    }),
    showPayloads: Type.Boolean({
      default: false,
      description: 'Keep each recent request\'s payload and headers for the Requests page, with credentials removed (keys and headers that look like tokens, secrets, signatures or cookies). Off: only metadata is kept.',
    }),
    sessionMinutes: Type.Integer({ minimum: 1, maximum: 10080, default: 720, description: 'How long a console login lasts (the session cookie and its server-side record).' }),
    requestHistory: Type.Integer({
      minimum: 10,
      maximum: 100000,
      default: 1000,
      description: 'How many recent hook requests this process keeps in memory for the Requests page (a ring: the oldest go first; not kept across restarts).',
    }),
  },
  { additionalProperties: false, default: {}, description: 'The operator console in the browser (docs/console.md).' },
);
