import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { MockModel } from './mock-model.js';

export const OPENCLAW_HOOK_TOKEN = 'oc-hook-token-for-tests';

export interface OpenClawGateway {
  /** `http://127.0.0.1:<port>`: the gateway's base URL (hooks under /hooks). */
  url: string;
  /** kill -9 of the gateway alone: its state directory stays, as after a crash. */
  kill(): Promise<void>;
  /** Starts it again on the same state and port; resolves once its hooks answer. */
  start(): Promise<void>;
  /** The gateway's output, for a failure message. */
  logPath: string;
}

/**
 * The real OpenClaw gateway on 127.0.0.1 only, its model the mock, its hooks enabled with a
 * token, in `dir` (state, config, home, logs). Quiet: no channels, no Gmail watcher, no mDNS, no
 * update checks, no canvas or browser servers. A preload keeps it off IPv6 and 0.0.0.0 (it would
 * otherwise also listen on [::1]).
 */
export async function startOpenClaw(entry: string, dir: string, model: MockModel): Promise<OpenClawGateway> {
  const state = join(dir, 'state');
  mkdirSync(join(dir, 'home'), { recursive: true });
  mkdirSync(state, { recursive: true });
  const port = await freePort();
  writeFileSync(join(state, 'openclaw.json'), JSON.stringify(gatewayConfig(port, model, join(dir, 'openclaw.log')), null, 2));
  const shim = join(dir, 'ipv4-loopback-only.cjs');
  writeFileSync(shim, IPV4_SHIM);
  const env = {
    ...process.env,
    HOME: join(dir, 'home'),
    NODE_OPTIONS: `--require ${shim}`,
    OPENCLAW_STATE_DIR: state,
    OPENCLAW_CONFIG_PATH: join(state, 'openclaw.json'),
    ...Object.fromEntries(QUIET.map((name) => [name, '1'])),
  };
  const logPath = join(dir, 'gateway.out');
  let child: ChildProcess | undefined;
  const url = `http://127.0.0.1:${port}`;
  const gateway: OpenClawGateway = {
    url,
    logPath,
    async kill() {
      const running = child;
      child = undefined;
      if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGKILL');
      await exited;
    },
    async start() {
      const out = createWriteStream(logPath, { flags: 'a' });
      child = spawn(process.execPath, [entry, 'gateway', 'run', '--port', String(port)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout?.pipe(out);
      child.stderr?.pipe(out);
      await untilHooksAnswer(url, child, logPath);
    },
  };
  await gateway.start();
  return gateway;
}

const QUIET = [
  'OPENCLAW_SKIP_CHANNELS',
  'OPENCLAW_SKIP_GMAIL_WATCHER',
  'OPENCLAW_DISABLE_BONJOUR',
  'OPENCLAW_NO_AUTO_UPDATE',
  'OPENCLAW_SKIP_CANVAS_HOST',
  'OPENCLAW_SKIP_BROWSER_CONTROL_SERVER',
  'OPENCLAW_NO_RESPAWN',
  'OPENCLAW_SKIP_STARTUP_MODEL_PREWARM',
];

const IPV4_SHIM = `const net = require("node:net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const options = args[0];
  const host = options !== null && typeof options === "object" ? options.host : args[1];
  if (host === "::1" || host === "::" || host === "0.0.0.0") {
    const error = Object.assign(new Error("listen on " + host + " disabled for the tests"), { code: "EADDRNOTAVAIL" });
    process.nextTick(() => this.emit("error", error));
    return this;
  }
  return listen.apply(this, args);
};
`;

function gatewayConfig(port: number, model: MockModel, logFile: string): Record<string, unknown> {
  const catalog = { id: 'mock-model', name: 'Mock', reasoning: false, input: ['text'], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 32000, maxTokens: 1024 };
  return {
    models: { mode: 'merge', providers: { mock: { baseUrl: model.baseUrl, apiKey: 'sk-local', api: 'openai-completions', models: [catalog] } } },
    agents: { defaults: { model: { primary: 'mock/mock-model' } } },
    gateway: { mode: 'local', bind: 'custom', customBindHost: '127.0.0.1', port, auth: { mode: 'token', token: 'oc-gateway-token-not-hooks' } },
    hooks: { enabled: true, token: OPENCLAW_HOOK_TOKEN, path: '/hooks' },
    logging: { file: logFile },
  };
}

/** Ready when an unauthenticated POST to its wake hook gets 401 (the gateway's own readiness signal). */
async function untilHooksAnswer(url: string, child: ChildProcess, logPath: string): Promise<void> {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the OpenClaw gateway exited before it listened; see ${logPath}`);
    const status = await fetch(`${url}/hooks/wake`, { method: 'POST', signal: AbortSignal.timeout(2000) }).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 401) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the OpenClaw gateway did not answer within 180 s; see ${logPath}`);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address !== 'object') throw new Error('no free port');
  return address.port;
}
