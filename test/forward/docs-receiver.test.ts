import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { post, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/wait.js';

/**
 * The receiver docs/forward.md gives (its `js` block, run as written) behind an `http` target that
 * also takes the callbacks: a user who copies it gets every action and every callback handed over
 * once, and a retry (the same webhook-id) handed over never again.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOCS = readFileSync(new URL('../../docs/forward.md', import.meta.url), 'utf8');
const SECRET = `whsec_${Buffer.from('the docs receiver secret, 32 b.').toString('base64')}`;
const LISTEN = '.listen(8080);';

/** The docs' receiver with its two placeholders defined (each prints what it was handed) and port 8080 made a free one. */
function receiverSource(): string {
  const block = [...DOCS.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1] ?? '').find((code) => code.includes('standardwebhooks'));
  if (block === undefined || !block.includes(LISTEN)) throw new Error(`docs/forward.md has no receiver example ending in ${LISTEN}`);
  const handlers = [
    "const startAgentRun = (document) => console.log(JSON.stringify({ handed: 'action', id: document.id }));",
    "const runFinished = (document) => console.log(JSON.stringify({ handed: 'callback', runId: document.runId }));",
  ].join('\n');
  const listen = ".listen(0, '127.0.0.1').on('listening', function () { console.log(JSON.stringify({ port: this.address().port })); });";
  return `${handlers}\n${block.replace(LISTEN, listen)}`;
}

interface Receiver {
  url: string;
  handed: Array<{ handed: string; id?: string; runId?: string }>;
}

let child: ChildProcess | undefined;
let svc: TestService | undefined;
afterEach(async () => {
  await svc?.close();
  if (child !== undefined && child.exitCode === null) {
    const exited = new Promise((resolve) => child?.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
  svc = undefined;
  child = undefined;
});

async function startReceiver(): Promise<Receiver> {
  const started = spawn(process.execPath, ['--input-type=module', '-e', receiverSource()], { cwd: ROOT, env: { ...process.env, INBOX_WEBHOOK_SECRET: SECRET }, stdio: ['ignore', 'pipe', 'pipe'] });
  child = started;
  let stderr = '';
  started.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const handed: Receiver['handed'] = [];
  const port = await new Promise<number>((resolve, reject) => {
    started.once('exit', (code) => reject(new Error(`the docs' receiver exited with ${code}: ${stderr}`)));
    createInterface({ input: started.stdout! }).on('line', (line) => {
      const parsed = JSON.parse(line) as { port?: number; handed?: string };
      if (parsed.port !== undefined) resolve(parsed.port);
      else handed.push(parsed as Receiver['handed'][number]);
    });
  });
  return { url: `http://127.0.0.1:${port}/inbox`, handed };
}

/** An action document signed as the http target signs it, under webhook-id `id`. */
function sendAction(url: string, id: string): Promise<Response> {
  const document = JSON.stringify({ type: 'hookgate.action.v1', id, kind: 'agent', message: 'Build failed', untrusted: true });
  const now = new Date();
  const headers = { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': new Webhook(SECRET).sign(id, now, document) };
  return fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: document });
}

describe("docs/forward.md's receiver", () => {
  it('hands each action and each callback over once, and a retry under the same webhook-id never again', async () => {
    const receiver = await startReceiver();
    svc = await startTestService({
      targets: { inbox: { kind: 'http', url: receiver.url, secret: SECRET } },
      hooks: { mappings: [{ id: 'ci', match: { path: 'ci' }, action: 'agent', messageTemplate: 'Build {{build}} failed', forward: 'inbox', callback: 'inbox' }] },
    });
    const runIds = [(await post(`${svc.hooksUrl}/ci`, { build: 1 })).body.runId as string, (await post(`${svc.hooksUrl}/ci`, { build: 2 })).body.runId as string];
    const ended = (): number => (svc?.db.prepare("SELECT COUNT(*) AS n FROM runs WHERE status IN ('ok', 'error')").get() as { n: number }).n;
    await until(() => ended() === 4, 30_000); // two forwards, two callbacks
    expect(svc.db.prepare("SELECT COUNT(*) AS n FROM runs WHERE status = 'ok'").get()).toEqual({ n: 4 });

    // A retry of the first action, then a new one: the receiver prints in order, so once the new one
    // is there, anything the retry handed over would be too.
    expect((await sendAction(receiver.url, runIds[0] as string)).status).toBe(200);
    expect((await sendAction(receiver.url, 'a-new-action')).status).toBe(202);
    await until(() => receiver.handed.some((entry) => entry.id === 'a-new-action'));

    const actions = receiver.handed.filter((entry) => entry.handed === 'action').map((entry) => entry.id);
    const callbacks = receiver.handed.filter((entry) => entry.handed === 'callback').map((entry) => entry.runId);
    expect(actions.sort()).toEqual([...runIds, 'a-new-action'].sort());
    expect(callbacks.sort()).toEqual([...runIds].sort());
  });
});
