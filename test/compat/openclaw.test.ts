import { DatabaseSync } from 'node:sqlite';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCheck } from '../../src/commands/check.js';
import { runTry } from '../../src/commands/try.js';
import { runStatus } from '../../src/commands/status.js';
import { loadConfigFile } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { startService, type Service } from '../../src/service.js';
import { bodyOf, startFakeService, type FakeService, type Recorded } from '../channels/fake-service.js';

// The fixture is copied to a temp dir: its default store path (./data) is relative to the config file.
const FIXTURE = join(import.meta.dirname, 'openclaw');
const TOKEN = 'compat-hook-token';

async function cli(run: typeof runCheck, argv: string[], cwd: string) {
  let stdout = '';
  let stderr = '';
  const code = await run(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {}, cwd });
  return { code, stdout, stderr };
}

async function post(url: string, body: unknown, headers: Record<string, string> = { 'x-openclaw-token': TOKEN }) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : (JSON.parse(text) as Record<string, any>) };
}

/** The `local` provider of the fixture: an OpenAI-compatible server that records each request and answers `fine`. */
function modelApi(calls: Recorded[]) {
  return (request: Recorded) => {
    calls.push(request);
    return { status: 200, json: { id: `c${calls.length}`, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'fine' }, finish_reason: 'stop' }] } };
  };
}

