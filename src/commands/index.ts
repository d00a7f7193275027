import type { CommandIo } from './io.js';

/** Runs one command with its arguments (the command name removed); undefined = keeps running (serve). */
type CommandRun = (argv: string[], io: CommandIo) => Promise<number | undefined>;

/**
 * One `hookgate <name>` command. The CLI (src/cli.ts) answers `--help`/`-h` with `usage` before the
 * command is loaded, and prints `usage` after the one-line message of a UsageError (exit 2); so a
 * command only parses its own options, with parseCommandLine (./args.ts).
 */
export interface CommandEntry {
  name: string;
  /** One line for `hookgate help`. */
  summary: string;
  /** Starts with `usage: hookgate <name> …`; then what it does, its options and exit statuses. */
  usage: string;
  /** Loaded only when the command runs, so `hookgate token` never loads the service. */
  load: () => Promise<CommandRun>;
  /**
   * The command's own parsing of its command line, without running it: throws UsageError where the
   * command would. test/cli/docs-commands.test.ts parses every command the docs show with it.
   */
  parse: () => Promise<(argv: string[]) => unknown>;
}

/** Option lines every usage shares, so they read the same in every command's help. */
const CONFIG_OPTION = '  --config FILE   configuration file (default: $HOOKGATE_CONFIG, else ./hookgate.json5)';
const HELP_OPTION = '  -h, --help      show this help';

