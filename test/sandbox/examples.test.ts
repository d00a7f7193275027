import { readdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES_DIR, input, startRunner, type TestRunner } from './helpers.js';

let t: TestRunner;

beforeAll(() => {
  t = startRunner({ dir: EXAMPLES_DIR, limits: { timeoutMs: 1000 } });
});

afterAll(async () => {
  await t.close();
});

describe('the example transforms users copy', () => {
  it('every module in transforms/ loads and all of its examples pass', async () => {
    const modules = (await readdir(EXAMPLES_DIR)).filter((f) => /\.(js|mjs|ts)$/.test(f)).sort();
    expect(modules).toEqual(['github-issue.js', 'skip-bots.js', 'stripe-payment.ts']);
    for (const module of modules) {
      const outcomes = await t.runner.runExamples(await t.runner.load({ module }));
      expect(outcomes.length, module).toBeGreaterThan(2);
      expect(outcomes.filter((o) => !o.ok), module).toEqual([]);
    }
  });

  it('github-issue turns an issue event into a GitHub agent message and skips what it does not handle', async () => {
    const handle = await t.runner.load({ module: 'github-issue.js' });
    const payload = {
      action: 'reopened',
      issue: { number: 3, title: 'Flaky test', html_url: 'https://github.com/o/r/issues/3', user: { login: 'ada' } },
      repository: { full_name: 'o/r' },
    };
    const result = await t.runner.run(handle, input(payload, { headers: { 'x-github-event': 'issues' } }));
    expect(result).toEqual({
      kind: 'override',
      value: { name: 'GitHub', message: 'Issue reopened in o/r: #3 Flaky test\nAuthor: ada\nURL: https://github.com/o/r/issues/3' },
    });
    await expect(t.runner.run(handle, input(payload, { headers: { 'x-github-event': 'constructor' } }))).resolves.toEqual({ kind: 'skip' });
    await expect(t.runner.run(handle, input({ zen: 'hi' }, { headers: { 'x-github-event': 'ping' } }))).resolves.toEqual({ kind: 'skip' });
  });

  it('stripe-payment formats minor units per currency and picks wake or agent by event', async () => {
    const handle = await t.runner.load({ module: 'stripe-payment.ts' });
    const succeeded = { type: 'payment_intent.succeeded', data: { object: { amount: 5, currency: 'usd' } } };
    await expect(t.runner.run(handle, input(succeeded))).resolves.toEqual({
      kind: 'override',
      value: { action: 'wake', text: 'Stripe: payment of 0.05 USD from unknown customer succeeded.' },
    });
    const failed = { type: 'charge.failed', data: { object: { amount: 1200, currency: 'krw', receipt_email: 'k@example.com' } } };
    const result = await t.runner.run(handle, input(failed));
    expect(result).toMatchObject({ kind: 'override', value: { action: 'agent', name: 'Stripe' } });
    expect(JSON.stringify(result)).toContain('A charge of 1200 KRW from k@example.com failed (no reason given)');
    await expect(t.runner.run(handle, input({ type: 'charge.failed' }))).resolves.toEqual({ kind: 'skip' });
  });

  it('skip-bots skips bot senders and leaves people unchanged', async () => {
    const handle = await t.runner.load({ module: 'skip-bots.js' });
    await expect(t.runner.run(handle, input({ sender: { login: 'renovate[bot]' } }))).resolves.toEqual({ kind: 'skip' });
    await expect(t.runner.run(handle, input({ sender: { login: 'x', type: 'Bot' } }))).resolves.toEqual({ kind: 'skip' });
    await expect(t.runner.run(handle, input({ sender: { login: 'robotics-fan', type: 'User' } }))).resolves.toEqual({ kind: 'unchanged' });
    await expect(t.runner.run(handle, input('not an object'))).resolves.toEqual({ kind: 'unchanged' });
  });
});
