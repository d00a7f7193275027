import { readFile, rename, stat, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { parseArgs } from 'node:util';
import JSON5 from 'json5';
import { configPathFrom, parseConfigText } from '../config/load.js';
import { GOOGLE_ENDPOINTS } from '../config/gmail-schema.js';
import { normaliseHooksPath } from '../config/resolve.js';
import { ConfigError } from '../errors.js';
import { readCredentials, writeCredentials, type GmailCredentials } from '../sources/gmail/credentials.js';
import { createGmailApi } from '../sources/gmail/gmail-api.js';
import { createGoogleRequest } from '../sources/gmail/google-http.js';
import { createAccessTokens, GmailAuthRevokedError } from '../sources/gmail/oauth.js';
import { createPubsubApi } from '../sources/gmail/pubsub-api.js';
import { ensurePublisherGrant, ensureSubscription, ensureTopic, startWatch, type CloudSetup } from '../sources/gmail/setup/cloud.js';
import { editGmailConfig, type GmailSettings } from '../sources/gmail/setup/config-edit.js';
import { obtainRefreshToken, readClientSecret } from '../sources/gmail/setup/consent.js';
import { parseCommandLine, UsageError } from './args.js';
import type { CommandIo } from './io.js';
import { setupDefaultsFrom } from './gmail-setup-defaults.js';

const DEFAULT_TOPIC = 'hookgate-gmail';

const OPTIONS = {
  account: { type: 'string' },
  project: { type: 'string' },
  mode: { type: 'string', default: 'pull' },
  'push-endpoint': { type: 'string' },
  'push-service-account': { type: 'string' },
  label: { type: 'string', default: 'INBOX' },
  topic: { type: 'string' },
  subscription: { type: 'string' },
  'client-secret': { type: 'string' },
  'no-browser': { type: 'boolean', default: false },
  reauth: { type: 'boolean', default: false },
  config: { type: 'string' },
} as const;

export interface SetupSeams {
  prompt?: (question: string) => Promise<string>;
  fetch?: typeof fetch;
}

type Args = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; strict: true }>>['values'];

/** The command line alone (--account and --project may still come from the config's hooks.gmail block). */
export function parseGmailSetupArgs(argv: string[]): Args {
  const args: Args = parseCommandLine({ args: argv, options: OPTIONS, strict: true }).values;
  if (args.mode !== 'pull' && args.mode !== 'push') throw new UsageError(`--mode is pull or push, not ${JSON.stringify(args.mode)}`);
  if (args.mode === 'push' && (args['push-endpoint'] === undefined || args['push-service-account'] === undefined)) {
    throw new UsageError('--mode push needs --push-endpoint and --push-service-account');
  }
  return args;
}

/**
 * `hookgate gmail setup`: every step prints what it did; a failing step says what is missing.
 * Exit 0 done, 1 a step failed; a wrong command line throws UsageError (the CLI exits 2).
 */
export async function runGmailSetup(argv: string[], io: CommandIo, seams: SetupSeams = {}): Promise<number> {
  const args = parseGmailSetupArgs(argv);
  const defaults = setupDefaultsFrom(configPathFrom(args.config, io.env, io.cwd));
  if (args.account === undefined && defaults.account !== undefined) args.account = defaults.account;
  if (args.project === undefined && defaults.project !== undefined) args.project = defaults.project;
  args.topic ??= defaults.topic ?? DEFAULT_TOPIC;
  if (defaults.from.length > 0) io.stdout(`✓ ${defaults.from.join(' and ')} taken from the config's hooks.gmail block (the command line wins)\n`);
  if (args.account === undefined || args.project === undefined) throw new UsageError('setup needs --account and --project (or a hooks.gmail block with account and topic "projects/<project>/topics/<name>")');
  try {
    await setup(args, io, seams);
    return 0;
  } catch (error) {
    io.stderr(`✗ ${error instanceof ConfigError ? error.message : (error as Error).message}\n`);
    return 1;
  }
}

