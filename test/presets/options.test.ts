import { describe, expect, it } from 'vitest';
import { PRESETS } from '../../presets/index.js';
import { covers, intersect, uncovered } from '../../presets/event-patterns.js';
import { collectMappingSources } from '../../src/mapping/mapping-records.js';
import { bodyLimitsFor } from '../../src/http/body-limits.js';
import { resolveConfig } from '../../src/config/resolve.js';
import { ConfigError } from '../../src/errors.js';
import { runCli } from '../../src/cli.js';
import { formatExplanation } from '../../src/mapping/explain-format.js';
import { engineWith, hooksConfig } from '../mapping/support.js';
import { PRESET_SECRET, presetEngine, verifiedRequest } from './harness.js';

const PR = {
  action: 'opened',
  pull_request: { number: 3, title: 'Fix the gear', state: 'open', html_url: 'https://github.com/o/r/pull/3', draft: false },
  repository: { full_name: 'o/r' },
  sender: { login: 'ada', type: 'User' },
};
const GH = { 'x-github-event': 'pull_request' };

function sourcesOf(presets: unknown[], extra: Record<string, unknown> = {}) {
  return collectMappingSources(hooksConfig({ presets: presets as never, ...extra }), PRESETS);
}

describe('event patterns', () => {
  it('knows which pattern covers which', () => {
    expect(covers('pull_request', 'pull_request.opened')).toBe(true);
    expect(covers('pull_request.opened', 'pull_request')).toBe(false);
    expect(covers('*', 'invoice.*')).toBe(true);
    expect(covers('charge', 'charge.dispute.*')).toBe(true);
    expect(covers('charge.dispute', 'charge.dispute.created')).toBe(false);
    expect(covers('pull_request', 'pull_request_review')).toBe(false);
  });

  it('intersects a wanted list with what a group renders, and names what no group renders', () => {
    expect(intersect(['pull_request', 'issues.opened'], ['pull_request'])).toEqual(['pull_request']);
    expect(intersect(['pull_request.opened', 'star'], ['pull_request'])).toEqual(['pull_request.opened']);
    expect(intersect(['*'], ['charge.dispute.*'])).toEqual(['charge.dispute.*']);
    expect(uncovered(['pull_request.opened', 'star', '*'], ['pull_request'])).toEqual(['star', '*']);
  });
});

describe('preset entries', () => {
  it('keeps "gmail" as a string working unchanged', () => {
    const { sources, issues } = sourcesOf(['gmail']);
    expect(issues).toEqual([]);
    expect(sources.map((source) => source.id)).toEqual(['preset:gmail']);
  });

  it('needs the credential of a signed preset, and refuses options the preset does not read', () => {
    expect(sourcesOf(['github']).issues).toEqual([
      { path: '/hooks/presets/0/secret', message: expect.stringMatching(/^preset "github": needs exactly one of secret or secrets/) },
    ]);
    expect(sourcesOf([{ name: 'gmail', model: 'x' }]).issues).toEqual([{ path: '/hooks/presets/0/model', message: 'preset "gmail": option "model" does not apply (it takes: no options)' }]);
    expect(sourcesOf([{ name: 'stripe', secret: 's', header: 'X-Sig' }]).issues[0]?.path).toBe('/hooks/presets/0/header');
  });

  it('leaves a run\'s summary to the next heartbeat, wakes at once for a wake entry, and takes wakeMode from the entry', () => {
    const modes = (entry: Record<string, unknown>) => [...new Set(sourcesOf([{ name: 'github', secret: PRESET_SECRET, ...entry }]).sources.map((source) => source.config.wakeMode))];
    expect(modes({})).toEqual(['next-heartbeat']);
    expect(modes({ action: 'wake' })).toEqual(['now']);
    expect(modes({ wakeMode: 'now' })).toEqual(['now']);
    expect(modes({ action: 'wake', wakeMode: 'next-heartbeat' })).toEqual(['next-heartbeat']);
  });

  it('copies run limits onto every mapping of the preset, counted under the preset as a whole', () => {
    const budget = { runsPerHour: 6 };
    const { sources } = sourcesOf([{ name: 'stripe', secret: PRESET_SECRET, budget, path: 'stripe-eu' }]);
    expect(sources.length).toBeGreaterThan(1);
    for (const source of sources) expect(source).toMatchObject({ limitOwner: 'preset:stripe:stripe-eu', config: { budget } });
  });

  it('is checked against the configuration schema at start-up', () => {
    expect(() => resolveConfig({ hooks: { enabled: true, token: 'tok-0123456789abcdef', presets: [{ name: 'github', secret: 's', colour: 'red' }] } }, { configDir: '/tmp' })).toThrow(ConfigError);
    const config = resolveConfig({ hooks: { enabled: true, token: 'tok-0123456789abcdef', presets: ['gmail', { name: 'github', secret: 's', events: ['issues'] }] } }, { configDir: '/tmp' });
    expect(config.hooks.presets).toEqual(['gmail', { name: 'github', secret: 's', events: ['issues'] }]);
  });

  it('takes one preset twice on two paths, never twice on one', () => {
    expect(sourcesOf([{ name: 'github', secret: 'a' }, { name: 'github', secret: 'b', path: 'github-org' }]).issues).toEqual([]);
    expect(sourcesOf([{ name: 'github', secret: 'a' }, { name: 'github', secret: 'b' }]).issues[0]?.message).toMatch(/listed twice on path "github"/);
  });

  it('gives each event-type group its own mapping on the preset path, signed with the entry\'s secret', () => {
    const { sources } = sourcesOf([{ name: 'github', secrets: ['old', 'new'], path: 'gh', model: 'echo/echo', deliver: false }]);
    const pr = sources.find((source) => source.id === 'preset:github:gh/pull_request')?.config;
    expect(pr).toMatchObject({ match: { path: 'gh' }, signature: { scheme: 'github', secrets: ['old', 'new'] }, model: 'echo/echo', deliver: false, maxBodyBytes: 25 * 1024 * 1024 });
    expect(pr?.events).toEqual(['pull_request.opened', 'pull_request.reopened', 'pull_request.ready_for_review', 'pull_request.synchronize', 'pull_request.closed']);
  });
});

