import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { spawnServer } from '../helpers/process.js';
import { scratchServers } from '../helpers/scratch-servers.js';
import { runConcurrently } from '../helpers/load.js';

/**
 * kill -9 in the middle of concurrent load, restart on the same file: every acknowledged request
 * is stored exactly once, and retries with the same Idempotency-Key get the first response for
 * what was committed and a fresh commit for what was not. The guarantee for a process crash
 * holds with both `synchronous` settings (only power loss needs `full`).
 */

const TOKEN = 'crash-test-token-4242';
const REQUESTS = 300;
const CLIENTS = 8;
/** Kill once this many requests were acknowledged: the other clients are mid-request. */
const KILL_AFTER_ACKS = 100;
/**
 * Two server start-ups and a few hundred requests: seconds on an idle machine, several times that
 * on a loaded one. The bound is there so a hang fails; the test asserts no speed.
 */
const CRASH_TEST_TIMEOUT_MS = 120_000;
const START_TIMEOUT_MS = 60_000;

type Kind = 'wake' | 'agent';
interface Attempt {
  key: string;
  kind: Kind;
  /** What the client got before the kill, if anything. */
  reply?: { status: number; body: Record<string, unknown> };
}

function bodyFor(attempt: { key: string; kind: Kind }): Record<string, unknown> {
  return attempt.kind === 'wake' ? { text: needle(attempt), mode: 'next-heartbeat' } : { message: needle(attempt), deliver: false };
}

/** A text that occurs in exactly one request, so its stored rows can be counted. */
function needle(attempt: { key: string; kind: Kind }): string {
  return `crash ${attempt.kind} ${attempt.key} end`;
}

async function send(url: string, attempt: { key: string; kind: Kind }) {
  const response = await fetch(`${url}/hooks/${attempt.kind}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'idempotency-key': attempt.key },
    body: JSON.stringify(bodyFor(attempt)),
    signal: AbortSignal.timeout(60_000),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, replayed: response.headers.get('idempotent-replayed') === 'true' };
}

/**
 * Sends one request to a server frozen with SIGSTOP and resolves once its bytes have left this
 * process (the kernel accepts the connection for the frozen listener): it cannot have been answered,
 * nor committed, before the kill that follows.
 */
function sendToFrozen(url: string, attempt: { key: string; kind: Kind }): Promise<void> {
  return new Promise((resolve) => {
    const outgoing = request(`${url}/hooks/${attempt.kind}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'idempotency-key': attempt.key },
    });
    outgoing.on('error', () => undefined); // the kill resets the connection
    outgoing.end(JSON.stringify(bodyFor(attempt)), () => resolve());
  });
}

/** Rows each key's request produced, read straight from the file. */
function storedRows(dbPath: string, attempts: readonly Attempt[]) {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    const keyRow = db.prepare('SELECT response FROM idempotency WHERE key = ?');
    const wakeRows = db.prepare('SELECT count(*) AS n FROM events WHERE run_id IS NULL AND text = ?');
    const agentRows = db.prepare('SELECT run_id FROM runs WHERE instr(action, ?) > 0');
    const perKey = new Map<string, { response: { status: number; body: Record<string, unknown> } | undefined; rows: number; runIds: string[] }>();
    for (const attempt of attempts) {
      const stored = keyRow.get(attempt.key) as { response: string } | undefined;
      const runIds = attempt.kind === 'agent' ? agentRows.all(needle(attempt)).map((row) => String(row['run_id'])) : [];
      const rows = attempt.kind === 'wake' ? Number((wakeRows.get(needle(attempt)) as { n: number }).n) : runIds.length;
      perKey.set(attempt.key, { response: stored === undefined ? undefined : JSON.parse(stored.response), rows, runIds });
    }
    const totals = {
      wakeEvents: Number((db.prepare('SELECT count(*) AS n FROM events WHERE run_id IS NULL').get() as { n: number }).n),
      runs: Number((db.prepare('SELECT count(*) AS n FROM runs').get() as { n: number }).n),
    };
    return { perKey, totals };
  } finally {
    db.close();
  }
}

