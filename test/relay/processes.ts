import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { afterEach } from 'vitest';
import { startFakeService, type FakeService, type Recorded } from '../channels/fake-service.js';
import { BIN } from '../helpers/process.js';

/**
 * The parts of a relay set-up as real processes on loopback (docs/relay.md): an edge (`hookgate
 * serve` with a relay target and the github preset forwarding to it), `hookgate relay` next to an
 * `http` receiver that verifies every POST with the standardwebhooks library, and a sender that
 * signs GitHub deliveries. Shared by the suite's relay tests and the peer tests.
 */

export const HOOK_TOKEN = 'edge-hook-token-0123456789';
export const RELAY_TOKEN = 'edge-relay-token-0123456789';
export const GITHUB_SECRET = 'edge-github-webhook-secret';
export const RECEIVER_SECRET = `whsec_${Buffer.from('the laptop receiver secret, 32 b').toString('base64')}`;

const COMMENT = JSON.parse(readFileSync(fileURLToPath(new URL('../fixtures/corpora/github/payloads/issue_comment.created.json', import.meta.url)), 'utf8')) as Record<string, Record<string, unknown>>;

/** A port nothing listens on now, so a restarted edge comes back where its consumers look. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The edge's config file (the issue's: a relay target, the github preset forwarding to it). */
export function writeEdgeConfig(dir: string, port: number, laptop: Record<string, unknown> = {}): string {
  const path = join(dir, 'edge.json5');
  const config = {
    gateway: { bind: '127.0.0.1', port, shutdownGraceMs: 1000 },
    hooks: { enabled: true, token: HOOK_TOKEN, presets: [{ name: 'github', secret: GITHUB_SECRET, forward: 'laptop' }] },
    targets: { laptop: { kind: 'relay', tokens: [RELAY_TOKEN], retentionHours: 168, leaseSeconds: 60, ...laptop } },
    storage: { path: join(dir, 'edge.sqlite') },
    logging: { level: 'info' },
  };
  writeFileSync(path, JSON.stringify(config, null, 2));
  return path;
}

/** The laptop's config file: one local target `home` (an http target, the receiver). */
export function writeLocalConfig(dir: string, target: Record<string, unknown>): string {
  const path = join(dir, 'local.json5');
  writeFileSync(path, JSON.stringify({ targets: { home: target } }, null, 2));
  return path;
}

/** One comment delivery, signed as GitHub signs it; `marker` is in its body (and so in the action's message). */
export function signedComment(marker: string, issue: number): { body: string; headers: Record<string, string> } {
  const payload = { ...COMMENT, issue: { ...COMMENT['issue'], number: issue }, comment: { ...COMMENT['comment'], id: Number(marker.replace(/\D/g, '')) || 1, node_id: `IC_${marker}`, body: `comment ${marker}` } };
  const body = JSON.stringify(payload);
  const signature = `sha256=${createHmac('sha256', GITHUB_SECRET).update(body).digest('hex')}`;
  return { body, headers: { 'content-type': 'application/json', 'x-github-event': 'issue_comment', 'x-github-delivery': randomUUID(), 'x-hub-signature-256': signature } };
}

/** POSTs a delivery to the edge's github hook until it is acknowledged (2xx), as a sender retries through an outage. */
export async function deliver(hooksUrl: string, delivery: { body: string; headers: Record<string, string> }, until = Date.now() + 120_000): Promise<number> {
  for (;;) {
    try {
      const response = await fetch(`${hooksUrl}/github`, { method: 'POST', headers: delivery.headers, body: delivery.body });
      await response.arrayBuffer();
      if (response.ok) return response.status;
      if (response.status < 500) throw new Error(`the edge refused a delivery: ${response.status}`);
    } catch (error) {
      if ((error as Error).message.startsWith('the edge refused')) throw error;
    }
    if (Date.now() > until) throw new Error('the edge did not take a delivery in time');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export interface Received {
  id: string;
  marker: string;
  document: Record<string, unknown>;
}

export interface Receiver {
  service: FakeService;
  received: Received[];
  refused: () => number;
  /**
   * Holds the answer to the first delivery of `marker` (it is recorded as received) until the
   * returned release() is called; `arrived` resolves when it came. For a crash at that moment.
   */
  holdFirst(marker: string): { arrived: Promise<void>; release: () => void };
}

/** The laptop's agent inbox: verifies each POST with standardwebhooks (a forged or stale one is refused), records it, answers 202. */
export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const holds = new Map<string, { arrive: () => void; released: Promise<void> }>();
  let refused = 0;
  const service = await startFakeService(async (request: Recorded) => {
    let document: Record<string, unknown>;
    try {
      document = new Webhook(RECEIVER_SECRET).verify(request.text, request.headers as Record<string, string>) as Record<string, unknown>;
    } catch {
      refused += 1;
      return { status: 401, json: { error: 'bad signature' } };
    }
    const marker = /comment (m\d+)/.exec(String(document['message']))?.[1] ?? '?';
    received.push({ id: String(request.headers['webhook-id']), marker, document });
    const hold = holds.get(marker);
    if (hold !== undefined) {
      holds.delete(marker);
      hold.arrive();
      await hold.released;
    }
    return { status: 202, json: { runId: `inbox-${received.length}` } };
  });
  return {
    service,
    received,
    refused: () => refused,
    holdFirst(marker) {
      let arrive = (): void => undefined;
      let release = (): void => undefined;
      const arrived = new Promise<void>((resolve) => (arrive = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      holds.set(marker, { arrive, released });
      return { arrived, release };
    },
  };
}

export interface RelayProcess {
  child: ChildProcess;
  stdout: string[];
  stderr: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `hookgate relay` as the laptop runs it, the token from the environment. */
export function spawnRelay(args: string[], token = RELAY_TOKEN): RelayProcess {
  const child = spawn(process.execPath, [BIN, 'relay', ...args], { env: { ...process.env, HOOKGATE_RELAY_TOKEN: token }, stdio: ['ignore', 'pipe', 'pipe'] });
  const stdout: string[] = [];
  const stderr: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => stdout.push(line));
  createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, stdout, stderr, exited };
}

/**
 * Called in a test file: relay clients it spawns and receivers it starts are stopped after each
 * test (a client still running is killed -9 and waited for).
 */
export function relayCleanup(): { track(relay: RelayProcess): RelayProcess; receiver(): Promise<Receiver> } {
  const relays: RelayProcess[] = [];
  const receivers: Receiver[] = [];
  afterEach(async () => {
    for (const relay of relays.splice(0)) {
      if (relay.child.exitCode === null && relay.child.signalCode === null) relay.child.kill('SIGKILL');
      await relay.exited;
    }
    for (const receiver of receivers.splice(0)) await receiver.service.close();
  });
  return {
    track(relay) {
      relays.push(relay);
      return relay;
    },
    async receiver() {
      const receiver = await startReceiver();
      receivers.push(receiver);
      return receiver;
    },
  };
}
