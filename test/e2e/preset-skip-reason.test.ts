import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { sendSignedAs } from '../helpers/signature-fixtures.js';
import { ConsoleClient, GATEWAY_TOKEN } from '../console/support.js';

/**
 * A bot's comment through the github preset: the comment mapping's bot filter passes it over, and
 * so does every other mapping of the preset, by event type. What the sender, the log, the console
 * and the metrics hear is the comment mapping's reason (`filter`), not the first mapping's (`event`).
 */

const SECRET = 'github-skip-reason-secret-0123';
const COMMENT_MAPPING = 'preset:github/issue_comment';

const botComment = JSON.stringify({
  action: 'created',
  issue: { number: 12, title: 'Crash on start', html_url: 'https://github.com/acme/api/issues/12' },
  comment: { id: 501, body: 'Bump lodash from 4.17.20 to 4.17.21', user: { login: 'dependabot[bot]', type: 'Bot' } },
  repository: { full_name: 'acme/api' },
  sender: { login: 'dependabot[bot]', type: 'Bot' },
});

describe('a bot comment through the github preset is reported as skipped by the comment mapping\'s filter', () => {
  let svc: TestService;
  let answer: { status: number; body: unknown };

  beforeAll(async () => {
    svc = await startTestService({ gateway: { auth: { token: GATEWAY_TOKEN } }, hooks: { presets: [{ name: 'github', secret: SECRET, debounce: false }] } });
    answer = await sendSignedAs(svc, 'github', botComment, { secret: SECRET, headers: { 'x-github-event': 'issue_comment' } });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('answers 200 skipped "filter"', () => {
    expect([answer.status, answer.body]).toEqual([200, { ok: true, skipped: 'filter' }]);
  });

  it('logs hook.skipped against the comment mapping', () => {
    const skipped = svc.logs.filter((line) => line['event'] === 'hook.skipped');
    expect(skipped).toEqual([expect.objectContaining({ mappingId: COMMENT_MAPPING, reason: 'filter', eventType: 'issue_comment.created' })]);
  });

  it('shows the skip and the mapping that decided it in the console\'s request log', async () => {
    const client = await ConsoleClient.login(svc);
    const response = await client.get('/api/requests');
    const entries = response.body.requests as Array<{ hook: string; skipped?: string; mappingIds: string[] }>;
    expect(entries.filter((entry) => entry.hook === 'github')).toEqual([
      expect.objectContaining({ skipped: 'filter issue_comment.created', mappingIds: [COMMENT_MAPPING] }),
    ]);
  });

  it('counts it under the comment mapping and reason "filter"', async () => {
    const metrics = await (await fetch(`${svc.url}/metrics`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).text();
    expect(metrics).toContain(`hookgate_hook_skipped_total{mapping="${COMMENT_MAPPING}",reason="filter"} 1`);
    expect(metrics).not.toMatch(/hookgate_hook_skipped_total\{[^}]*reason="event"\}/);
  });
});