describe('a process crash under load', () => {
  const scratch = scratchServers('hookgate-crash-');

  it.each(['normal', 'full'] as const)('loses and duplicates nothing with synchronous: %s', async (synchronous) => {
    const dir = scratch.newDir();
    const config = join(dir, 'hookgate.json5');
    const dbPath = join(dir, 'store.sqlite');
    writeFileSync(config, JSON.stringify({ gateway: { port: 0 }, hooks: { enabled: true, token: TOKEN }, storage: { path: 'store.sqlite', synchronous } }));
    const first = await spawnServer(config, {}, START_TIMEOUT_MS);
    scratch.track(first);

    const planned: Attempt[] = Array.from({ length: REQUESTS }, (_, index) => ({
      key: `crash-${String(index).padStart(4, '0')}`,
      kind: index % 3 === 0 ? 'agent' : 'wake',
    }));
    const attempted: Attempt[] = [];
    let acks = 0;
    await runConcurrently(planned, CLIENTS, async (attempt) => {
      if (first.child.signalCode !== null || acks >= KILL_AFTER_ACKS) return;
      attempted.push(attempt);
      try {
        const { status, body } = await send(first.url, attempt);
        attempt.reply = { status, body };
        acks += 1;
        if (acks === KILL_AFTER_ACKS) {
          // Freeze the server where it stands (requests mid-commit stay mid-commit), hand it one
          // request it can never answer, then kill it: a crash with work certainly in flight, however
          // the other clients' answers happened to be timed.
          first.kill('SIGSTOP');
          const late: Attempt = { key: 'crash-late', kind: 'wake' };
          attempted.push(late);
          await sendToFrozen(first.url, late);
          first.kill('SIGKILL');
        }
      } catch {
        // no response: the process died under this request
      }
    });
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });

    const acknowledged = attempted.filter((attempt) => attempt.reply !== undefined);
    expect(acknowledged.length).toBeGreaterThanOrEqual(KILL_AFTER_ACKS);
    for (const attempt of acknowledged) expect(attempt.reply?.status).toBe(attempt.kind === 'wake' ? 200 : 202);
    // The kill landed mid-load: at least the request sent to the frozen server got no answer.
    expect(attempted.filter((attempt) => attempt.reply === undefined).map((attempt) => attempt.key)).toContain('crash-late');

    const second = await spawnServer(config, {}, START_TIMEOUT_MS);
    scratch.track(second);
    const recovered = storedRows(dbPath, attempted);
    for (const attempt of attempted) {
      const stored = recovered.perKey.get(attempt.key)!;
      // Committed ⇔ its key row exists, and then exactly one action row: never two, never a row without its key.
      expect(stored.rows, attempt.key).toBe(stored.response === undefined ? 0 : 1);
      if (attempt.reply !== undefined) {
        expect(stored.response, attempt.key).toEqual(attempt.reply);
        if (attempt.kind === 'agent') expect(stored.runIds).toEqual([attempt.reply.body['runId']]);
      }
    }
    // …and was not committed, so the retries below take the path of a request lost in the crash.
    expect(recovered.perKey.get('crash-late')!.response).toBeUndefined();
    const committedKinds = attempted.filter((attempt) => recovered.perKey.get(attempt.key)!.response !== undefined);
    expect(recovered.totals).toEqual({
      wakeEvents: committedKinds.filter((attempt) => attempt.kind === 'wake').length,
      runs: committedKinds.filter((attempt) => attempt.kind === 'agent').length,
    });

    const retries = new Map<string, Awaited<ReturnType<typeof send>>>();
    await runConcurrently(attempted, CLIENTS, async (attempt) => void retries.set(attempt.key, await send(second.url, attempt)));
    for (const attempt of attempted) {
      const retry = retries.get(attempt.key)!;
      const before = recovered.perKey.get(attempt.key)!.response;
      expect(retry.status, attempt.key).toBe(attempt.kind === 'wake' ? 200 : 202);
      // What was committed before the crash replays its first response; what was not commits now.
      expect(retry.replayed, attempt.key).toBe(before !== undefined);
      if (before !== undefined) expect({ status: retry.status, body: retry.body }).toEqual(before);
    }

    const final = storedRows(dbPath, attempted);
    for (const attempt of attempted) expect(final.perKey.get(attempt.key)!.rows, attempt.key).toBe(1);
    expect(final.totals).toEqual({
      wakeEvents: attempted.filter((attempt) => attempt.kind === 'wake').length,
      runs: attempted.filter((attempt) => attempt.kind === 'agent').length,
    });
  }, CRASH_TEST_TIMEOUT_MS);
});
