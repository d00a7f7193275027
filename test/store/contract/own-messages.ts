import { describe, expect, it } from 'vitest';
import { contentMark, idMark, OWN_CONTENT_KEEP_MS, OWN_ID_KEEP_MS } from '../../../src/own-messages.js';
import { NOW, contractStores } from './fixture.js';
import type { ContractFactory } from './index.js';

/** The service's own messages: remembered per channel until they expire, seen by every instance. */
export function describeOwnMessagesContract(makeStore: ContractFactory): void {
  describe('own messages', () => {
    const stores = contractStores(makeStore);

    it('knows a remembered mark on its channel only, until it expires', async () => {
      const { store } = await stores.open();
      const comment = idMark('IC_kwDOA1');
      expect(await store.ownMessages.includesAny('github', [comment.mark], NOW)).toBe(false);
      await store.ownMessages.remember('github', [comment], NOW);
      expect(await store.ownMessages.includesAny('github', ['id:other', comment.mark], NOW)).toBe(true);
      expect(await store.ownMessages.includesAny('gitlab', [comment.mark], NOW)).toBe(false);
      expect(await store.ownMessages.includesAny('github', [], NOW)).toBe(false);
      expect(await store.ownMessages.includesAny('github', [comment.mark], NOW + OWN_ID_KEEP_MS - 1)).toBe(true);
      expect(await store.ownMessages.includesAny('github', [comment.mark], NOW + OWN_ID_KEEP_MS)).toBe(false);
    });

    it('keeps a content mark for a shorter time than an id, and the later expiry of a mark remembered twice', async () => {
      const { store } = await stores.open();
      const text = contentMark('Acme/API#3', 'Thanks, looking into it.\r\n');
      expect(contentMark('acme/api#3', 'Thanks, looking into it.').mark).toBe(text.mark);
      await store.ownMessages.remember('github', [text], NOW);
      expect(await store.ownMessages.includesAny('github', [text.mark], NOW + OWN_CONTENT_KEEP_MS)).toBe(false);
      await store.ownMessages.remember('github', [text], NOW + 1000);
      await store.ownMessages.remember('github', [text], NOW);
      expect(await store.ownMessages.includesAny('github', [text.mark], NOW + OWN_CONTENT_KEEP_MS)).toBe(true);
    });

    it('deletes expired marks when it remembers new ones: a mark past its time is gone, not only hidden', async () => {
      const { store, sibling } = await stores.open();
      const old = idMark('old');
      await store.ownMessages.remember('slack', [old], NOW);
      const later = NOW + OWN_ID_KEEP_MS;
      await store.ownMessages.remember('slack', [idMark('new')], later);
      // Asked as of the day it was written, the deleted mark is no longer there.
      expect(await store.ownMessages.includesAny('slack', [old.mark], NOW)).toBe(false);
      expect(await store.ownMessages.includesAny('slack', ['id:new'], later)).toBe(true);
      // Another instance (or the next process) sees what this one remembered.
      if (sibling !== undefined) expect(await (await sibling()).ownMessages.includesAny('slack', ['id:new'], later)).toBe(true);
    });
  });
}