async function setup(args: Args, io: CommandIo, seams: SetupSeams): Promise<void> {
  const print = (line: string) => io.stdout(`${line}\n`);
  const account = args.account as string;
  const configPath = configPathFrom(args.config, io.env, io.cwd);
  const text = await readFile(configPath, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new Error(`cannot read ${configPath}: ${error.code === 'ENOENT' ? 'file not found (start from examples/hookgate.json5)' : error.message}`);
  });
  const current = currentSettings(text, configPath);
  const credentialsSetting = current.credentialsFile ?? './gmail-credentials.json';
  const credentialsPath = isAbsolute(credentialsSetting) ? credentialsSetting : resolve(dirname(configPath), credentialsSetting);
  const endpoints = { ...GOOGLE_ENDPOINTS, ...current.endpoints };
  const cloud = cloudSetup(args, current.hooksPath); // a bad --push-endpoint stops here, before consent

  const credentials = await ensureCredentials(args, credentialsPath, endpoints.oauthToken, io, seams);
  const request = createGoogleRequest({ fetch: seams.fetch ?? globalThis.fetch, tokens: createAccessTokens(credentials, endpoints.oauthToken), attempts: 3 });
  const gmail = createGmailApi(endpoints.gmail, request);
  const profile = await gmail.profile().catch((error: Error) => {
    throw new Error(`reading the Gmail profile failed: ${error.message}\n  → enable the Gmail API: https://console.cloud.google.com/apis/library/gmail.googleapis.com?project=${args.project}`);
  });
  if (profile.emailAddress.toLowerCase() !== account.toLowerCase()) {
    throw new Error(`the consent was given as ${profile.emailAddress}, not ${account}: run setup again with --reauth and sign in as ${account}`);
  }
  print(`✓ signed in to Gmail as ${profile.emailAddress}`);

  const pubsub = createPubsubApi(endpoints.pubsub, request);
  await ensureTopic(pubsub, cloud, print);
  await ensurePublisherGrant(pubsub, cloud, print);
  await ensureSubscription(pubsub, cloud, print);
  await startWatch(gmail, cloud, print);
  await writeConfig(text, configPath, io.env, print, {
    enabled: true,
    account,
    label: cloud.label,
    topic: cloud.topic,
    subscription: cloud.subscription,
    mode: args.mode as string,
    credentialsFile: credentialsSetting,
    push: cloud.push === undefined ? undefined : { path: pushPathOf(cloud.push.endpoint, current.hooksPath), audience: cloud.push.audience, serviceAccountEmail: cloud.push.serviceAccountEmail },
  });
  print(args.mode === 'pull' ? 'Next: restart `hookgate serve` (or run `hookgate gmail run` beside an ingress elsewhere).' : 'Next: restart `hookgate serve`; Pub/Sub will post to the push endpoint.');
}

/** The parts of the current config setup needs, read without validating it (setup may be what makes it valid). */
function currentSettings(text: string, path: string): { hooksPath: string; credentialsFile?: string; endpoints?: Record<string, string> } {
  let raw: { hooks?: { path?: string; gmail?: { credentialsFile?: string; endpoints?: Record<string, string> } } };
  try {
    raw = JSON5.parse(text) as typeof raw;
  } catch (error) {
    throw new Error(`${path} is not valid JSON5: ${(error as Error).message}`);
  }
  const gmail = raw.hooks?.gmail;
  return {
    hooksPath: normaliseHooksPath(raw.hooks?.path ?? '/hooks'),
    ...(gmail?.credentialsFile === undefined ? {} : { credentialsFile: gmail.credentialsFile }),
    ...(gmail?.endpoints === undefined ? {} : { endpoints: gmail.endpoints }),
  };
}

