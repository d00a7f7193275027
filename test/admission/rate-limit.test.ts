import { describe, expect, it } from 'vitest';
import { ConfigError, HookError } from '../../src/errors.js';
import { parseConfigText } from '../../src/config/load.js';
import { createMappingEngine, type MappingOutcome } from '../../src/mapping/engine.js';
import type { MappingConfig } from '../../src/config/mapping-schema.js';
import { silentLogger } from '../../src/log.js';
import { FIXED_NOW, engineWith, fakeTransforms, hooksConfig, recordingBuilder, request } from '../mapping/support.js';
import { fakeBuckets } from './fake-buckets.js';
import { createRateRefusals } from '../../src/admission/rate-refusals.js';

async function limitedEngine(mapping: Partial<MappingConfig>, options: { transforms?: ReturnType<typeof fakeTransforms> } = {}) {
  const buckets = fakeBuckets();
  const limited: Array<[string, string]> = [];
  let now = FIXED_NOW.getTime();
  const engine = await createMappingEngine({
    hooks: hooksConfig({ mappings: [{ id: 'sentry', match: { path: 'sentry' }, messageTemplate: 'issue {{issue}}', ...mapping }] }),
    builder: recordingBuilder().builder,
    logger: silentLogger(),
    now: () => FIXED_NOW,
    presets: [],
    ...(options.transforms === undefined ? {} : { transforms: options.transforms.port }),
    rateLimits: { store: buckets, refusals: createRateRefusals(), now: () => now, onLimited: (id, over) => void limited.push([id, over]) },
  });
  /** A delivery as the HTTP layer takes it: resolved, then its hit counted as the store counts it at commit. */
  const deliver = async (body: Record<string, unknown>): Promise<MappingOutcome> => committed(await engine.resolve(request('sentry', body)));
  const committed = async (outcome: MappingOutcome): Promise<MappingOutcome> => {
    if (outcome.kind !== 'actions' || outcome.rateLimit === undefined) return outcome;
    const { bucket, rule, now: at } = outcome.rateLimit.hit;
    const verdict = await buckets.rateHit(bucket, rule, at);
    return verdict.allowed ? outcome : outcome.rateLimit.refused(verdict.retryAfterMs);
  };
  return { engine, buckets, limited, deliver, committed, advance: (ms: number) => (now += ms) };
}

function issuesOf(text: string) {
  try {
    parseConfigText(text, { configDir: '/srv/hookgate', env: {} });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).issues.map((issue) => issue.path);
  }
  throw new Error('expected a ConfigError');
}