describe('preset options change what is acted on', () => {
  it('events replace the default list: a pull request passes, an issue is skipped', async () => {
    const engine = await presetEngine('github', { events: ['pull_request'] });
    expect((await engine.resolve(verifiedRequest('github', { ...PR, action: 'labeled' }, GH))).kind).toBe('actions');
    const issue = await engine.resolve(verifiedRequest('github', { action: 'opened', issue: { number: 1 }, sender: { login: 'a' } }, { 'x-github-event': 'issues' }));
    expect(issue).toMatchObject({ kind: 'skip', reason: 'event', event: 'issues.opened' });
  });

  it('an event no group renders gets the generic template', async () => {
    const engine = await presetEngine('github', { events: ['star'] });
    const outcome = await engine.resolve(verifiedRequest('github', { action: 'created', repository: { full_name: 'o/r', html_url: 'https://github.com/o/r' }, sender: { login: 'a' } }, { 'x-github-event': 'star' }));
    if (outcome.kind !== 'actions') throw new Error(JSON.stringify(outcome));
    expect(outcome.mappingId).toBe('preset:github/other');
    expect(outcome.actions[0]).toMatchObject({ message: 'GitHub star created by a in o/r\nhttps://github.com/o/r', sessionKey: 'hook:github:o/r' });
  });

  it('a filter is added to the preset\'s own noise filters', async () => {
    const engine = await presetEngine('github', { filter: { field: 'payload.repository.full_name', notEquals: 'o/r' } });
    expect(await engine.resolve(verifiedRequest('github', PR, GH))).toMatchObject({ kind: 'skip' });
    const bot = await presetEngine('github');
    expect(await bot.resolve(verifiedRequest('github', { ...PR, sender: { login: 'dependabot[bot]', type: 'Bot' } }, GH))).toMatchObject({ kind: 'skip' });
    expect(await bot.resolve(verifiedRequest('github', PR, GH))).toMatchObject({ kind: 'actions' });
  });

  it('debounce replaces the default (keyed by the entity unless a key is given), false turns it off', async () => {
    const defaults = await presetEngine('github');
    expect(await defaults.resolve(verifiedRequest('github', PR, GH))).toMatchObject({ debounce: { windowMs: 60_000, maxWaitMs: 600_000, keys: ['hook:github:o/r#3'] } });
    const replaced = await presetEngine('github', { debounce: { windowSeconds: 5, key: '{{repository.full_name}}' } });
    expect(await replaced.resolve(verifiedRequest('github', PR, GH))).toMatchObject({ debounce: { windowMs: 5000, keys: ['o/r'] } });
    const off = await presetEngine('github', { debounce: false });
    expect(await off.resolve(verifiedRequest('github', PR, GH))).not.toHaveProperty('debounce');
  });

  it('action "wake" makes main-session events of the same text', async () => {
    const engine = await presetEngine('github', { action: 'wake', debounce: false });
    const outcome = await engine.resolve(verifiedRequest('github', PR, GH));
    expect(outcome).toMatchObject({ kind: 'actions', actions: [{ kind: 'wake' }] });
    if (outcome.kind === 'actions' && outcome.actions[0]?.kind === 'wake') expect(outcome.actions[0].text).toContain('ada opened pull request #3 in o/r: Fix the gear');
  });

  it('an unsigned request never reaches a signed preset', async () => {
    const engine = await engineWith({ presets: PRESETS, hooks: { presets: [{ name: 'github', secret: PRESET_SECRET }] } });
    await expect(engine.resolve({ name: 'github', payload: PR, headers: GH, query: {} })).rejects.toMatchObject({ code: 'SIGNATURE_INVALID' });
  });
});

