/**
 * Schema migrations, applied in order inside one transaction each; PRAGMA user_version records
 * how many ran. Append only: never edit a migration that has shipped.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE events (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at  INTEGER NOT NULL,              -- ms since epoch
    text        TEXT    NOT NULL,              -- what the main session will read (enveloped when untrusted)
    mode        TEXT    NOT NULL,              -- now | next-heartbeat
    hook        TEXT    NOT NULL,              -- wake | agent | <mapped name>
    mapping_id  TEXT,
    run_id      TEXT,                          -- set for run summaries
    status      TEXT    NOT NULL DEFAULT 'pending',  -- pending | consumed
    heartbeat_id INTEGER,
    consumed_at INTEGER
  );
  CREATE INDEX events_by_status ON events(status, id);

  CREATE TABLE runs (
    run_id      TEXT    PRIMARY KEY,
    created_at  INTEGER NOT NULL,
    status      TEXT    NOT NULL,              -- queued | running | ok | error | timeout | interrupted
    hook        TEXT    NOT NULL,
    name        TEXT    NOT NULL,
    session_key TEXT    NOT NULL,
    action      TEXT    NOT NULL,              -- the AgentAction as JSON
    attempts    INTEGER NOT NULL DEFAULT 0,
    started_at  INTEGER,
    finished_at INTEGER,
    reply       TEXT,
    summary     TEXT,
    error       TEXT,
    delivery    TEXT                           -- DeliveryOutcome as JSON
  );
  CREATE INDEX runs_by_status ON runs(status, created_at);

  CREATE TABLE idempotency (
    key         TEXT    PRIMARY KEY,
    created_at  INTEGER NOT NULL,
    fingerprint TEXT    NOT NULL,              -- hash of the hook name and body: a different request with a used key is refused
    response    TEXT    NOT NULL               -- the first response: {"status":…, "body":…}
  );
  CREATE INDEX idempotency_by_age ON idempotency(created_at);

  CREATE TABLE transcripts (
    session_key TEXT    NOT NULL,
    seq         INTEGER NOT NULL,
    role        TEXT    NOT NULL,
    content     TEXT    NOT NULL,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (session_key, seq)
  );

  CREATE TABLE heartbeats (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    started_at  INTEGER NOT NULL,
    finished_at INTEGER,
    status      TEXT    NOT NULL,              -- running | ok | error
    event_count INTEGER NOT NULL,
    reply       TEXT,
    error       TEXT,
    delivery    TEXT
  );

  CREATE TABLE deliveries (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at  INTEGER NOT NULL,
    run_id      TEXT,
    heartbeat_id INTEGER,
    channel     TEXT    NOT NULL,
    recipient   TEXT,
    status      TEXT    NOT NULL,              -- delivered | failed | skipped
    text        TEXT,
    reason      TEXT
  );

  CREATE TABLE state (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  `,
  // Whether an event's text may sit outside the heartbeat prompt's envelope: only wake text of a
  // mapping that opted out (allowUnsafeExternalContent). Earlier rows count as untrusted: the safe side.
  `ALTER TABLE events ADD COLUMN trusted INTEGER NOT NULL DEFAULT 0;`,
  // 3: retries (`hookgate runs retry`, POST {hooks.path}/runs/<id>/retry) link a new run to the one it
  // retries; the unique index makes a second retry of the same run find the first one instead.
  `
  ALTER TABLE runs ADD COLUMN retry_of TEXT;
  CREATE UNIQUE INDEX runs_by_retry_of ON runs(retry_of) WHERE retry_of IS NOT NULL;
  `,
  // Gmail source (src/sources/gmail/): where each watched mailbox resumes, and which messages
  // were admitted (forever, unlike idempotency keys, so a history reset never admits one twice).
  `
  CREATE TABLE gmail_state (
    account          TEXT    PRIMARY KEY,
    history_id       TEXT,                     -- last history id fully processed (decimal string)
    watch_expiration INTEGER,                  -- ms since epoch, from users.watch
    mode             TEXT,
    last_error       TEXT,
    updated_at       INTEGER NOT NULL
  );

  CREATE TABLE gmail_messages (
    account     TEXT    NOT NULL,
    message_id  TEXT    NOT NULL,
    admitted_at INTEGER NOT NULL,
    PRIMARY KEY (account, message_id)
  );
  `,
  // Durable debounce (src/admission/debounce.ts): a pending group per (mapping, key) until it fires,
  // and the actions of the deliveries that joined it. A group fires once, then its rows are removed.
  `
  CREATE TABLE debounce_groups (
    group_id    TEXT    PRIMARY KEY,           -- the run id of an agent group
    key_hash    TEXT    NOT NULL,              -- sha256 of mapping id and rendered key
    mapping_id  TEXT    NOT NULL,
    group_key   TEXT    NOT NULL,              -- the rendered key, cut to 200 characters (for views)
    kind        TEXT    NOT NULL,              -- agent | wake
    keep        TEXT    NOT NULL,              -- last | all
    max_chars   INTEGER NOT NULL,
    status      TEXT    NOT NULL,              -- open | firing
    deliveries  INTEGER NOT NULL,
    created_at  INTEGER NOT NULL,
    fire_at     INTEGER NOT NULL,              -- window end, re-armed by each join, capped by max_at
    max_at      INTEGER NOT NULL,
    claimed_by  TEXT,
    lease_until INTEGER
  );
  CREATE INDEX debounce_groups_by_key ON debounce_groups(key_hash, status);
  CREATE INDEX debounce_groups_by_fire ON debounce_groups(status, fire_at);

  CREATE TABLE debounce_members (
    group_id    TEXT    NOT NULL,
    seq         INTEGER NOT NULL,
    created_at  INTEGER NOT NULL,
    action      TEXT    NOT NULL,              -- the admitted (unsealed) action as JSON
    PRIMARY KEY (group_id, seq)
  );
  `,
  // What a run does: `agent` (a model turn) or `notify` (text straight to a channel, no model).
  `ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'agent';`,
  // Flow control (docs/run-limits.md): why a queued run waits and until when, the key that bounds a
  // running run's concurrency, a forced start; GCRA buckets of rate limits and throttles; run starts
  // counted by budgets; one circuit per provider.
  `
  ALTER TABLE runs ADD COLUMN waiting_for TEXT;
  ALTER TABLE runs ADD COLUMN not_before INTEGER;
  ALTER TABLE runs ADD COLUMN concurrency_key TEXT;
  ALTER TABLE runs ADD COLUMN forced INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX runs_running_by_key ON runs(concurrency_key) WHERE status = 'running';
  CREATE INDEX runs_waiting ON runs(not_before) WHERE status = 'queued' AND not_before IS NOT NULL;

  CREATE TABLE limit_buckets (
    bucket TEXT    PRIMARY KEY,               -- rate:<mapping>:<key> | throttle:<mapping>:<key> | alert:<condition>
    tat    REAL    NOT NULL                   -- GCRA theoretical arrival time of the next hit (ms, fractional)
  );

  CREATE TABLE run_starts (
    id     INTEGER PRIMARY KEY AUTOINCREMENT,
    scope  TEXT    NOT NULL,                  -- service | mapping:<id>
    at     INTEGER NOT NULL,
    run_id TEXT    NOT NULL
  );
  CREATE INDEX run_starts_by_scope ON run_starts(scope, at);
  CREATE INDEX run_starts_by_age ON run_starts(at);

  CREATE TABLE provider_circuits (
    provider   TEXT    PRIMARY KEY,
    state      TEXT    NOT NULL,              -- closed | open | probing
    failures   INTEGER NOT NULL,              -- consecutive provider failures
    until      INTEGER NOT NULL,              -- open: until then; probing: the probe holds it until then
    open_ms    INTEGER NOT NULL,              -- the length of the current (or last) opening
    changed_at INTEGER NOT NULL
  );
  `,
  // Run notes: short remarks on how a run was carried out that the user should see with it (a
  // `thinking` level the model's catalog entry says it does not take, not sent), as a JSON array.
  `ALTER TABLE runs ADD COLUMN notes TEXT;`,
  // The run that probes an open provider circuit: the circuit stays probing while that run executes,
  // however many leases its call takes (docs/run-limits.md).
  `ALTER TABLE provider_circuits ADD COLUMN probe_run TEXT;`,
  // The bytes of a debounce group's stored actions, bounded by the mapping's debounce.maxBytes
  // (keep "all"); groups stored before the bound are measured once here.
  `
  ALTER TABLE debounce_groups ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
  UPDATE debounce_groups SET bytes = (SELECT COALESCE(SUM(octet_length(action)), 0) FROM debounce_members WHERE debounce_members.group_id = debounce_groups.group_id);
  `,
  // Model calls of the last hour by origin (`hookgate status`): runs and heartbeats by their start.
  `
  CREATE INDEX runs_by_start ON runs(started_at) WHERE started_at IS NOT NULL;
  CREATE INDEX heartbeats_by_start ON heartbeats(started_at);
  `,
  // Messages the service posted (src/own-messages.ts): a mark (its id, or its recipient and text
  // hashed) per channel, until it expires; a delivery bringing one back is skipped as "self".
  `
  CREATE TABLE own_messages (
    channel    TEXT    NOT NULL,
    mark       TEXT    NOT NULL,              -- id:<id> | text:<sha256 of recipient and text>
    expires_at INTEGER NOT NULL,              -- ms since epoch
    PRIMARY KEY (channel, mark)
  );
  CREATE INDEX own_messages_by_expiry ON own_messages(expires_at);
  `,
  // Forward and callback runs (docs/forward.md): the target's last answer (a HandoffRecord as JSON).
  `ALTER TABLE runs ADD COLUMN handoff TEXT;`,
  // Relay targets (docs/relay.md): an action forwarded to one is a run of kind `relay` that stays
  // queued until a consumer acknowledges it; a consumer holds it under a lease (`claimed_by`,
  // `lease_until`, named as PostgreSQL's run claims). The runtime's queue never lists relay runs
  // (its own partial index); the consumers who asked are kept with when they last did.
  `
  ALTER TABLE runs ADD COLUMN relay_target TEXT;
  ALTER TABLE runs ADD COLUMN claimed_by TEXT;
  ALTER TABLE runs ADD COLUMN lease_until INTEGER;
  CREATE INDEX runs_queued_here ON runs(status, created_at) WHERE status = 'queued' AND kind <> 'relay';
  CREATE INDEX runs_relay_backlog ON runs(relay_target, created_at) WHERE kind = 'relay' AND status = 'queued';
  CREATE INDEX runs_relay_sessions ON runs(relay_target, session_key, created_at) WHERE kind = 'relay' AND status = 'queued';

  CREATE TABLE relay_consumers (
    target    TEXT    NOT NULL,
    consumer  TEXT    NOT NULL,
    last_seen INTEGER NOT NULL,               -- ms since epoch: its last request for events
    PRIMARY KEY (target, consumer)
  );
  `,
];