async function ensureCredentials(args: Args, path: string, tokenUrl: string, io: CommandIo, seams: SetupSeams): Promise<GmailCredentials> {
  const account = args.account as string;
  const stored = await readCredentials(path).catch(() => undefined);
  if (stored !== undefined && !args.reauth && stored.account === account) {
    if (await stillGranted(stored, tokenUrl)) {
      io.stdout(`✓ stored credentials for ${account} reused (${path}; --reauth asks for consent again)\n`);
      return stored;
    }
    io.stdout(`✓ the stored grant for ${account} was revoked or expired: asking for consent again\n`);
  }
  if (args['client-secret'] === undefined) throw new Error('OAuth consent needs --client-secret FILE (a Desktop app OAuth client JSON; see docs/gmail.md)');
  const client = await readClientSecret(resolve(io.cwd, args['client-secret']));
  const refreshToken = await obtainRefreshToken({
    client,
    tokenUrl,
    account,
    noBrowser: args['no-browser'] === true,
    print: (line) => io.stdout(`${line}\n`),
    prompt: seams.prompt ?? promptOnTerminal,
  });
  const credentials: GmailCredentials = { type: 'authorized_user', client_id: client.clientId, client_secret: client.clientSecret, refresh_token: refreshToken, account };
  await writeCredentials(path, credentials);
  io.stdout(`✓ refresh token stored in ${path} (mode 0600; never in the config)\n`);
  return credentials;
}

/** False only when Google says the refresh token is dead; other failures surface in the next step. */
async function stillGranted(credentials: GmailCredentials, tokenUrl: string): Promise<boolean> {
  try {
    await createAccessTokens(credentials, tokenUrl).get();
    return true;
  } catch (error) {
    return !(error instanceof GmailAuthRevokedError);
  }
}

function cloudSetup(args: Args, hooksPath: string): CloudSetup {
  const project = args.project as string;
  const mode = args.mode as 'pull' | 'push';
  const setup: CloudSetup = {
    project,
    topic: `projects/${project}/topics/${args.topic}`,
    subscription: `projects/${project}/subscriptions/${args.subscription ?? `hookgate-gmail-${mode}`}`,
    label: args.label as string,
  };
  if (mode === 'push') {
    const endpoint = args['push-endpoint'] as string;
    pushPathOf(endpoint, hooksPath); // refuse an endpoint outside hooks.path before anything changes
    setup.push = { endpoint, serviceAccountEmail: args['push-service-account'] as string, audience: endpoint };
  }
  return setup;
}

function pushPathOf(endpoint: string, hooksPath: string): string {
  const url = new URL(endpoint);
  if (url.protocol !== 'https:') throw new Error(`--push-endpoint must be https (Pub/Sub pushes only to https): ${endpoint}`);
  if (!url.pathname.startsWith(`${hooksPath}/`) || url.pathname === `${hooksPath}/gmail`) {
    throw new Error(`--push-endpoint must be under hooks.path ${hooksPath} and not the preset's own ${hooksPath}/gmail, e.g. https://host${hooksPath}/gmail/push`);
  }
  return url.pathname.slice(hooksPath.length);
}

async function writeConfig(text: string, path: string, env: NodeJS.ProcessEnv, print: (line: string) => void, settings: GmailSettings): Promise<void> {
  const edited = await editGmailConfig(text, settings);
  if (edited === text) return print(`✓ ${path} already has these hooks.gmail settings`);
  parseConfigText(edited, { configDir: dirname(path), configPath: path, env }); // throws ConfigError: nothing written
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, edited, { mode: (await stat(path)).mode & 0o777 }); // the file keeps its permissions
  await rename(temporary, path);
  print(`✓ wrote hooks.gmail and enabled the gmail preset in ${path} (comments and layout kept)`);
}

export async function promptOnTerminal(question: string, input: NodeJS.ReadableStream = process.stdin, output: NodeJS.WritableStream = process.stderr): Promise<string> {
  const terminal = createInterface({ input, output });
  // A closed stdin (`< /dev/null`, a pipe that ended, no terminal) never answers: fail with what to do
  // instead of leaving the question pending (Node would exit 13, "unsettled top-level await").
  const closed = new Promise<never>((_resolve, reject) => {
    terminal.once('close', () => reject(new Error('stdin closed before the code was pasted: run `hookgate gmail setup` in a terminal (or without --no-browser, which catches the code itself)')));
  });
  closed.catch(() => undefined); // closing after an answer is not a failure
  try {
    return await Promise.race([terminal.question(question), closed]);
  } finally {
    terminal.close();
  }
}
