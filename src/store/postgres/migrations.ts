/**
 * The PostgreSQL schema, in steps applied in order inside one transaction each; the table
 * `hookgate_migrations` records which ran. Append only: never edit a migration that has shipped.
 * The tables mirror the SQLite ones (src/store/migrations.ts) plus what sharing needs: run leases
 * (`claimed_by`, `lease_until`) and named leases (`leases`: the heartbeat's leader).
 * Times are milliseconds since the epoch (BIGINT), like SQLite's, so both adapters return the same rows.
 */
export const POSTGRES_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE events (
    id           BIGSERIAL PRIMARY KEY,
    created_at   BIGINT  NOT NULL,
    text         TEXT    NOT NULL,             -- what the main session will read (enveloped when untrusted)
    mode         TEXT    NOT NULL,             -- now | next-heartbeat
    hook         TEXT    NOT NULL,
    mapping_id   TEXT,
    run_id       TEXT,                         -- set for run summaries
    status       TEXT    NOT NULL DEFAULT 'pending',  -- pending | consumed
    heartbeat_id BIGINT,
    consumed_at  BIGINT,
    trusted      SMALLINT NOT NULL DEFAULT 0   -- 1: wake text of a mapping that opted out of the envelope
  );
  CREATE INDEX events_pending ON events (id) WHERE status = 'pending';

  CREATE TABLE runs (
    seq         BIGSERIAL UNIQUE,              -- insertion order (SQLite's rowid): ties of created_at
    run_id      TEXT    PRIMARY KEY,
    created_at  BIGINT  NOT NULL,
    status      TEXT    NOT NULL,              -- queued | running | ok | error | timeout | interrupted
    hook        TEXT    NOT NULL,
    name        TEXT    NOT NULL,
    session_key TEXT    NOT NULL,
    action      TEXT    NOT NULL,              -- the sealed AgentAction as JSON
    attempts    INTEGER NOT NULL DEFAULT 0,
    started_at  BIGINT,
    finished_at BIGINT,
    reply       TEXT,
    summary     TEXT,
    error       TEXT,
    delivery    TEXT,                          -- RecordedDelivery as JSON
    retry_of    TEXT UNIQUE,                   -- a manual retry's original run: one retry per run
    claimed_by  TEXT,                          -- the instance executing it
    lease_until BIGINT                         -- its claim holds until then unless renewed
  );
  CREATE INDEX runs_queued ON runs (created_at, seq) WHERE status = 'queued';
  CREATE INDEX runs_running ON runs (lease_until) WHERE status = 'running';
  CREATE INDEX runs_newest ON runs (created_at DESC, seq DESC);

  CREATE TABLE idempotency (
    key         TEXT    PRIMARY KEY,           -- Idempotency-Key or a provider's delivery id
    created_at  BIGINT  NOT NULL,
    fingerprint TEXT    NOT NULL,
    response    TEXT    NOT NULL
  );
  CREATE INDEX idempotency_by_age ON idempotency (created_at);

  CREATE TABLE transcripts (
    session_key TEXT    NOT NULL,
    seq         INTEGER NOT NULL,
    role        TEXT    NOT NULL,
    content     TEXT    NOT NULL,
    created_at  BIGINT  NOT NULL,
    PRIMARY KEY (session_key, seq)
  );

  CREATE TABLE heartbeats (
    id          BIGSERIAL PRIMARY KEY,
    started_at  BIGINT  NOT NULL,
    finished_at BIGINT,
    status      TEXT    NOT NULL,              -- running | ok | error
    event_count INTEGER NOT NULL,
    reply       TEXT,
    error       TEXT,
    delivery    TEXT,
    owner       TEXT                           -- the instance that ran it
  );

  CREATE TABLE deliveries (
    id           BIGSERIAL PRIMARY KEY,
    created_at   BIGINT  NOT NULL,
    run_id       TEXT,
    heartbeat_id BIGINT,
    channel      TEXT    NOT NULL,
    recipient    TEXT,
    status       TEXT    NOT NULL,
    text         TEXT,
    reason       TEXT
  );

  CREATE TABLE state (
    key   TEXT PRIMARY KEY,                    -- last_route, last_to:<channel>, …
    value TEXT NOT NULL
  );

  CREATE TABLE leases (
    name  TEXT   PRIMARY KEY,                  -- e.g. heartbeat: one holder across all instances
    owner TEXT   NOT NULL,
    until BIGINT NOT NULL
  );

  CREATE TABLE gmail_state (
    account          TEXT    PRIMARY KEY,
    history_id       TEXT,
    watch_expiration BIGINT,
    mode             TEXT,
    last_error       TEXT,
    updated_at       BIGINT  NOT NULL
  );

  CREATE TABLE gmail_messages (
    account     TEXT    NOT NULL,
    message_id  TEXT    NOT NULL,
    admitted_at BIGINT  NOT NULL,
    PRIMARY KEY (account, message_id)
  );
  `,
  // Durable debounce (src/admission/debounce.ts), as in SQLite: claims carry an owner and a lease.
  `
  CREATE TABLE debounce_groups (
    group_id    TEXT    PRIMARY KEY,
    key_hash    TEXT    NOT NULL,
    mapping_id  TEXT    NOT NULL,
    group_key   TEXT    NOT NULL,
    kind        TEXT    NOT NULL,
    keep        TEXT    NOT NULL,
    max_chars   INTEGER NOT NULL,
    status      TEXT    NOT NULL,              -- open | firing
    deliveries  INTEGER NOT NULL,
    created_at  BIGINT  NOT NULL,
    fire_at     BIGINT  NOT NULL,
    max_at      BIGINT  NOT NULL,
    claimed_by  TEXT,
    lease_until BIGINT
  );
  CREATE INDEX debounce_groups_by_key ON debounce_groups (key_hash) WHERE status = 'open';
  CREATE INDEX debounce_groups_by_fire ON debounce_groups (fire_at);

  CREATE TABLE debounce_members (
    group_id    TEXT    NOT NULL,
    seq         INTEGER NOT NULL,
    created_at  BIGINT  NOT NULL,
    action      TEXT    NOT NULL,
    PRIMARY KEY (group_id, seq)
  );
  `,
  // What a run does: `agent` (a model turn) or `notify` (text straight to a channel, no model).
  `ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'agent';`,
  // Flow control (docs/run-limits.md), as SQLite's flow-control migration.
  `
  ALTER TABLE runs ADD COLUMN waiting_for TEXT;
  ALTER TABLE runs ADD COLUMN not_before BIGINT;
  ALTER TABLE runs ADD COLUMN concurrency_key TEXT;
  ALTER TABLE runs ADD COLUMN forced SMALLINT NOT NULL DEFAULT 0;
  CREATE INDEX runs_running_by_key ON runs (concurrency_key) WHERE status = 'running';
  CREATE INDEX runs_waiting ON runs (not_before) WHERE status = 'queued' AND not_before IS NOT NULL;

  CREATE TABLE limit_buckets (
    bucket TEXT   PRIMARY KEY,                -- rate:<mapping>:<key> | throttle:<mapping>:<key> | alert:<condition>
    tat    DOUBLE PRECISION NOT NULL          -- GCRA theoretical arrival time of the next hit (ms, fractional)
  );

  CREATE TABLE run_starts (
    id     BIGSERIAL PRIMARY KEY,
    scope  TEXT   NOT NULL,                   -- service | mapping:<id>
    at     BIGINT NOT NULL,
    run_id TEXT   NOT NULL
  );
  CREATE INDEX run_starts_by_scope ON run_starts (scope, at);
  CREATE INDEX run_starts_by_age ON run_starts (at);

  CREATE TABLE provider_circuits (
    provider   TEXT    PRIMARY KEY,
    state      TEXT    NOT NULL,              -- closed | open | probing
    failures   INTEGER NOT NULL,
    until      BIGINT  NOT NULL,
    open_ms    BIGINT  NOT NULL,
    changed_at BIGINT  NOT NULL
  );
  `,
  // Run notes, as SQLite's run-notes migration (a JSON array of short strings).
  `ALTER TABLE runs ADD COLUMN notes TEXT;`,
  // The probe run of a probing circuit, as SQLite's probe-run migration.
  `ALTER TABLE provider_circuits ADD COLUMN probe_run TEXT;`,
  // The bytes of a debounce group's stored actions, as SQLite's migration.
  `
  ALTER TABLE debounce_groups ADD COLUMN bytes BIGINT NOT NULL DEFAULT 0;
  UPDATE debounce_groups SET bytes = (SELECT COALESCE(SUM(octet_length(action)), 0) FROM debounce_members WHERE debounce_members.group_id = debounce_groups.group_id);
  `,
  // Model calls by origin (`hookgate status`), as SQLite's model-calls migration.
  `
  CREATE INDEX runs_by_start ON runs (started_at) WHERE started_at IS NOT NULL;
  CREATE INDEX heartbeats_by_start ON heartbeats (started_at);
  `,
  // Messages the service posted, as SQLite's own-messages migration.
  `
  CREATE TABLE own_messages (
    channel    TEXT   NOT NULL,
    mark       TEXT   NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (channel, mark)
  );
  CREATE INDEX own_messages_by_expiry ON own_messages (expires_at);
  `,
  // Forward and callback runs (docs/forward.md): the target's last answer (a HandoffRecord as JSON).
  `ALTER TABLE runs ADD COLUMN handoff TEXT;`,
  // Relay targets, as SQLite's relay migration (runs already have claimed_by and lease_until).
  `
  ALTER TABLE runs ADD COLUMN relay_target TEXT;
  CREATE INDEX runs_queued_here ON runs (created_at, seq) WHERE status = 'queued' AND kind <> 'relay';
  CREATE INDEX runs_relay_backlog ON runs (relay_target, created_at, seq) WHERE kind = 'relay' AND status = 'queued';
  CREATE INDEX runs_relay_sessions ON runs (relay_target, session_key, created_at, seq) WHERE kind = 'relay' AND status = 'queued';

  CREATE TABLE relay_consumers (
    target    TEXT   NOT NULL,
    consumer  TEXT   NOT NULL,
    last_seen BIGINT NOT NULL,
    PRIMARY KEY (target, consumer)
  );
  `,
];
