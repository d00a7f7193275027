import { describe, expect, it } from 'vitest';
import { spawnServer } from '../helpers/process.js';
import { scratchServers } from '../helpers/scratch-servers.js';
import { until } from '../helpers/wait.js';
import { deliver, freePort, HOOK_TOKEN, RECEIVER_SECRET, relayCleanup, signedComment, spawnRelay, writeEdgeConfig, writeLocalConfig } from '../relay/processes.js';

const servers = scratchServers('hookgate-relay-');
const cleanup = relayCleanup();

describe('hookgate relay between real processes (an edge, the client, an http receiver)', () => {
  it('holds 10 signed deliveries while no client runs, then hands each to the receiver once, acknowledged on the edge', async () => {
    const dir = servers.newDir();
    const edge = servers.track(await spawnServer(writeEdgeConfig(dir, await freePort())));
    const hooksUrl = `${edge.url}/hooks`;
    const markers = Array.from({ length: 10 }, (_, index) => `m${index + 1}`);
    for (const [index, marker] of markers.entries()) expect(await deliver(hooksUrl, signedComment(marker, 1 + (index % 3)))).toBe(202);
    const held = await fetch(`${hooksUrl}/relay/laptop/events?consumer=peek&wait=0&max=1`, { headers: { authorization: `Bearer ${HOOK_TOKEN}` } });
    expect(held.status).toBe(403);

    const receiver = await cleanup.receiver();
    const local = writeLocalConfig(dir, { kind: 'http', url: `${receiver.service.baseUrl}/inbox`, secret: RECEIVER_SECRET });
    const relay = spawnRelay(['--from', hooksUrl, '--target', 'laptop', '--config', local, '--to', 'home', '--consumer', 'laptop-1']);
    cleanup.track(relay);
    await until(() => new Set(receiver.received.map((entry) => entry.marker)).size === 10, 60_000);
    // Every event acknowledged: the edge's backlog is empty (the client says it, and so does the edge).
    await until(() => relay.stdout.filter((line) => line.startsWith('forwarded ')).length === 10, 30_000);
    expect(receiver.refused()).toBe(0);
    expect(receiver.received.map((entry) => entry.marker).sort()).toEqual([...markers].sort());
    expect(new Set(receiver.received.map((entry) => entry.id)).size).toBe(10);
    for (const entry of receiver.received) expect(entry.document).toMatchObject({ type: 'hookgate.action.v1', id: entry.id, kind: 'agent', untrusted: true, origin: { path: 'github', scheme: 'github', verified: true } });
    // Per session key (one per issue), in the order the edge accepted them.
    for (const issue of [1, 2, 3]) {
      const order = receiver.received.filter((entry) => String(entry.document['sessionKey']).endsWith(`#${issue}`)).map((entry) => entry.marker);
      expect(order).toEqual(markers.filter((_, index) => 1 + (index % 3) === issue));
    }
    const runs = await Promise.all(receiver.received.map((entry) => fetch(`${hooksUrl}/runs/${entry.id}`, { headers: { authorization: `Bearer ${HOOK_TOKEN}` } }).then((response) => response.json() as Promise<{ run: { status: string; kind: string } }>)));
    expect(runs.map((answer) => [answer.run.kind, answer.run.status])).toEqual(Array.from({ length: 10 }, () => ['relay', 'ok']));
    relay.child.kill('SIGTERM');
    expect((await relay.exited).code).toBe(0);
    expect(relay.stderr).toEqual([]);
    expect(receiver.received).toHaveLength(10);
  });

  it('exits non-zero with one line when the edge refuses its relay token', async () => {
    const dir = servers.newDir();
    const edge = servers.track(await spawnServer(writeEdgeConfig(dir, await freePort())));
    const local = writeLocalConfig(dir, { kind: 'http', url: 'http://127.0.0.1:9/inbox', secret: RECEIVER_SECRET });
    const relay = spawnRelay(['--from', `${edge.url}/hooks`, '--target', 'laptop', '--config', local, '--to', 'home'], 'not-the-relay-token-0000');
    cleanup.track(relay);
    expect((await relay.exited).code).toBe(1);
    expect(relay.stderr).toHaveLength(1);
    expect(relay.stderr[0]).toMatch(/^hookgate relay: the edge refused the token for relay target "laptop" \(401 UNAUTHORIZED: invalid relay token\)$/);
  });
});
