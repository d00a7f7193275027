import { chmod, mkdir, open, readFile, rename, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * The OAuth client and refresh token `hookgate gmail setup` obtained, in Google's
 * `authorized_user` file shape. Kept in its own file (mode 0600), never in the config, never logged.
 */
export interface GmailCredentials {
  type: 'authorized_user';
  client_id: string;
  client_secret: string;
  refresh_token: string;
  account: string;
}

export class CredentialsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CredentialsError';
  }
}

export async function readCredentials(path: string): Promise<GmailCredentials> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new CredentialsError(`cannot read the Gmail credentials ${path}: ${missing ? 'file not found' : (error as Error).message}; run \`hookgate gmail setup\``);
  }
  let parsed: Partial<GmailCredentials>;
  try {
    parsed = JSON.parse(text) as Partial<GmailCredentials>;
  } catch {
    throw new CredentialsError(`the Gmail credentials ${path} are not JSON; run \`hookgate gmail setup\` again`);
  }
  for (const key of ['client_id', 'client_secret', 'refresh_token'] as const) {
    if (typeof parsed[key] !== 'string' || parsed[key] === '') throw new CredentialsError(`the Gmail credentials ${path} lack ${key}; run \`hookgate gmail setup\` again`);
  }
  return parsed as GmailCredentials;
}

/** Whether group or others may read the file (the watcher warns: it holds a refresh token). */
export async function isExposed(path: string): Promise<boolean> {
  return ((await stat(path)).mode & 0o077) !== 0;
}

/** Writes the file with mode 0600 from its first byte (a temporary file renamed over the old one). */
export async function writeCredentials(path: string, credentials: GmailCredentials): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  const handle = await open(temporary, 'w', 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(credentials, null, 2)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await chmod(temporary, 0o600); // the umask cannot widen 0600, but an existing temp file could be wider
  await rename(temporary, path);
}
