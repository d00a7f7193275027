import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCaptured } from '../helpers/cli.js';

/** A preset entry's options through `hookgate check`: run limits accepted, typos and filter mistakes said once, at the user's line. */

const SECRET = 'check-preset-secret-0123456789';

describe('hookgate check on preset entries', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-check-preset-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function check(entry: Record<string, unknown>) {
    writeFileSync(join(dir, 'hookgate.json5'), JSON.stringify({ hooks: { enabled: true, token: 'check-preset-token-0123456789', presets: [entry] } }));
    return runCaptured(['check'], { cwd: dir });
  }

  it('takes rateLimit, throttle, concurrency, budget and wakeMode on a sender preset', async () => {
    const result = await check({
      name: 'github',
      secret: SECRET,
      rateLimit: { limit: 30, periodSeconds: 3600, key: '{{repository.full_name}}' },
      throttle: { limit: 1, periodSeconds: 60 },
      concurrency: { limit: 1, key: '{{repository.full_name}}' },
      budget: { runsPerHour: 6, runsPerDay: 40 },
      wakeMode: 'now',
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('OK');
  });

  it('says a mistyped key once, with the key it probably meant, and nothing about the string form', async () => {
    const result = await check({ name: 'github', secret: SECRET, evnets: ['issues'] });
    expect(result.code).toBe(1);
    const problems = result.stderr.split('\n').filter((line) => line.startsWith('  '));
    expect(problems).toEqual(['  /hooks/presets/0/evnets: unknown key; did you mean "events"?']);
  });

  it('says a wrong value of a known key at that key, without the noise of the name-only form', async () => {
    const result = await check({ name: 'github', secret: SECRET, budget: { runsPerHour: 0 } });
    expect(result.code).toBe(1);
    const problems = result.stderr.split('\n').filter((line) => line.startsWith('  '));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^ {2}\/hooks\/presets\/0\/budget\/runsPerHour: /);
    expect(result.stderr).not.toMatch(/must be string|anyOf/);
  });

  it('points a filter mistake at the line the user wrote, once, not into the preset\'s merged filters', async () => {
    const result = await check({ name: 'github', secret: SECRET, filter: { all: [{ field: 'payload.repository.full_name', equals: 'acme/api' }, { field: 'payload.x', near: 3 }] } });
    expect(result.code).toBe(1);
    const problems = result.stderr.split('\n').filter((line) => line.startsWith('  '));
    expect(problems).toEqual([expect.stringMatching(/^ {2}\/hooks\/presets\/0\/filter\/all\/1\/near: preset "github": unknown operator "near"/)]);
  });

  it('refuses a run limit on gmail, whose settings live in hooks.gmail', async () => {
    const result = await check({ name: 'gmail', budget: { runsPerHour: 5 } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('/hooks/presets/0/budget: preset "gmail": option "budget" does not apply');
  });
});
