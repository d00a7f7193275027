import { readFileSync } from 'node:fs';
import JSON5 from 'json5';

/** What `gmail setup` may take from a config it is pointed at, when the command line leaves it out. */
export interface SetupDefaults {
  account?: string;
  project?: string;
  topic?: string;
  /** Where each came from, for the line that says so. */
  from: string[];
}

const TOPIC_PATH = /^projects\/([a-z][a-z0-9-]{4,28}[a-z0-9])\/topics\/([A-Za-z][\w.~+%-]{2,254})$/;

/**
 * An OpenClaw `hooks.gmail` block (gog) names the account and the Pub/Sub topic, the latter as
 * `projects/<project>/topics/<name>`: `gmail setup` reuses them instead of asking for them again.
 * A file that cannot be read or parsed gives nothing here; setup reports it when it reads the file.
 */
export function setupDefaultsFrom(configPath: string): SetupDefaults {
  let gmail: Record<string, unknown> | undefined;
  try {
    const raw = JSON5.parse(readFileSync(configPath, 'utf8')) as { hooks?: { gmail?: unknown } };
    const block = raw.hooks?.gmail;
    gmail = typeof block === 'object' && block !== null ? (block as Record<string, unknown>) : undefined;
  } catch {
    return { from: [] };
  }
  const defaults: SetupDefaults = { from: [] };
  if (typeof gmail?.['account'] === 'string' && gmail['account'].includes('@')) {
    defaults.account = gmail['account'];
    defaults.from.push('account');
  }
  const topic = typeof gmail?.['topic'] === 'string' ? TOPIC_PATH.exec(gmail['topic']) : null;
  if (topic !== null) {
    defaults.project = topic[1] as string;
    defaults.topic = topic[2] as string;
    defaults.from.push('topic');
  }
  return defaults;
}
