import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PRESETS } from '../../presets/index.js';
import { ConfigError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import { contentMark, idMark, type OwnMark } from '../../src/own-messages.js';
import type { Store } from '../../src/store/port.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import { engineWith } from '../mapping/support.js';
import { corpusDeliveries, octokitDeliveries, type CorpusDelivery } from './corpora.js';
import { presetEntry, verifiedRequest } from './harness.js';

const NOW = Date.UTC(2026, 0, 1);

/** What each sender sends for a message the service may have posted, and the marks the channel kept when it posted it. */
const CASES: Array<{ sender: string; delivery: () => CorpusDelivery; id: string; to: string; text: (payload: Record<string, any>) => string }> = [
  {
    sender: 'github',
    delivery: () => octokitDeliveries().find((delivery) => delivery.headers['x-github-event'] === 'discussion_comment' && delivery.payload['action'] === 'created') as CorpusDelivery,
    id: 'MDE3OkRpc2N1c3Npb25Db21tZW50NTQ0MDc4',
    to: 'octo-org/octo-repo#discussion-90',
    text: (payload) => payload['comment'].body,
  },
  {
    sender: 'gitlab',
    delivery: () => corpusDeliveries('gitlab').find((delivery) => delivery.label.includes('note_merge_request')) as CorpusDelivery,
    id: '1244',
    to: 'gitlab-org/gitlab-test!1',
    text: (payload) => payload['object_attributes'].note,
  },
  {
    sender: 'linear',
    delivery: () => corpusDeliveries('linear')[0] as CorpusDelivery,
    id: '2174add1-f7c8-44e3-bbf3-2d60b5ea8bc9',
    to: '539068e2-ae88-4d09-bd75-22eb4a59612f',
    text: (payload) => payload['data'].body,
  },
  {
    sender: 'slack',
    delivery: () => corpusDeliveries('slack').find((delivery) => delivery.label.includes('app_mention__test_app.app_mention_event_body')) as CorpusDelivery,
    id: 'C111:1595926230.009600',
    to: 'C111',
    text: (payload) => payload['event'].text,
  },
];

describe('the sender presets know the service\'s own messages among their deliveries', () => {
  const dirs: string[] = [];
  const stores: Store[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** The preset's outcome for the delivery, with a store of its own that holds `marks` of `channel`. */
  const outcomeWith = async (sender: string, delivery: CorpusDelivery, marks: OwnMark[], channel = sender) => {
    const dir = mkdtempSync(join(tmpdir(), 'hookgate-own-presets-'));
    dirs.push(dir);
    const store = openSqliteStore({ path: join(dir, 'store.sqlite'), synchronous: 'normal' }, { logger: silentLogger(), idempotencyTtlMs: 60_000, role: 'service' });
    stores.push(store);
    if (marks.length > 0) await store.ownMessages.remember(channel, marks, NOW);
    const engine = await engineWith({ presets: PRESETS, hooks: { presets: [presetEntry(sender, { debounce: false })] }, ownMessages: { store: store.ownMessages, now: () => NOW } });
    return engine.resolve(verifiedRequest(sender, delivery.payload, delivery.headers));
  };

  it.each(CASES)('$sender: a delivery carrying the id the service posted under is skipped as self, before any filter', async ({ sender, delivery, id }) => {
    const example = delivery();
    expect(await outcomeWith(sender, example, [])).toMatchObject({ kind: 'actions' });
    expect(await outcomeWith(sender, example, [idMark(id)])).toMatchObject({ kind: 'skip', reason: 'self' });
    // Only the channel it was posted on counts.
    expect(await outcomeWith(sender, example, [idMark(id)], 'log')).toMatchObject({ kind: 'actions' });
  });

  it.each(CASES)('$sender: so is one whose recipient and text were kept before posting (the webhook outran the API\'s answer)', async ({ sender, delivery, to, text }) => {
    const example = delivery();
    expect(await outcomeWith(sender, example, [contentMark(to, text(example.payload))])).toMatchObject({ kind: 'skip', reason: 'self' });
    expect(await outcomeWith(sender, example, [contentMark(to, `${text(example.payload)} (another text)`)])).toMatchObject({ kind: 'actions' });
  });

  it('refuses an ownMessages without a real channel, or with a recipient but no text', async () => {
    const base = { match: { path: 'x' }, messageTemplate: 'm' };
    await expect(engineWith({ mappings: [{ ...base, ownMessages: { channel: 'last', id: '{{id}}' } }] })).rejects.toThrow(ConfigError);
    await expect(engineWith({ mappings: [{ ...base, ownMessages: { channel: 'githb', id: '{{id}}' } }] })).rejects.toThrow(/ownMessages\/channel|channel must be one of/);
    await expect(engineWith({ mappings: [{ ...base, ownMessages: { channel: 'github', id: '{{id}}', to: '{{to}}' } }] })).rejects.toThrow(/ownMessages.to and ownMessages.text go together/);
    await expect(engineWith({ mappings: [{ ...base, ownMessages: { channel: 'Teams', id: '{{id}}' } }] })).resolves.toBeDefined();
  });
});