describe('replies on the sender\'s own channel', () => {
  const ISSUE_COMMENT = { action: 'created', issue: { number: 8, title: 'Gears' }, comment: { body: 'Any news?', node_id: 'IC_1' }, repository: { full_name: 'o/r' }, sender: { login: 'ada', type: 'User' } };
  const RELEASE = { action: 'published', release: { tag_name: 'v1' }, repository: { full_name: 'o/r' }, sender: { login: 'ada', type: 'User' } };
  const agentOf = async (options: Record<string, unknown>, payload: Record<string, unknown>, event: string) => {
    const engine = await presetEngine('github', { debounce: false, ...options });
    const outcome = await engine.resolve(verifiedRequest('github', payload, { 'x-github-event': event }));
    if (outcome.kind !== 'actions') throw new Error(JSON.stringify(outcome));
    return outcome.actions[0] as Record<string, unknown>;
  };

  it('with channel "github" and no `to`, a pull request, a comment and a failed run of a pull request are answered on that entity', async () => {
    expect(await agentOf({ channel: 'github' }, PR, 'pull_request')).toMatchObject({ channel: 'github', to: 'o/r#3' });
    expect(await agentOf({ channel: 'GitHub' }, ISSUE_COMMENT, 'issue_comment')).toMatchObject({ channel: 'github', to: 'o/r#8' });
    const run = { action: 'completed', workflow_run: { conclusion: 'failure', run_number: 4, pull_requests: [{ number: 5 }] }, repository: { full_name: 'o/r' } };
    expect(await agentOf({ channel: 'github' }, run, 'workflow_run')).toMatchObject({ to: 'o/r#5' });
    const discussion = { action: 'created', discussion: { number: 9, title: 'Ideas' }, repository: { full_name: 'o/r' }, sender: { login: 'ada', type: 'User' } };
    expect(await agentOf({ channel: 'github' }, discussion, 'discussion')).toMatchObject({ to: 'o/r#discussion-9' });
  });

  it('a delivery naming no issue or pull request is not sent to the channel\'s last recipient: the run says why it is not delivered', async () => {
    const release = await agentOf({ channel: 'github' }, RELEASE, 'release');
    expect(release).not.toHaveProperty('to');
    expect(release['undeliverable']).toBe(
      'no recipient on github: this delivery names none to reply to (mapping "preset:github/release" leaves "to" empty for it); set "to" to send such replies elsewhere',
    );
    const run = { action: 'completed', workflow_run: { conclusion: 'failure', run_number: 4, pull_requests: [] }, repository: { full_name: 'o/r' } };
    expect((await agentOf({ channel: 'github' }, run, 'workflow_run'))['undeliverable']).toContain('mapping "preset:github/workflow_run"');
  });

  it('hookgate try says where the reply goes, or why it goes nowhere', async () => {
    const engine = await presetEngine('github', { debounce: false, channel: 'github' });
    const comment = formatExplanation(await engine.explain(verifiedRequest('github', ISSUE_COMMENT, { 'x-github-event': 'issue_comment' })), []);
    expect(comment).toContain('reply goes to: github → o/r#8');
    const release = formatExplanation(await engine.explain(verifiedRequest('github', RELEASE, { 'x-github-event': 'release' })), []);
    expect(release).toContain('reply not delivered: no recipient on github: this delivery names none to reply to (mapping "preset:github/release" leaves "to" empty for it)');
  });

  it('an explicit `to` wins; another channel, or no channel, gets no `to` from the preset', async () => {
    expect(await agentOf({ channel: 'github', to: 'o/ops#1' }, ISSUE_COMMENT, 'issue_comment')).toMatchObject({ to: 'o/ops#1' });
    expect(await agentOf({ channel: 'github', to: 'o/ops#1' }, RELEASE, 'release')).not.toHaveProperty('undeliverable');
    const elsewhere = await agentOf({ channel: 'telegram', to: '-100' }, ISSUE_COMMENT, 'issue_comment');
    expect(elsewhere).toMatchObject({ channel: 'telegram', to: '-100' });
    const unset = await agentOf({}, ISSUE_COMMENT, 'issue_comment');
    expect(unset).toMatchObject({ channel: 'last' });
    expect(unset).not.toHaveProperty('to');
    expect(unset).not.toHaveProperty('undeliverable');
  });

  it('deliver: false stays not delivered for its own reason', async () => {
    const quiet = await agentOf({ channel: 'github', deliver: false }, RELEASE, 'release');
    expect(quiet).toMatchObject({ deliver: false });
    expect(quiet).not.toHaveProperty('undeliverable');
  });
});