describe('an OpenClaw config file given to --config', () => {
  let dir: string;
  let model: FakeService;
  const modelCalls: Recorded[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-compat-'));
    cpSync(FIXTURE, dir, { recursive: true });
    model = await startFakeService(modelApi(modelCalls));
    const file = join(dir, 'openclaw.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('http://127.0.0.1:9/v1', `${model.baseUrl}/v1`));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await model.close();
  });

  it('passes check, which lists every key it does not use, one line each', async () => {
    const { code, stdout } = await cli(runCheck, ['--config', 'openclaw.json'], dir);
    expect(code).toBe(0);
    expect(stdout).toContain('listen        http://127.0.0.1:18789'); // bind "custom" took customBindHost
    expect(stdout).toContain('transforms    ' + join(dir, 'hooks', 'transforms') + ' (2 examples passed)');
    // 6. A bare model id resolves through the providers' catalogs.
    expect(stdout).toContain('catalog       llama3 → local/llama3');
    // 9. The gog watcher block is said to be unused, with the command that sets up Hookgate's own watcher.
    expect(stdout).toContain('warning: hooks.gmail is not enabled, so no Gmail watcher runs');
    expect(stdout).toContain('`hookgate gmail setup --account me@example.com --project example --topic gog-gmail-watch`');
    const ignored = stdout.split('\n').filter((line) => line.startsWith('ignored: ')).map((line) => line.slice('ignored: '.length, line.indexOf(':', 'ignored: '.length)));
    expect(ignored.sort()).toEqual(
      [
        '/meta', '/wizard', '/tools', '/session', '/messages', '/gateway/mode', '/gateway/controlUi', '/gateway/tailscale', '/gateway/auth/mode',
        '/agents/list', '/agents/defaults/workspace', '/agents/defaults/heartbeat/target', '/hooks/internal', '/models/mode',
        '/models/providers/claude', '/channels/matrix', '/channels/telegram/dmPolicy',
        '/channels/telegram/allowFrom', '/logging/file', '/agents/defaults/model/fallbacks', '/agents/defaults/models/local/llama3/params',
      ].sort(),
    );
  }, 60_000); // starts a sandbox worker to run the transform's examples

  describe('serves', () => {
    let service: Service;
    let db: DatabaseSync;
    let hooks: string;
    const logLines: string[] = [];
    const logged = (event: string) => logLines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line['event'] === event);
    beforeAll(async () => {
      const config = await loadConfigFile(join(dir, 'openclaw.json'), {});
      const logger = createLogger({ level: 'warn', destination: { write: (line: string) => void logLines.push(line) } });
      service = await startService({ config, logger, port: 0, watch: false });
      db = new DatabaseSync(config.storage.path);
      hooks = `${service.url}/hooks`;
    }, 60_000);
    afterAll(async () => {
      await service.close();
      db.close();
    });

    const runs = () => db.prepare('SELECT hook, session_key, action FROM runs ORDER BY created_at').all() as Array<{ hook: string; session_key: string; action: string }>;

    it('runs a transform written for OpenClaw (kind, input.url) from hooks/transforms, authenticated by x-openclaw-token', async () => {
      const push = await post(`${hooks}/github?delivery=1&token=${TOKEN}`, { sender: { login: 'ada' }, repository: { full_name: 'org/repo' } }, { 'x-openclaw-token': TOKEN, 'x-github-event': 'push' });
      expect(push.status).toBe(202);
      expect((await post(`${hooks}/github`, {}, { 'x-openclaw-token': TOKEN, 'x-github-event': 'ping' })).status).toBe(204);
      const run = runs().find((row) => row.hook === 'github');
      expect(run?.session_key).toBe('hook:github:org/repo');
      expect(run?.action).toContain('GitHub push via /hooks/github?delivery=1: ada');
    });

    it('follows allowRequestSessionKey false and defaultSessionKey, and resolves model aliases from the OpenClaw map', async () => {
      const refused = await post(`${hooks}/agent`, { message: 'hi', sessionKey: 'hook:mine' });
      expect([refused.status, refused.body?.code]).toEqual([400, 'SESSION_KEY_NOT_ALLOWED']);
      expect((await post(`${hooks}/agent`, { message: 'hi', model: 'llama', agentId: 'main' })).status).toBe(202);
      expect((await post(`${hooks}/agent`, { message: 'hi', model: 'other/model' })).body?.code).toBe('MODEL_NOT_ALLOWED');
      const agentRun = runs().filter((row) => row.hook === 'agent').at(-1);
      expect(agentRun?.session_key).toBe('hook:ingress');
      expect(JSON.parse(agentRun?.action ?? '{}')).toMatchObject({ model: 'local/llama3' });
      expect((await post(`${hooks}/ci`, { build: { number: 7, status: 'green' } })).status).toBe(202);
      expect(runs().filter((row) => row.hook === 'ci').map((row) => row.session_key)).toEqual(['hook:mapping:ci']);
    });

    it('renders {{json}} as the payload field of that name, and takes a 1 MiB body on the gmail path only', async () => {
      expect((await post(`${hooks}/ingest`, { source: 'monitor', check: 'db', status: 'down', json: 'raw' })).status).toBe(200);
      const event = db.prepare('SELECT text FROM events ORDER BY id DESC LIMIT 1').get() as { text: string };
      expect(event.text).toContain('Monitor db is down (raw)');
      const large = 'x'.repeat(1024 * 1024);
      expect((await post(`${hooks}/gmail`, { source: 'gmail', messages: [{ id: 'm1', from: 'a@example.com', subject: 's', body: large }] })).status).toBe(202);
      expect((await post(`${hooks}/agent`, { message: large })).status).toBe(413);
    });

    describe('drop-in, round 2', () => {
      const count = (hook: string) => runs().filter((row) => row.hook === hook).length;

      it('1. replays X-OpenClaw-Idempotency-Key and the body idempotencyKey like Idempotency-Key: same runId, one run', async () => {
        const before = count('agent');
        const headers = { 'x-openclaw-token': TOKEN, 'x-openclaw-idempotency-key': 'oc-key-1' };
        const first = await post(`${hooks}/agent`, { message: 'once' }, headers);
        const again = await post(`${hooks}/agent`, { message: 'once' }, headers);
        expect([first.status, again.status, again.body?.runId]).toEqual([202, 202, first.body?.runId]);
        const byBody = await post(`${hooks}/agent`, { message: 'body key', idempotencyKey: 'oc-body-1' });
        const byBodyAgain = await post(`${hooks}/agent`, { message: 'body key', idempotencyKey: 'oc-body-1' });
        expect(byBodyAgain.body?.runId).toBe(byBody.body?.runId);
        expect(count('agent') - before).toBe(2);
        expect((await post(`${hooks}/agent`, { message: 'x', idempotencyKey: '' })).body?.code).toBe('INVALID_IDEMPOTENCY_KEY');
      });

      it('3. refuses sessionKey and agentId on /wake, naming the field (main included)', async () => {
        for (const [field, value] of [['sessionKey', 'hook:x'], ['sessionKey', 'main'], ['agentId', 'main']] as const) {
          const refused = await post(`${hooks}/wake`, { text: 'hi', [field]: value });
          expect([refused.status, refused.body?.code]).toEqual([400, 'INVALID_BODY']);
          expect(refused.body?.error).toMatch(new RegExp(`^${field} is not supported on /wake`));
        }
      });

      it('4, 5. understands mode, agentId, sessionMode, sessionKeySource and input.url as a URL; ignores other keys with one warning', async () => {
        const deployed = await post(`${hooks}/deploy?env=prod`, { ref: 'v1' });
        expect(deployed.status).toBe(202);
        expect((await post(`${hooks}/deploy?env=prod`, { ref: 'v2' })).status).toBe(202);
        const rows = runs().filter((row) => row.hook === 'deploy');
        expect(rows.map((row) => row.session_key)).toEqual(['hook:mapping:deploy', 'hook:mapping:deploy']);
        expect(rows[0]?.action).toContain('Deploy to prod via /hooks/deploy (/hooks/deploy?env=prod)');
        expect(logged('transform.ignored_keys')).toEqual([expect.objectContaining({ module: 'deploy.js', keys: ['"priority"'] })]);
        const woken = await post(`${hooks}/alert`, { title: 'disk' });
        expect([woken.status, woken.body]).toEqual([200, { ok: true, mode: 'next-heartbeat' }]);
        expect((await post(`${hooks}/deploy`, { unsafe: true })).status).toBe(500);
      });

      it('8. refuses accountId and a channel that is not configured at admission', async () => {
        const account = await post(`${hooks}/agent`, { message: 'hi', accountId: 'work' });
        expect([account.status, account.body?.error]).toEqual([400, expect.stringMatching(/^accountId is not supported on \/agent/)]);
        const unconfigured = await post(`${hooks}/agent`, { message: 'hi', channel: 'discord' });
        expect([unconfigured.status, unconfigured.body?.error]).toEqual([400, expect.stringContaining('channel "discord" is not configured')]);
        expect((await post(`${hooks}/agent`, { message: 'hi', channel: 'telegram' })).status).toBe(202);
      });

      it('6. resolves a bare model id through the providers\' model catalogs', async () => {
        const accepted = await post(`${hooks}/agent`, { message: 'hi', model: 'llama3' });
        expect(accepted.status).toBe(202);
        expect(JSON.parse(runs().at(-1)?.action ?? '{}')).toMatchObject({ model: 'local/llama3' });
      });

      it('7. sends no thinking to a reasoning: false catalog model (noted on the run) and its maxTokens as max_tokens', async () => {
        const held = await post(`${hooks}/agent`, { message: 'think hard', model: 'llama3', thinking: 'high', waitForCompletion: true });
        expect([held.status, held.body?.completion?.status]).toEqual([200, 'ok']);
        const sent = bodyOf(modelCalls.find((call) => JSON.stringify(bodyOf(call)).includes('think hard')));
        expect(sent).toMatchObject({ model: 'llama3', max_tokens: 512 });
        expect(sent).not.toHaveProperty('reasoning_effort');
        const view = (await (await fetch(`${hooks}/runs/${held.body?.runId}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { run: { notes?: string[] } };
        expect(view.run.notes).toEqual([expect.stringMatching(/^thinking "high" not sent: .*reasoning: false/)]);
      });

      it('2. waitForCompletion: true holds the answer until the run ended: 200 with its status and reply', async () => {
        const held = await post(`${hooks}/agent`, { message: 'wait for me', waitForCompletion: true });
        expect(held.status).toBe(200);
        expect(held.body).toMatchObject({ ok: true, runId: expect.any(String), completion: { status: 'ok', reply: expect.stringContaining('wait for me') } });
        expect(db.prepare('SELECT status FROM runs WHERE run_id = ?').get(held.body?.runId)).toEqual({ status: 'ok' });
        expect((await post(`${hooks}/agent`, { message: 'hi', waitForCompletion: false })).status).toBe(202);
        // A retry under the same key waits on the same run, and answers as the first did.
        const keyed = { message: 'wait again', waitForCompletion: true, idempotencyKey: 'oc-wait-1' };
        const first = await post(`${hooks}/agent`, keyed);
        const retried = await post(`${hooks}/agent`, keyed);
        expect([first.status, retried.status, retried.body?.runId, retried.body?.completion?.status]).toEqual([200, 200, first.body?.runId, 'ok']);
      });

      it('11. says once (log, /readyz, hookgate status) that X-Forwarded-For comes from a peer outside trustedProxies', async () => {
        for (const client of ['203.0.113.7', '203.0.113.8']) await post(`${hooks}/wake`, { text: 'via proxy' }, { 'x-openclaw-token': TOKEN, 'x-forwarded-for': client });
        expect(logged('http.untrusted_forwarded_for')).toEqual([expect.objectContaining({ peer: '127.0.0.1' })]);
        const ready = (await (await fetch(`${service.url}/readyz`)).json()) as { forwardedFor?: { message: string } };
        expect(ready.forwardedFor?.message).toMatch(/^requests arrive with X-Forwarded-For from a peer that is not in gateway.trustedProxies/);
        const status = await cli(runStatus, ['--config', 'openclaw.json'], dir);
        expect(status.stdout).toContain(`server: running at ${service.url}`);
        expect(status.stdout).toContain('  warning: requests arrive with X-Forwarded-For from a peer that is not in gateway.trustedProxies');
      });

      it('10. refuses sessionMode "persistent" on /agent without a sessionKey', async () => {
        const refused = await post(`${hooks}/agent`, { message: 'hi', sessionMode: 'persistent' });
        expect([refused.status, refused.body?.error]).toEqual([400, 'sessionMode "persistent" requires sessionKey']);
        expect((await post(`${hooks}/agent`, { message: 'hi', sessionMode: 'isolated' })).status).toBe(202);
      });
    });
  });

  it('hookgate try shows the keys a transform returned that Hookgate ignores', async () => {
    writeFileSync(join(dir, 'deploy.json'), '{"ref":"v1"}');
    const tried = await cli(runTry, ['deploy', '--payload', 'deploy.json', '--config', 'openclaw.json'], dir);
    expect(tried.code).toBe(0);
    expect(tried.stdout).toContain('note: transform "deploy.js" returned keys Hookgate does not use, ignored: "priority"');
  }, 60_000);

  it('hookgate try names an unknown override key (ignored, with a hint) and a wrong type; check fails the example', async () => {
    const bad = mkdtempSync(join(tmpdir(), 'hookgate-compat-bad-'));
    try {
      cpSync(FIXTURE, bad, { recursive: true });
      const github = join(bad, 'hooks', 'transforms', 'github.js');
      writeFileSync(github, "export default () => ({ actoin: 'agent', message: 'x' });\nexport const examples = [{ name: 'typo', input: { payload: {} }, expect: { message: 'x' } }];\n");
      writeFileSync(join(bad, 'push.json'), '{"sender":{"login":"ada"},"repository":{"full_name":"o/r"}}');
      const tried = await cli(runTry, ['github', '--payload', 'push.json', '--config', 'openclaw.json'], bad);
      expect(tried.code).toBe(0);
      expect(tried.stdout).toContain('note: transform "github.js" returned keys Hookgate does not use, ignored: "actoin" (did you mean "action"?)');
      const checked = await cli(runCheck, ['--config', 'openclaw.json'], bad);
      expect(checked.code).toBe(1);
      expect(checked.stderr).toContain('example typo FAILED: returned keys Hookgate does not use (ignored on requests): "actoin" (did you mean "action"?)');
      writeFileSync(github, "export default () => ({ message: 'x', timeoutSeconds: 'soon' });\n");
      const wrongType = await cli(runTry, ['github', '--payload', 'push.json', '--config', 'openclaw.json'], bad);
      expect(wrongType.code).toBe(1);
      expect(wrongType.stdout).toMatch(/error 500 TRANSFORM_FAILED: hook mapping failed\n {2}why: .*\/timeoutSeconds: must be number/);
    } finally {
      rmSync(bad, { recursive: true, force: true });
    }
  }, 90_000); // three sandbox start-ups (try, check, try)
});
