import Type from 'typebox';

/**
 * Where Hookgate keeps what it accepted: a SQLite file (the embedded default, one instance) or a
 * PostgreSQL database that any number of instances share (src/store/postgres/, docs/deployment.md).
 */
export const StorageSchema = Type.Object(
  {
    path: Type.String({ minLength: 1, default: './data/hookgate.sqlite', description: 'SQLite file; relative to the config file. Not with `url`.' }),
    synchronous: Type.Union([Type.Literal('full'), Type.Literal('normal')], {
      default: 'full',
      description: 'SQLite only. `full`: an accepted request survives power loss; `normal`: survives a process crash only (faster).',
    }),
    url: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'PostgreSQL connection URL (`postgres://user:password@host:5432/database`, usually `${DATABASE_URL}`): instances that share it share intake, runs and the main session. Replaces `path`.',
      }),
    ),
    pool: Type.Integer({
      minimum: 2,
      maximum: 200,
      default: 10,
      description: 'PostgreSQL only: connections this instance opens at most (instances × pool must stay below the server’s max_connections).',
    }),
    schema: Type.String({
      pattern: '^[a-z_][a-z0-9_]{0,62}$',
      default: 'public',
      description: 'PostgreSQL only: the schema that holds Hookgate’s tables (created when missing).',
    }),
    leaseSeconds: Type.Integer({
      minimum: 1,
      maximum: 3600,
      default: 30,
      description:
        'PostgreSQL only: how long an instance holds a run it executes without renewing the claim (renewed every third of it); a run whose instance died is taken over by another after it. Instances also look for such runs every half of it.',
    }),
  },
  { additionalProperties: false, default: {}, description: 'The store: a SQLite file (default) or a shared PostgreSQL database.' },
);
