import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, startTestService, TEST_TOKEN, type TestService } from '../helpers/service.js';
import { sendSignedAs } from '../helpers/signature-fixtures.js';
import { runCaptured } from '../helpers/cli.js';

/**
 * Sending a signed sample again (after a config change, say) is a replay of its first delivery:
 * nothing new runs. The answer says so, and `hookgate try` says so before it is sent; a client's
 * own Idempotency-Key still gets the first response exactly.
 */

const SECRET = 'github-replay-secret-0123456789';
const human = { login: 'ada', type: 'User' };
const sample = {
  action: 'opened',
  number: 7,
  pull_request: { number: 7, title: 'Faster start', draft: false, html_url: 'https://github.com/acme/api/pull/7', user: human, head: { ref: 'fast' }, base: { ref: 'main' } },
  repository: { full_name: 'acme/api' },
  sender: human,
};
const body = JSON.stringify(sample);

describe('answers to a replayed delivery', () => {
  let svc: TestService;
  let first: { status: number; body: Record<string, unknown>; headers: Headers };

  beforeAll(async () => {
    const presets = [
      { name: 'github', secret: SECRET, debounce: false },
      { name: 'stripe', secret: SECRET },
    ];
    svc = await startTestService({ hooks: { presets } }, { configFile: true });
    first = await sendSignedAs(svc, 'github', body, { secret: SECRET, headers: { 'x-github-event': 'pull_request' }, delivery: 'first-delivery' });
    expect(first.status).toBe(202);
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('says a signed sample sent again is a replay of its first run: the first answer, marked replayed', async () => {
    const again = await sendSignedAs(svc, 'github', body, { secret: SECRET, headers: { 'x-github-event': 'pull_request' }, delivery: 'second-delivery' });
    expect([again.status, again.body, again.headers.get('idempotent-replayed')]).toEqual([202, { ...first.body, replayed: true }, 'true']);
    expect(svc.db.prepare('SELECT COUNT(*) AS n FROM runs').get()).toEqual({ n: 1 });
  });

  it('keeps the Idempotency-Key contract: the first response again, exactly, with the header', async () => {
    const headers = { authorization: `Bearer ${TEST_TOKEN}`, 'idempotency-key': 'client-key-1' };
    const one = await post(`${svc.hooksUrl}/agent`, { message: 'once' }, headers);
    const two = await post(`${svc.hooksUrl}/agent`, { message: 'once' }, headers);
    expect([two.status, two.body, two.headers.get('idempotent-replayed')]).toEqual([202, one.body, 'true']);
  });

  it('has hookgate try say the body was already accepted as that run, and that sending it would replay', async () => {
    await writeFile(join(svc.dir, 'sample.json'), body);
    const result = await runCaptured(['try', 'github', '--payload', 'sample.json', '--header', 'X-GitHub-Event: pull_request'], { cwd: svc.dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`replay: this body was already accepted as run ${String(first.body.runId)}`);
    const json = await runCaptured(['try', 'github', '--payload', 'sample.json', '--header', 'X-GitHub-Event: pull_request', '--json'], { cwd: svc.dir });
    expect(JSON.parse(json.stdout)).toMatchObject({ replay: { status: 202, body: first.body } });
  });

  it("has hookgate try say what makes a new delivery: GitHub's replays are keyed by the signed body, so a new X-GitHub-Delivery is not enough", async () => {
    await writeFile(join(svc.dir, 'sample.json'), body);
    const result = await runCaptured(['try', 'github', '--payload', 'sample.json', '--header', 'X-GitHub-Event: pull_request', '--header', 'X-GitHub-Delivery: a-new-delivery-id'], { cwd: svc.dir });
    expect(result.stdout).toContain(`replay: this body was already accepted as run ${String(first.body.runId)}`);
    expect(result.stdout).toContain('change the body to see this config act on it (a new delivery id is not enough: the signed body is the key)');
  });

  it('has hookgate try say that a new delivery id makes a new delivery where the signed delivery id is the key (Stripe: the event id)', async () => {
    const event = { id: 'evt_replay_hint', type: 'invoice.payment_failed', data: { object: { object: 'invoice', customer: 'cus_2', amount_due: 4900, currency: 'eur' } } };
    const sent = await sendSignedAs(svc, 'stripe', JSON.stringify(event), { secret: SECRET });
    expect(sent.status).toBe(202);
    await writeFile(join(svc.dir, 'event.json'), JSON.stringify(event));
    const result = await runCaptured(['try', 'stripe', '--payload', 'event.json'], { cwd: svc.dir });
    expect(result.stdout).toContain(`replay: this body was already accepted as run ${String(sent.body.runId)}`);
    expect(result.stdout).toContain("give it a new delivery id (the payload's own id) to see this config act on it");
  });

  it('has hookgate try say nothing of a replay for a body not seen before', async () => {
    await writeFile(join(svc.dir, 'other.json'), JSON.stringify({ ...sample, number: 8 }));
    const result = await runCaptured(['try', 'github', '--payload', 'other.json', '--header', 'X-GitHub-Event: pull_request', '--json'], { cwd: svc.dir });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ replay: null });
  });

  it('has hookgate try say an edited sample under a used delivery id would be refused as a conflict', async () => {
    const event = { id: 'evt_replay_1', type: 'invoice.payment_failed', data: { object: { object: 'invoice', customer: 'cus_1', amount_due: 4900, currency: 'eur' } } };
    expect((await sendSignedAs(svc, 'stripe', JSON.stringify(event), { secret: SECRET })).status).toBe(202);
    await writeFile(join(svc.dir, 'edited.json'), JSON.stringify({ ...event, data: { object: { ...event.data.object, amount_due: 9900 } } }));
    const result = await runCaptured(['try', 'stripe', '--payload', 'edited.json'], { cwd: svc.dir });
    expect(result.stdout).toContain("replay: this delivery's id was already accepted with another body: a real delivery would get 409 IDEMPOTENCY_CONFLICT");
  });
});
