import { createHmac, randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestService, TEST_TOKEN, type TestService } from '../helpers/service.js';

/** Fall-through over real sockets: one signed path routed by event type, never into a mapping the request is not authenticated for. */

const SECRET = 'shared-gh-secret';
const OTHER_SECRET = 'another-gh-secret';
const signature = (secret: string) => ({ scheme: 'github', secret });

async function deliver(svc: TestService, event: string, payload: Record<string, unknown>, secret = SECRET, extra: Record<string, string> = {}) {
  const body = JSON.stringify(payload);
  const response = await fetch(`${svc.hooksUrl}/github`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
      ...extra,
    },
    body,
  });
  return { status: response.status, body: response.status === 204 ? null : ((await response.json()) as Record<string, unknown>) };
}

describe('fall-through between mappings of one path', () => {
  let svc: TestService | undefined;
  afterEach(async () => {
    await svc?.close();
    svc = undefined;
  });

  it('routes pushes to a wake and pull requests to an agent, and skips the rest with the reason of the mapping that took the event', async () => {
    svc = await startTestService({
      hooks: {
        mappings: [
          { id: 'pushes', match: { path: 'github' }, action: 'wake', signature: signature(SECRET), events: ['push'], textTemplate: 'push to {{ref}}' },
          { id: 'other-secret', match: { path: 'github' }, action: 'wake', signature: signature(OTHER_SECRET), textTemplate: 'must not be reached' },
          { id: 'prs', match: { path: 'github' }, signature: signature(SECRET), events: ['pull_request'], filter: { field: 'headers.x-team', equals: 'core' }, messageTemplate: 'PR {{number}}', deliver: false },
          { id: 'token-only', match: { path: 'github' }, action: 'wake', textTemplate: 'token mapping' },
        ],
      },
    });
    expect(await deliver(svc, 'push', { ref: 'main' })).toEqual({ status: 200, body: { ok: true, mode: 'now' } });
    const pr = await deliver(svc, 'pull_request', { action: 'opened', number: 3 }, SECRET, { 'x-team': 'core' });
    expect(pr).toMatchObject({ status: 202, body: { ok: true } });
    expect(svc.db.prepare('SELECT action FROM runs').all().map((row) => JSON.parse(String(row['action'])).origin.mappingId)).toEqual(['prs']);
    // "pushes" does not list the event, the filter of "prs" rejects, "other-secret" does not verify, "token-only"
    // takes no signature: the filter of "prs", the first mapping that took the event type, answers.
    expect(await deliver(svc, 'pull_request', { action: 'opened', number: 4 }, SECRET, { 'x-team': 'web' })).toEqual({ status: 200, body: { ok: true, skipped: 'filter' } });
    const events = svc.db.prepare('SELECT text FROM events').all().map((row) => String(row['text']));
    expect(events.some((text) => text.includes('must not be reached') || text.includes('token mapping'))).toBe(false);
    expect(svc.logs.filter((line) => line['event'] === 'hook.skipped')).toEqual([expect.objectContaining({ mappingId: 'prs', reason: 'filter', eventType: 'pull_request.opened' })]);
  });

  it('lets a token-authenticated request fall through to mappings that take the token', async () => {
    svc = await startTestService({
      hooks: {
        mappings: [
          { id: 'typed', match: { path: 'ci' }, action: 'wake', eventField: 'payload.kind', events: ['deploy'], textTemplate: 'deploy' },
          { id: 'rest', match: { path: 'ci' }, action: 'wake', filter: { field: 'payload.kind', in: ['build', 'test'] }, textTemplate: 'ci {{kind}}' },
        ],
      },
    });
    const post = async (payload: unknown) => {
      const response = await fetch(`${svc!.hooksUrl}/ci`, { method: 'POST', headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(payload) });
      return { status: response.status, body: await response.json() };
    };
    expect(await post({ kind: 'build' })).toEqual({ status: 200, body: { ok: true, mode: 'now' } });
    // "rest" takes every event type and its filter refuses: its reason answers, not the event list of "typed".
    expect(await post({ kind: 'lint' })).toEqual({ status: 200, body: { ok: true, skipped: 'filter' } });
  });
});