/**
 * The explicit registry: one entry per command, in the order `hookgate help` lists them. A new
 * command is a module here exporting `run<Name>(argv, io)` that parses with parseCommandLine and
 * throws UsageError for a wrong command line (./args.ts), plus one entry below with its usage;
 * test/cli/help.test.ts then checks its --help, -h and unknown-option answers.
 */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'serve',
    summary: 'run the service',
    usage: `usage: hookgate serve [--config FILE] [--port N] [--host ADDRESS] [--no-watch]

Runs until SIGTERM or SIGINT, then shuts down cleanly. SIGHUP, or a change to the config file or
hooks.transformsDir, reloads the mappings.

options:
${CONFIG_OPTION}
  --port N        listen on port N (1-65535) instead of gateway.port
  --host ADDRESS  listen on ADDRESS (e.g. 0.0.0.0, ::1) instead of gateway.bind
  --no-watch      reload only on SIGHUP, not on file changes
${HELP_OPTION}
`,
    load: async () => (await import('./serve.js')).runServe,
    parse: async () => (await import('./serve.js')).parseServeArgs,
  },
  {
    name: 'check',
    summary: 'validate a config file and what would fail only at run time',
    usage: `usage: hookgate check [--config FILE]

Validates the configuration as serve would, then what would fail only when a request comes:
models (provider/model id, alias, allow-list, configured provider), delivery channels, and the
examples that transform modules export. Lists transform modules that no mapping uses.
Exit 0 valid (warnings and notes are printed), 1 problems (every one, with its path).

options:
${CONFIG_OPTION}
${HELP_OPTION}
`,
    load: async () => (await import('./check.js')).runCheck,
    parse: async () => (await import('./check.js')).parseCheckArgs,
  },
  {
    name: 'try',
    summary: 'dry-run a payload through the mappings',
    usage: `usage: hookgate try <name> --payload FILE [--header K:V]… [--query K=V]… [--config FILE] [--json]

Runs the payload through the mappings as POST {hooks.path}/<name> would (transforms included),
without storing or sending anything, and shows why each mapping matched or not and what the agent
would receive. Exit 0 matched, 2 no mapping matched or a wrong command line, 1 an error.

options:
  --payload FILE  the JSON request body (required)
  --header K:V    a request header (repeatable; K=V too, e.g. X-GitHub-Event=pull_request); a
                  signed mapping's signature headers given here are checked against the payload
                  file's bytes (e.g. from \`hookgate sign\`)
  --query K=V     a query parameter (repeatable)
${CONFIG_OPTION}
  --json          print one JSON object instead of text
${HELP_OPTION}
`,
    load: async () => (await import('./try.js')).runTry,
    parse: async () => (await import('./try.js')).parseTryArgs,
  },
  {
    name: 'status',
    summary: 'queue depths, last heartbeat and recent runs',
    usage: `usage: hookgate status [--config FILE] [--json]

Reads the store the configuration names (a running service may keep writing) and prints queue
depths, the last heartbeat, the newest runs with their delivery outcome, a line per watched
Gmail mailbox, and the run limits: runs waiting by reason, budgets used and left, provider
circuits and the busiest rate-limit keys.

options:
${CONFIG_OPTION}
  --json          print one JSON object instead of text
${HELP_OPTION}
`,
    load: async () => (await import('./status.js')).runStatus,
    parse: async () => (await import('./status.js')).parseStatusArgs,
  },
  {
    name: 'sign',
    summary: 'print the signed headers (and a curl command) a sender would send',
    usage: `usage: hookgate sign <hook> --payload FILE [--event NAME] [--delivery ID] [--config FILE]

Signs the payload file's bytes as the sender of the mapping that would receive POST
{hooks.path}/<hook> would (its signature scheme, first secret, the current time) and prints the
headers and a curl command that sends them, to try a signed mapping locally (docs/signatures.md).
The curl command names the server running on the config's store (wherever it listens), else the
configured gateway address.
Exit 0 printed, 1 no signed mapping receives it or the file is unreadable, 2 a wrong command line.

options:
  --payload FILE  the request body to sign, sent byte for byte (required)
  --event NAME    the event header (GitHub: X-GitHub-Event); default the first of the mapping's
                  events, else the scheme's (push)
  --delivery ID   the delivery id to put in the headers (default: a new UUID)
${CONFIG_OPTION}
${HELP_OPTION}
`,
    load: async () => (await import('./sign.js')).runSign,
    parse: async () => (await import('./sign.js')).parseSignArgs,
  },
  {
    name: 'runs',
    summary: 'retry a failed, timed-out or interrupted run; start a waiting run past its budget',
    usage: `usage: hookgate runs retry <runId> [--config FILE] [--url URL] [--json]
       hookgate runs start <runId> --force [--config FILE] [--url URL] [--json]

Queues the run again as a new run with the same action, linked to it (retryOf). Asks the running
service (POST {hooks.path}/runs/<runId>/retry with the hook token) at --url, else the server running
on the config's store (found through <store>.server.json, whatever --port it was started with),
else the configured gateway address; when no server runs, writes the retry into the store and the
service runs it when it starts. Retrying the same run again prints the first retry and creates nothing.
Exit 0 queued (or already retried), 1 refused (unknown run, or queued/running/ok) or failed.

\`runs start --force\` lets a queued run start past its budget and throttle (docs/run-limits.md);
it still waits for a free slot, its concurrency key and its provider's circuit. The service logs
it (run.force_started); POST {hooks.path}/runs/<runId>/start with gateway.auth.token (the hook token
may not), or the store when nothing listens.

options:
${CONFIG_OPTION}
  --force         (runs start) required: starting past a budget is a deliberate act
  --url URL       the running service, e.g. http://127.0.0.1:8787
  --json          print one JSON object instead of text
${HELP_OPTION}
`,
    load: async () => (await import('./runs.js')).runRuns,
    parse: async () => (await import('./runs.js')).parseRunsArgs,
  },
  {
    name: 'relay',
    summary: 'pull a relay target\'s events from a public Hookgate and hand them to a local gateway',
    usage: `usage: hookgate relay --from URL --target NAME [--token TOKEN] --to TARGET [--config FILE]
                      [--consumer NAME] [--wait SECONDS] [--max COUNT]

Runs next to an agent gateway behind NAT (docs/relay.md): pulls the events of the edge's relay
target NAME (GET {hooks.path}/relay/NAME/events, a long poll), hands each to TARGET, one of the
config's targets (openclaw, hermes or http) under the event's id, and acknowledges it on the edge
once TARGET took it. Keeps nothing on disk: an event not acknowledged comes back after its lease
and TARGET dedupes on its id. Reconnects with backoff; SIGINT or SIGTERM stops it (exit 0).
Exit 1: the edge refused the token or has no such target, or TARGET cannot be used; 2: a wrong
command line.

options:
  --from URL       the edge's hooks URL, e.g. https://edge.example/hooks
  --target NAME    the relay target on the edge
  --token TOKEN    one of its tokens (default: $HOOKGATE_RELAY_TOKEN, which keeps it out of ps)
  --to TARGET      the local target events are handed to
${CONFIG_OPTION}
  --consumer NAME  this consumer's name on the edge (default: <host>-<pid>)
  --wait SECONDS   how long one pull waits for events, 1-55 (default 30)
  --max COUNT      events per pull, 1-100 (default 10)
${HELP_OPTION}
`,
    load: async () => (await import('./relay.js')).runRelay,
    parse: async () => (await import('./relay.js')).parseRelayArgs,
  },
  {
    name: 'presets',
    summary: 'list the built-in presets, their default events, options and noise rules',
    usage: `usage: hookgate presets [NAME] [--json]

Lists the presets hooks.presets can enable (all, or NAME): the signature scheme, the default event
types, the options an entry takes, the body limit of its path, and each noise filter and debounce
with its reason. docs/presets.md has the set-up of each sender.

options:
  --json          print JSON instead of text
${HELP_OPTION}
`,
    load: async () => (await import('./presets.js')).runPresets,
    parse: async () => (await import('./presets.js')).parsePresetsArgs,
  },
  {
    name: 'token',
    summary: 'print a new random token',
    usage: `usage: hookgate token

Prints a random 256-bit token (base64url) for hooks.token or gateway.auth.token.

options:
${HELP_OPTION}
`,
    load: async () => (await import('./token.js')).runToken,
    parse: async () => (await import('./token.js')).parseTokenArgs,
  },
  {
    name: 'gmail',
    summary: 'Gmail: `setup` (OAuth, Pub/Sub, watch, config) and `run` (the watcher)',
    usage: `usage: hookgate gmail setup --account EMAIL --project GCP_PROJECT [options]
       hookgate gmail run [--config FILE] [--url URL]

setup: OAuth consent, the Pub/Sub topic, the publisher grant to Gmail, the subscription, users.watch,
and hooks.gmail (with the gmail preset) written into the config, comments kept. Safe to run again.
run: the Gmail watcher in the foreground, posting each new message to the hook with the hook token
(for an ingress that runs elsewhere; \`serve\` runs the watcher itself when hooks.gmail.enabled).
Exit 0 done, 1 a step failed (its message says what is missing), 2 a wrong command line.
See docs/gmail.md.

setup options:
  --account EMAIL               the Gmail address to watch (required)
  --project ID                  the Google Cloud project ID (required)
  --mode pull|push              pull (default; works on loopback) or push (Pub/Sub posts to the service)
  --push-endpoint URL           push: public https URL of POST {hooks.path}{push.path}
  --push-service-account EMAIL  push: the service account whose OIDC token Pub/Sub sends
  --label LABEL                 label watched (default INBOX)
  --topic NAME                  Pub/Sub topic name (default hookgate-gmail)
  --subscription NAME           Pub/Sub subscription name (default hookgate-gmail-<mode>)
  --client-secret FILE          the Desktop app OAuth client JSON from the Google Cloud console
  --no-browser                  print the consent URL and paste the code back
  --reauth                      ask for consent again even when stored credentials work
${CONFIG_OPTION}
run options:
${CONFIG_OPTION}
  --url URL       where to post (default http://{gateway.bind}:{gateway.port}{hooks.path}/gmail)
${HELP_OPTION}
`,
    load: async () => (await import('./gmail.js')).runGmail,
    parse: async () => (await import('./gmail.js')).parseGmailArgs,
  },
];
