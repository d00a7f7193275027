import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeService, type FakeService } from '../channels/fake-service.js';
import { post, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/wait.js';

/**
 * A `to` that names no repository (`acme/..#12` would be posted to /repos/issues/12/comments) is
 * refused when the request is admitted, before any glob of allowTo and before a run exists.
 */
describe('recipient formats at admission, over a real socket', () => {
  let svc: TestService;
  let forge: FakeService;
  beforeAll(async () => {
    forge = await startFakeService(() => ({ status: 201, json: { id: 1 } }));
    svc = await startTestService({
      channels: {
        github: { token: 'github_pat_x', baseUrl: forge.baseUrl, allowTo: ['acme/*'] },
        gitlab: { token: 'glpat-x', baseUrl: forge.baseUrl, allowTo: ['acme/**'] },
        linear: { apiKey: 'lin_api_x', baseUrl: forge.baseUrl },
      },
      hooks: {
        mappings: [{ id: 'relay', match: { path: 'relay' }, action: 'notify', channel: 'github', to: '{{repo}}#{{number}}', textTemplate: 'relayed {{text}}' }],
      },
    });
  });
  afterAll(async () => {
    await svc.close();
    await forge.close();
  });

  const runs = () => (svc.db.prepare('SELECT COUNT(*) AS n FROM runs').get() as { n: number }).n;

  it.each([
    ['github', 'acme/..#12'],
    ['github', 'acme/.#12'],
    ['github', '-acme/api#1'],
    ['gitlab', 'acme/../x#1'],
    ['gitlab', 'acme/x.git#1'],
    ['linear', '../ENG-1'],
  ])('refuses %s `to: %s` on /agent with 400 INVALID_RECIPIENT, without quoting it', async (channel, to) => {
    const before = runs();
    const refused = await post(`${svc.hooksUrl}/agent`, { message: 'hi', channel, to });
    expect([refused.status, refused.body.code]).toEqual([400, 'INVALID_RECIPIENT']);
    expect(refused.body.error).not.toContain(to);
    expect(runs()).toBe(before);
  });

  it('refuses a mapped notify whose rendered `to` walks out of the owner, and admits a well-formed one', async () => {
    const before = runs();
    const refused = await post(`${svc.hooksUrl}/relay`, { repo: 'acme/..', number: 12, text: 'x' });
    expect([refused.status, refused.body.code]).toEqual([400, 'INVALID_RECIPIENT']);
    expect(runs()).toBe(before);
    const admitted = await post(`${svc.hooksUrl}/relay`, { repo: 'acme/api', number: 12, text: 'x' });
    expect(admitted.status).toBe(200);
    await until(() => forge.requests.length > 0);
    expect(forge.requests.map((request) => request.path)).toEqual(['/repos/acme/api/issues/12/comments']);
  });

  it('takes the owner and repository in any case, as GitHub and GitLab do, but not another repository', async () => {
    for (const [channel, to] of [['github', 'ACME/Api#7'], ['gitlab', 'Acme/Sub/Project!3']]) {
      const admitted = await post(`${svc.hooksUrl}/agent`, { message: 'hi', channel, to, deliver: false });
      expect([to, admitted.status]).toEqual([to, 202]);
    }
    const refused = await post(`${svc.hooksUrl}/agent`, { message: 'hi', channel: 'github', to: 'ACMEX/api#7', deliver: false });
    expect([refused.status, refused.body.code]).toEqual([400, 'RECIPIENT_NOT_ALLOWED']);
  });
});