describe('a mapping rateLimit at admission', () => {
  it('skips past the limit per rendered key; once refused, a full bucket refuses before any transform runs until the period frees', async () => {
    const transforms = fakeTransforms(() => ({ kind: 'unchanged' }));
    const { deliver, limited, advance, buckets } = await limitedEngine({ transform: { module: 'x.js' }, rateLimit: { limit: 2, periodSeconds: 60, key: '{{project.slug}}' } }, { transforms });
    const send = (slug: string) => deliver({ project: { slug }, issue: 1 });
    expect((await send('a')).kind).toBe('actions');
    expect((await send('a')).kind).toBe('actions');
    // The third is refused by the store at commit (its transform ran); the fourth is known full.
    expect(await send('a')).toEqual({ kind: 'skip', mappingId: 'sentry', reason: 'rate-limit', key: 'a' });
    expect(transforms.inputs).toHaveLength(3);
    expect(await send('a')).toEqual({ kind: 'skip', mappingId: 'sentry', reason: 'rate-limit', key: 'a' });
    expect(transforms.inputs).toHaveLength(3);
    expect((await send('b')).kind).toBe('actions');
    expect(transforms.inputs).toHaveLength(4);
    expect(limited).toEqual([
      ['sentry', 'skip'],
      ['sentry', 'skip'],
    ]);
    // 2 per minute: the bucket has room again 30 s after the last admitted delivery, not before.
    const tat = buckets.tats.get('rate:sentry:a');
    advance(29_998);
    expect((await send('a')).kind).toBe('skip');
    expect(buckets.tats.get('rate:sentry:a')).toBe(tat);
    advance(2);
    expect((await send('a')).kind).toBe('actions');
    expect((await send('a')).kind).toBe('skip');
  });

  it('rejects with RATE_LIMITED and the seconds until a delivery conforms when over is reject', async () => {
    const { deliver, limited } = await limitedEngine({ rateLimit: { limit: 3, periodSeconds: 90, over: 'reject' } });
    for (let i = 0; i < 3; i += 1) expect((await deliver({ issue: i })).kind).toBe('actions');
    const refused = await deliver({ issue: 4 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(HookError);
    expect(refused).toMatchObject({ code: 'RATE_LIMITED', status: 429, retryAfterSeconds: 30 });
    expect(limited).toEqual([['sentry', 'reject']]);
  });

  it('leaves the decision to the commit: of deliveries resolved together under the last place, the store takes one and the others are refused then', async () => {
    const { engine, committed, limited, buckets } = await limitedEngine({ rateLimit: { limit: 1, periodSeconds: 60, key: '{{project}}' } });
    // Both read a bucket with room (resolving counts nothing); their commits decide.
    const [first, second] = await Promise.all([engine.resolve(request('sentry', { project: 'p', issue: 1 })), engine.resolve(request('sentry', { project: 'p', issue: 2 }))]);
    expect([first?.kind, second?.kind]).toEqual(['actions', 'actions']);
    expect(buckets.tats.size).toBe(0);
    expect((await committed(first as MappingOutcome)).kind).toBe('actions');
    expect(await committed(second as MappingOutcome)).toEqual({ kind: 'skip', mappingId: 'sentry', reason: 'rate-limit', key: 'p' });
    expect(limited).toEqual([['sentry', 'skip']]);
  });

  it('renders throttle and concurrency keys onto each agent action, one per fan-out item', async () => {
    const engine = await engineWith({
      mappings: [{ id: 'gh', match: { path: 'gh' }, forEach: 'issues', messageTemplate: '{{issues[0].title}}', throttle: { limit: 1, periodSeconds: 10, key: '{{issues[0].repo}}' }, concurrency: { limit: 1, key: 'issue-{{issues[0].number}}' } }],
    });
    const outcome = await engine.resolve(request('gh', { issues: [{ title: 'a', number: 1, repo: 'r' }, { title: 'b', number: 2, repo: 'r' }] }));
    expect(outcome.kind === 'actions' && outcome.actions.map((action) => (action.kind === 'agent' ? action.limitKeys : undefined))).toEqual([
      { throttle: 'r', concurrency: 'issue-1' },
      { throttle: 'r', concurrency: 'issue-2' },
    ]);
  });

  it('explains each limit with its key and verdict without counting the delivery', async () => {
    const { engine, buckets, deliver } = await limitedEngine({ rateLimit: { limit: 1, periodSeconds: 60, key: '{{project}}' }, concurrency: { limit: 2, key: '{{issue}}' } });
    const first = await engine.explain(request('sentry', { project: 'p', issue: 7 }));
    expect(first.limits).toEqual([
      { limit: 'rateLimit', key: 'p', verdict: 'admitted' },
      { limit: 'concurrency', key: '7', verdict: 'admitted; at most 2 run(s) of this key execute at once' },
    ]);
    expect(buckets.tats.size).toBe(0);
    await deliver({ project: 'p', issue: 7 });
    expect((await engine.explain(request('sentry', { project: 'p', issue: 7 }))).limits[0]).toEqual({ limit: 'rateLimit', key: 'p', verdict: 'skipped (a delivery conforms again in 60 s)' });
  });

  it('refuses limits that are not positive integers, a budget without a window and a key that does not compile, with their paths', async () => {
    const base = (mapping: string) => `{ hooks: { enabled: true, token: "t0123456789abcdef", mappings: [{ messageTemplate: "x", ${mapping} }] } }`;
    expect(issuesOf(base('rateLimit: { limit: 0, periodSeconds: 60 }'))).toContain('/hooks/mappings/0/rateLimit/limit');
    expect(issuesOf(base('throttle: { limit: 1, periodSeconds: 1.5 }'))).toContain('/hooks/mappings/0/throttle/periodSeconds');
    expect(issuesOf(base('rateLimit: { limit: 1, periodSeconds: 60, over: "drop" }'))).toContain('/hooks/mappings/0/rateLimit/over');
    expect(issuesOf('{ agents: { defaults: { maxQueued: -1 } } }')).toContain('/agents/defaults/maxQueued');
    const build = (mapping: Partial<MappingConfig>) => engineWith({ mappings: [{ messageTemplate: 'x', ...mapping }] }).then(() => [], (error: ConfigError) => error.issues.map((issue) => issue.path));
    expect(await build({ budget: {} })).toEqual(['/hooks/mappings/0/budget']);
    expect(await build({ rateLimit: { limit: 1, periodSeconds: 1, key: '{{#each}}' } })).toEqual(['/hooks/mappings/0/rateLimit/key']);
  });
});
