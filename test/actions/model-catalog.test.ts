import { describe, expect, it } from 'vitest';
import { catalogsOf, createModelPolicy } from '../../src/actions/models.js';

const defaults = (extra: object = {}) => ({ model: 'echo/echo', timeoutSeconds: 600, maxConcurrent: 1, heartbeat: { every: '30m', ackMaxChars: 300, promptBudgetChars: 16000 }, ...extra });
const catalogs = catalogsOf({
  local: { models: [{ id: 'mock-model' }, { id: 'shared' }] },
  remote: { models: [{ id: 'shared' }, { id: 'other' }] },
  echo: {},
});

describe('bare model ids and the providers\' catalogs (OpenClaw\'s models.providers.<p>.models)', () => {
  it('resolve to the one provider listing them, in overrides and as the default', () => {
    const policy = createModelPolicy(defaults({ model: 'mock-model' }), catalogs);
    expect(policy.defaultModel).toBe('local/mock-model');
    expect(policy.resolveOverride('other')).toBe('remote/other');
    expect(policy.resolveOverride('local/shared')).toBe('local/shared');
  });

  it('refuse an id several catalogs list, naming the providers; keep one none lists as given', () => {
    const policy = createModelPolicy(defaults(), catalogs);
    expect(() => policy.resolveOverride('shared')).toThrow(/model "shared" is in the catalogs of several providers \(local, remote\): name it as provider\/model/);
    expect(policy.resolveOverride('unlisted')).toBe('unlisted');
  });

  it('check the allow-list against the resolved id', () => {
    const policy = createModelPolicy(defaults({ models: ['local/mock-model'] }), catalogs);
    expect(policy.resolveOverride('mock-model')).toBe('local/mock-model');
    expect(() => policy.resolveOverride('other')).toThrow(/not in agents.defaults.models/);
  });
});
