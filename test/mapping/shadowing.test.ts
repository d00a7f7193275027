import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/resolve.js';
import { collectMappingSources } from '../../src/mapping/mapping-records.js';
import { shadowingWarnings } from '../../src/mapping/shadowing.js';
import { PRESETS } from '../../presets/index.js';

function warningsFor(hooks: Record<string, unknown>): string[] {
  const config = resolveConfig({ hooks: { enabled: true, token: 'shadowing-test-hook-token', ...hooks } }, { configDir: process.cwd() });
  return shadowingWarnings(collectMappingSources(config.hooks, PRESETS).sources);
}

const github = (secret: string) => ({ scheme: 'github', secret });
const tokenGithub = { id: 'github', match: { path: 'github' }, action: 'agent', messageTemplate: '{{action}}' };

describe('mappings an earlier one keeps requests from', () => {
  it('a token mapping before the github preset on its path: bad signatures are answered by the token mapping', () => {
    const warnings = warningsFor({ mappings: [tokenGithub], presets: [{ name: 'github', secret: 'gh-secret' }] });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^mapping "github" \(hooks\.mappings\[0\]\) comes first on path "github" and takes the hook token, before the signed preset github \(its \d+ mappings\): /);
    expect(warnings[0]).toContain('401 "missing hook token", not "invalid signature"');
    expect(warnings[0]).toContain('`hookgate sign github` refuses');
    expect(warnings[0]).not.toContain('gh-secret');
  });

  it('says nothing once the token mapping has a path of its own, or the preset another one', () => {
    expect(warningsFor({ mappings: [{ ...tokenGithub, match: { path: 'github-issues' } }], presets: [{ name: 'github', secret: 'gh-secret' }] })).toEqual([]);
  });

  it('a mapping behind a catch-all that takes the same credential is never reached', () => {
    const warnings = warningsFor({
      mappings: [
        { id: 'everything', action: 'wake', textTemplate: 'any' },
        { id: 'sensor', match: { path: 'sensor' }, action: 'wake', textTemplate: 'sensor' },
      ],
    });
    expect(warnings).toEqual([expect.stringMatching(/^mapping "sensor" \(hooks\.mappings\[1\]\) is never reached: mapping "everything" \(hooks\.mappings\[0\]\) comes before it on path "sensor"/)]);
  });

  it('an earlier mapping with events, a filter or another source leaves the later one reachable', () => {
    const later = { id: 'later', match: { path: 'ci' }, action: 'wake', textTemplate: 'later' };
    expect(warningsFor({ mappings: [{ id: 'pushes', match: { path: 'ci' }, events: ['push'], action: 'wake', textTemplate: 'p' }, later] })).toEqual([]);
    expect(warningsFor({ mappings: [{ id: 'red', match: { path: 'ci' }, filter: { path: 'payload.status', equals: 'red' }, action: 'wake', textTemplate: 'r' }, later] })).toEqual([]);
    expect(warningsFor({ mappings: [{ id: 'uptime', match: { path: 'ci', source: 'uptime' }, action: 'wake', textTemplate: 'u' }, later] })).toEqual([]);
  });

  it('a signed mapping covers a later one only with its scheme and settings and all of its secrets', () => {
    const signedLater = { id: 'later', match: { path: 'gh' }, action: 'wake', textTemplate: 'l', signature: github('app-a') };
    const rotation = { id: 'rotation', match: { path: 'gh' }, action: 'wake', textTemplate: 'r', signature: { scheme: 'github', secrets: ['app-b', 'app-a'] } };
    expect(warningsFor({ mappings: [rotation, signedLater] })).toEqual([expect.stringMatching(/^mapping "later" .* is never reached: mapping "rotation" .* accepts a github signature as well/)]);
    const otherApp = { ...rotation, signature: github('app-b') };
    expect(warningsFor({ mappings: [otherApp, signedLater] })).toEqual([]);
  });

  it('a token mapping behind a first mapping that requires a signature is never reached', () => {
    const warnings = warningsFor({
      mappings: [
        { id: 'signed', match: { path: 'gh' }, events: ['push'], action: 'wake', textTemplate: 's', signature: github('app-a') },
        { id: 'token', match: { path: 'gh' }, action: 'wake', textTemplate: 't' },
      ],
    });
    expect(warnings).toEqual([expect.stringMatching(/^mapping "token" \(hooks\.mappings\[1\]\) takes the hook token but is never reached: mapping "signed" .* requires a github signature/)]);
    const allowToken = warningsFor({
      mappings: [
        { id: 'signed', match: { path: 'gh' }, events: ['push'], action: 'wake', textTemplate: 's', signature: { ...github('app-a'), allowToken: true } },
        { id: 'token', match: { path: 'gh' }, action: 'wake', textTemplate: 't' },
      ],
    });
    expect(allowToken).toEqual([]);
  });

  it('no preset shadows itself', () => {
    for (const preset of PRESETS) {
      const entry = preset.scheme === undefined ? preset.name : { name: preset.name, ...(preset.scheme === 'discord' ? { publicKey: 'a'.repeat(64) } : { secret: 'preset-secret' }) };
      expect(warningsFor({ presets: [entry] }), preset.name).toEqual([]);
    }
  });
});
