import { describe, expect, it } from 'vitest';
import { spawnServer } from '../helpers/process.js';
import { scratchServers } from '../helpers/scratch-servers.js';
import { until } from '../helpers/wait.js';
import { deliver, freePort, HOOK_TOKEN, RECEIVER_SECRET, relayCleanup, signedComment, spawnRelay, writeEdgeConfig, writeLocalConfig, type RelayProcess } from '../relay/processes.js';

const servers = scratchServers('hookgate-relay-crash-');
const cleanup = relayCleanup();

describe('hookgate relay through crashes', () => {
  it('brings 50 deliveries to the receiver while the client and then the edge are killed -9 and restarted; every duplicate has its first delivery’s webhook-id', async () => {
    const dir = servers.newDir();
    const config = writeEdgeConfig(dir, await freePort(), { leaseSeconds: 2 });
    let edge = servers.track(await spawnServer(config));
    const hooksUrl = `${edge.url}/hooks`;
    const receiver = await cleanup.receiver();
    const local = writeLocalConfig(dir, { kind: 'http', url: `${receiver.service.baseUrl}/inbox`, secret: RECEIVER_SECRET });
    const startClient = (): RelayProcess => {
      const relay = spawnRelay(['--from', hooksUrl, '--target', 'laptop', '--config', local, '--to', 'home', '--wait', '5']);
      cleanup.track(relay);
      return relay;
    };
    let client = startClient();
    await until(() => client.stdout.some((line) => line.startsWith('connected')), 60_000);
    // The client is killed while the receiver holds its answer to m12 (taken, never acknowledged),
    // the edge while it holds m35's (taken; its acknowledgement meets a dead edge).
    const clientCrash = receiver.holdFirst('m12');
    const edgeCrash = receiver.holdFirst('m35');
    const markers = Array.from({ length: 50 }, (_, index) => `m${index + 1}`);
    const sending = (async () => {
      for (const [index, marker] of markers.entries()) await deliver(hooksUrl, signedComment(marker, 1 + (index % 5)));
    })();
    await clientCrash.arrived;
    client.child.kill('SIGKILL');
    await client.exited;
    clientCrash.release();
    client = startClient();
    await edgeCrash.arrived;
    edge.kill('SIGKILL');
    await edge.exited;
    edgeCrash.release();
    edge = servers.track(await spawnServer(config));
    await sending;
    await until(() => new Set(receiver.received.map((entry) => entry.marker)).size === 50, 120_000);
    expect(receiver.refused()).toBe(0);
    const idsByMarker = new Map<string, Set<string>>();
    for (const entry of receiver.received) idsByMarker.set(entry.marker, (idsByMarker.get(entry.marker) ?? new Set()).add(entry.id));
    expect([...idsByMarker.keys()].sort()).toEqual([...markers].sort());
    for (const [marker, ids] of idsByMarker) expect([marker, ids.size]).toEqual([marker, 1]);
    expect(new Set(receiver.received.map((entry) => entry.id)).size).toBe(50);
    // The event taken when the client died came again after its lease, under its first id.
    expect(receiver.received.filter((entry) => entry.marker === 'm12').length).toBeGreaterThanOrEqual(2);
    // And the edge learns it: every one of them ends acknowledged there.
    await until(async () => {
      const views = await Promise.all([...idsByMarker.values()].map(([id]) => fetch(`${hooksUrl}/runs/${id}`, { headers: { authorization: `Bearer ${HOOK_TOKEN}` } }).then((response) => response.json() as Promise<{ run?: { status: string } }>)));
      return views.every((view) => view.run?.status === 'ok');
    }, 60_000);
  });
});
