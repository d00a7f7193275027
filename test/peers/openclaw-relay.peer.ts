import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServer, type ServerProcess } from '../helpers/process.js';
import { until } from '../helpers/wait.js';
import { deliver, freePort, HOOK_TOKEN, signedComment, spawnRelay, writeEdgeConfig, writeLocalConfig, type RelayProcess } from '../relay/processes.js';
import { startMockModel, type MockModel } from './mock-model.js';
import { OPENCLAW_HOOK_TOKEN, startOpenClaw, type OpenClawGateway } from './openclaw-gateway.js';
import { ensureOpenClaw } from './openclaw-install.js';
import { startLossyProxy, type LossyProxy } from './lossy-proxy.js';

/**
 * A relay in front of the REAL OpenClaw gateway (docs/relay.md): an edge (`hookgate serve`, the
 * github preset forwarding to a relay target), `hookgate relay` on "the laptop" handing each event
 * to OpenClaw through a proxy that can lose answers, OpenClaw's model a local mock that logs every
 * request. Redeliveries (a lost answer, a client killed -9 mid-handoff) carry the event id as
 * OpenClaw's idempotency key: OpenClaw replays its first run instead of starting a second.
 */

const START = /<<<EXTERNAL_UNTRUSTED_CONTENT id="([0-9a-f]+)">>>/g;
const END = /<<<END_EXTERNAL_UNTRUSTED_CONTENT id="([0-9a-f]+)">>>/g;

let dir: string;
let model: MockModel;
let gateway: OpenClawGateway;
let proxy: LossyProxy;
let edge: ServerProcess;
let relay: RelayProcess;
let relayArgs: string[];

beforeAll(async () => {
  const entry = await ensureOpenClaw();
  dir = mkdtempSync(join(tmpdir(), 'hookgate-openclaw-relay-'));
  model = await startMockModel();
  gateway = await startOpenClaw(entry, join(dir, 'openclaw'), model);
  proxy = await startLossyProxy(Number(new URL(gateway.url).port));
  edge = await spawnServer(writeEdgeConfig(dir, await freePort(), { leaseSeconds: 3 }));
  const local = writeLocalConfig(dir, { kind: 'openclaw', url: `http://127.0.0.1:${proxy.port}`, token: OPENCLAW_HOOK_TOKEN, waitForCompletion: true });
  relayArgs = ['--from', `${edge.url}/hooks`, '--target', 'laptop', '--config', local, '--to', 'home', '--wait', '5'];
  relay = spawnRelay(relayArgs);
});

afterAll(async () => {
  for (const child of [relay?.child, edge?.child]) if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await relay?.exited;
  await edge?.exited;
  await gateway?.kill();
  await proxy?.close();
  await model?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** OpenClaw's model turns that contain `needle`. */
function turnsWith(needle: string): string[] {
  return model.requests.map((request) => request.messages.map((message) => message.content).join('\n')).filter((text) => text.includes(needle));
}

/** The edge's view of the relay run an event became. */
async function runsOf(ids: readonly string[]): Promise<Array<{ status: string; attempts: number }>> {
  return Promise.all(ids.map((id) => fetch(`${edge.url}/hooks/runs/${id}`, { headers: { authorization: `Bearer ${HOOK_TOKEN}` } }).then(async (response) => ((await response.json()) as { run: { status: string; attempts: number } }).run)));
}

/** The edge's run ids, in the order of the deliveries (each answer names its run). */
async function send(markers: readonly string[], issue: number): Promise<string[]> {
  const ids: string[] = [];
  for (const marker of markers) {
    const delivery = signedComment(marker, issue);
    const response = await fetch(`${edge.url}/hooks/github`, { method: 'POST', headers: delivery.headers, body: delivery.body });
    ids.push(((await response.json()) as { runId: string }).runId);
  }
  return ids;
}

describe('a relay in front of the real OpenClaw gateway', () => {
  it('hands each held event to OpenClaw once, in one envelope, and acknowledges it on the edge', async () => {
    const markers = ['m1', 'm2', 'm3'];
    const ids = await send(markers, 7);
    await until(async () => (await runsOf(ids)).every((run) => run.status === 'ok'), 180_000);
    for (const marker of markers) {
      const turns = turnsWith(`comment ${marker}`);
      expect(turns, marker).toHaveLength(1);
      expect([...(turns[0] ?? '').matchAll(START)]).toHaveLength(1);
      expect([...(turns[0] ?? '').matchAll(END)]).toHaveLength(1);
    }
  });

  it('an answer lost on its way back: the client sends the event again under its id and OpenClaw replays it', async () => {
    proxy.loseAnswers(1);
    const [id] = await send(['m10'], 8);
    await until(async () => (await runsOf([id ?? '']))[0]?.status === 'ok', 180_000);
    expect(proxy.lost).toBe(1);
    expect(turnsWith('comment m10')).toHaveLength(1);
  });

  it('the client killed -9 while OpenClaw runs the event: the next client gets it after the lease, and OpenClaw replays it instead of running it twice', async () => {
    // OpenClaw's answer is held back in the proxy: the client is killed while it waits for it.
    const held = proxy.holdNextAnswer();
    const [id] = await send(['m20'], 9);
    await until(() => turnsWith('comment m20').length === 1, 180_000);
    relay.child.kill('SIGKILL');
    await relay.exited;
    held.release();
    relay = spawnRelay(relayArgs);
    await until(async () => (await runsOf([id ?? '']))[0]?.status === 'ok', 180_000);
    expect((await runsOf([id ?? '']))[0]?.attempts).toBeGreaterThanOrEqual(2);
    expect(turnsWith('comment m20')).toHaveLength(1);
    await deliver(`${edge.url}/hooks`, signedComment('m21', 9));
    await until(() => turnsWith('comment m21').length === 1, 180_000);
  });
});