describe('body limits per path', () => {
  it('give a preset\'s path its sender\'s maximum, within hooks.bodyBudgetBytes, and a mapping its own', () => {
    const limits = bodyLimitsFor(hooksConfig({ presets: [{ name: 'github', secret: 's' }, { name: 'stripe', secret: 's' }] as never, mappings: [{ match: { path: 'big' }, maxBodyBytes: 1_000_000, messageTemplate: 'x' }] }));
    expect([limits('github'), limits('stripe'), limits('big'), limits('other')]).toEqual([25 * 1024 * 1024, 1024 * 1024, 1_000_000, 262_144]);
    const small = bodyLimitsFor(hooksConfig({ bodyBudgetBytes: 8 * 1024 * 1024, presets: [{ name: 'github', secret: 's' }] as never }));
    expect(small('github')).toBe(8 * 1024 * 1024);
  });

  it('refuse a mapping maxBodyBytes without a path or over the body budget', () => {
    const issues = collectMappingSources(
      hooksConfig({ bodyBudgetBytes: 1000, mappings: [{ maxBodyBytes: 10, messageTemplate: 'x' }, { match: { path: 'p' }, maxBodyBytes: 2000, messageTemplate: 'x' }] }),
      PRESETS,
    ).issues;
    expect(issues.map((issue) => issue.path)).toEqual(['/hooks/mappings/0/maxBodyBytes', '/hooks/mappings/1/maxBodyBytes']);
  });
});

describe('hookgate presets', () => {
  async function cli(argv: string[]) {
    let out = '';
    let err = '';
    const code = await runCli(argv, { stdout: (text) => void (out += text), stderr: (text) => void (err += text), env: {}, cwd: '/tmp' });
    return { code, out, err };
  }

  it('lists every preset with its default events, options and the reason of each noise rule', async () => {
    const { code, out } = await cli(['presets']);
    expect(code).toBe(0);
    for (const preset of PRESETS) expect(out).toContain(`${preset.name}`);
    expect(out).toContain('default events: invoice.payment_failed, invoice.payment_action_required');
    expect(out).toContain('why: A draft pull request is work in progress');
  });

  it('prints one preset as JSON, and refuses an unknown name', async () => {
    const { out } = await cli(['presets', 'sentry', '--json']);
    const [sentry] = JSON.parse(out) as Array<Record<string, unknown>>;
    expect(sentry).toMatchObject({ name: 'sentry', scheme: 'sentry', defaultEvents: expect.arrayContaining(['issue.created']), options: expect.arrayContaining(['secret', 'events', 'debounce']) });
    expect((await cli(['presets', 'nope'])).code).toBe(2);
    const typo = await cli(['presets', 'sentyr']);
    expect(typo.code).toBe(2);
    expect(typo.err).toContain('unknown preset "sentyr"; did you mean "sentry"? (known: gmail, github,');
  });
});

describe('shapes the corpora do not hold', () => {
  it('a Sentry issue without web_url or organization names the issue without a broken link', async () => {
    const engine = await presetEngine('sentry', { debounce: false });
    const issue = { id: '77', shortId: 'API-3', title: 'ReferenceError: x is not defined', level: 'error', status: 'unresolved', substatus: 'regressed', project: { slug: 'api' } };
    const outcome = await engine.resolve(verifiedRequest('sentry', { action: 'unresolved', actor: { type: 'application', id: 'sentry', name: 'Sentry' }, data: { issue }, installation: { uuid: 'u' } }, { 'sentry-hook-resource': 'issue' }));
    expect(outcome).toMatchObject({
      kind: 'actions',
      actions: [{ message: 'Sentry issue API-3 came back (unresolved) in api: ReferenceError: x is not defined\nLevel error, status unresolved (regressed)', sessionKey: 'hook:sentry:77' }],
    });
  });

  it('a Sentry metric alert names its rule and links its incident', async () => {
    const engine = await presetEngine('sentry', { debounce: false });
    const data = { description_text: '900 events in the last 10 minutes', description_title: 'Critical: Error spike', metric_alert: { id: '4', alert_rule: { id: '7', name: 'Error spike' } }, web_url: 'https://sentry.io/organizations/acme/alerts/4/' };
    const outcome = await engine.resolve(verifiedRequest('sentry', { action: 'critical', data, installation: { uuid: 'u' } }, { 'sentry-hook-resource': 'metric_alert' }));
    expect(outcome).toMatchObject({
      kind: 'actions',
      actions: [{ message: 'Sentry metric alert "Error spike" is critical: 900 events in the last 10 minutes\nhttps://sentry.io/organizations/acme/alerts/4/', sessionKey: 'hook:sentry:metric-alert:7' }],
    });
  });
});
