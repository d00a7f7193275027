import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import type { CodeChallengeMethod } from 'google-auth-library';

/** Gmail read access (history, messages, watch) and Pub/Sub (topic, IAM, subscription, pull). */
const GMAIL_SCOPES = ['https://www.googleapis.com/auth/gmail.readonly', 'https://www.googleapis.com/auth/pubsub'];
const GOOGLE_AUTH_URL = 'https://accounts.google.com/o/oauth2/v2/auth';

export interface OAuthClientFile {
  clientId: string;
  clientSecret: string;
  authUri: string;
}

/** The "Desktop app" client JSON downloaded from the Google Cloud console (`installed`). */
export async function readClientSecret(path: string): Promise<OAuthClientFile> {
  let parsed: { installed?: Record<string, unknown>; web?: unknown };
  try {
    parsed = JSON.parse(await readFile(path, 'utf8')) as typeof parsed;
  } catch (error) {
    throw new Error(`cannot read the OAuth client file ${path}: ${(error as Error).message}`);
  }
  const installed = parsed.installed;
  if (installed === undefined) {
    throw new Error(`${path} is not a Desktop app OAuth client (no "installed" key): create one under APIs & Services → Credentials → Create credentials → OAuth client ID → Desktop app`);
  }
  const { client_id: clientId, client_secret: clientSecret, auth_uri: authUri } = installed;
  if (typeof clientId !== 'string' || typeof clientSecret !== 'string') throw new Error(`${path} lacks client_id or client_secret`);
  return { clientId, clientSecret, authUri: typeof authUri === 'string' ? authUri : GOOGLE_AUTH_URL };
}

export interface ConsentOptions {
  client: OAuthClientFile;
  tokenUrl: string;
  account: string;
  /** Print the URL and read the code (or the whole redirected URL) pasted back, instead of a loopback listener. */
  noBrowser: boolean;
  print: (line: string) => void;
  prompt: (question: string) => Promise<string>;
  /** How long the loopback listener waits for the browser. */
  timeoutMs?: number;
}

/**
 * OAuth consent for an installed app with PKCE: the user approves in a browser, Google redirects
 * to a listener on 127.0.0.1 (or the user pastes the code), and the code becomes a refresh token.
 */
export async function obtainRefreshToken(options: ConsentOptions): Promise<string> {
  const state = randomBytes(16).toString('hex');
  const loopback = options.noBrowser ? undefined : await listenForRedirect(state, options.timeoutMs ?? 300_000);
  const redirectUri = loopback?.redirectUri ?? 'http://127.0.0.1:1/';
  const { OAuth2Client } = await import('google-auth-library');
  const oauth = new OAuth2Client({
    clientId: options.client.clientId,
    clientSecret: options.client.clientSecret,
    redirectUri,
    endpoints: { oauth2AuthBaseUrl: options.client.authUri, oauth2TokenUrl: options.tokenUrl },
  });
  const { codeVerifier, codeChallenge } = await oauth.generateCodeVerifierAsync();
  const url = oauth.generateAuthUrl({
    access_type: 'offline',
    prompt: 'consent', // a refresh token every time, even when the app was approved before
    scope: GMAIL_SCOPES,
    login_hint: options.account,
    state,
    ...(codeChallenge === undefined ? {} : { code_challenge: codeChallenge, code_challenge_method: 'S256' as CodeChallengeMethod }),
  });
  options.print(`Open this URL in a browser signed in as ${options.account} and allow access:\n\n  ${url}\n`);
  let code: string;
  try {
    code = loopback === undefined ? codeFromPaste(await options.prompt('Paste the code (or the whole address the browser ended on): '), state) : await loopback.code;
  } finally {
    loopback?.close();
  }
  const { tokens } = await oauth.getToken({ code, ...(codeVerifier === undefined ? {} : { codeVerifier }), redirect_uri: redirectUri });
  if (typeof tokens.refresh_token !== 'string' || tokens.refresh_token === '') {
    throw new Error('Google returned no refresh token: remove the app under myaccount.google.com → Security → Third-party access and run setup again');
  }
  return tokens.refresh_token;
}

/** `127.0.0.1:1` refuses the browser, which then shows the address with the code: either is accepted. */
function codeFromPaste(pasted: string, state: string): string {
  const text = pasted.trim();
  if (!/^https?:\/\//.test(text)) {
    if (text === '') throw new Error('no code was pasted');
    return text;
  }
  const query = new URL(text).searchParams;
  if (query.get('error') !== null) throw new Error(`consent refused: ${query.get('error')}`);
  if (query.get('state') !== state) throw new Error('the pasted address is not from this consent (state differs)');
  const code = query.get('code');
  if (code === null) throw new Error('the pasted address has no code');
  return code;
}

async function listenForRedirect(state: string, timeoutMs: number): Promise<{ redirectUri: string; code: Promise<string>; close: () => void }> {
  let settle: { resolve: (code: string) => void; reject: (error: Error) => void } | undefined;
  const code = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const server = createServer((req, res) => {
    const query = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams;
    if (query.get('state') !== state) {
      res.writeHead(400, { 'Content-Type': 'text/plain' }).end('Unexpected request.');
      return;
    }
    const error = query.get('error');
    const received = query.get('code');
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' }).end(error === null ? 'Hookgate has access now. You can close this tab.' : 'Access was not granted.');
    if (error !== null || received === null) settle?.reject(new Error(`consent refused: ${error ?? 'no code'}`));
    else settle?.resolve(received);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const timer = setTimeout(() => settle?.reject(new Error(`no answer from the browser within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
  const port = (server.address() as AddressInfo).port;
  return {
    redirectUri: `http://127.0.0.1:${port}/`,
    code,
    close: () => {
      clearTimeout(timer);
      server.closeAllConnections();
      server.close();
    },
  };
}
