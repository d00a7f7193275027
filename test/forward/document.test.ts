import { describe, expect, it } from 'vitest';
import { actionDocument } from '../../src/forward/document.js';
import { actionFromDocument } from '../../src/forward/document-read.js';
import { sealedAgent, sealedWake } from './actions.js';

describe('the hookgate.action.v1 document', () => {
  it('carries an agent action with its type, the run id, its fields, where it came from and that its text is untrusted', () => {
    const action = sealedAgent('Issue opened: crash on start', { to: '123', model: 'openai/gpt-4o', timeoutSeconds: 120 });
    const document = actionDocument('run-1', action);
    expect(document).toEqual({
      type: 'hookgate.action.v1',
      id: 'run-1',
      kind: 'agent',
      message: action.message,
      name: 'GitHub',
      sessionKey: action.sessionKey,
      wakeMode: 'now',
      deliver: false,
      channel: 'last',
      to: '123',
      model: 'openai/gpt-4o',
      timeoutSeconds: 120,
      origin: { mappingId: 'preset:github/issues', path: 'github', scheme: 'github', verified: true, deliveryId: 'gh-delivery-1', receivedAt: '2026-01-01T00:00:00.000Z' },
      untrusted: true,
    });
    // The text is what the model should read: the payload inside Hookgate's envelope.
    expect(document['message']).toMatch(/<<<EXTERNAL_UNTRUSTED_CONTENT id="[0-9a-f]+">>>\nSource: Webhook\nTask: GitHub\n---\nIssue opened: crash on start\n<<<END_EXTERNAL/);
  });

  it('carries a wake with its text and mode, and null for the facts a token request has not', () => {
    const action = { ...sealedWake('deploy failed'), origin: { hook: 'wake' } };
    expect(actionDocument('run-2', action)).toEqual({
      type: 'hookgate.action.v1',
      id: 'run-2',
      kind: 'wake',
      text: action.text,
      mode: 'now',
      origin: { mappingId: null, path: 'wake', scheme: 'token', verified: false, deliveryId: null, receivedAt: null },
      untrusted: true,
    });
  });

  it('says untrusted: false for text a mapping declared trusted', () => {
    const { untrusted: _dropped, ...trusted } = sealedAgent('internal note');
    expect(actionDocument('run-3', trusted)['untrusted']).toBe(false);
  });
});

describe('reading an action document back (a relay passing it on)', () => {
  it('gives the action the document was written from, under the same id: written again it is the same document', () => {
    for (const action of [sealedAgent('Issue #7', { to: '123', thinking: 'low' }), sealedWake('deploy failed')]) {
      const document = JSON.parse(JSON.stringify(actionDocument('run-9', action))) as Record<string, unknown>;
      const read = actionFromDocument(document, 'laptop');
      expect(read?.id).toBe('run-9');
      expect(read?.action.forward).toBe('laptop');
      expect(actionDocument('run-9', read!.action)).toEqual(document);
    }
  });

  it('refuses what is not a hookgate.action.v1 document', () => {
    const document = actionDocument('run-9', sealedWake('x'));
    expect(actionFromDocument({ ...document, type: 'hookgate.action.v2' }, 'laptop')).toBeUndefined();
    expect(actionFromDocument({ ...document, text: '' }, 'laptop')).toBeUndefined();
    expect(actionFromDocument({ ...document, unexpected: { nested: true }, origin: { path: 'x' } }, 'laptop')).toBeUndefined();
    expect(actionFromDocument('{}', 'laptop')).toBeUndefined();
  });
});
