import { describe, expect, it } from 'vitest';
import { compileEventMatcher, eventFieldReader, eventTypeReaderFor } from '../../src/admission/event-type.js';
import { SIGNATURE_SCHEMES } from '../../src/auth/signatures/index.js';

describe('event types', () => {
  it('reads each scheme\'s event type where its sender puts it', () => {
    expect(eventTypeReaderFor('github')?.({ 'x-github-event': 'issues' }, { action: 'opened' })).toBe('issues.opened');
    expect(eventTypeReaderFor('github')?.({ 'x-github-event': 'push' }, { ref: 'main' })).toBe('push');
    expect(eventTypeReaderFor('stripe')?.({}, { type: 'invoice.payment_failed' })).toBe('invoice.payment_failed');
    expect(eventTypeReaderFor('standard-webhooks')?.({}, { type: 'user.created' })).toBe('user.created');
    expect(eventTypeReaderFor('slack')?.({}, { type: 'event_callback', event: { type: 'app_mention' } })).toBe('app_mention');
    expect(eventTypeReaderFor('slack')?.({}, { type: 'url_verification' })).toBe('url_verification');
    expect(eventTypeReaderFor('shopify')?.({ 'x-shopify-topic': 'orders/create' }, {})).toBe('orders/create');
    expect(eventTypeReaderFor('hmac')).toBeUndefined();
    expect(eventTypeReaderFor('toString')).toBeUndefined();
  });

  it('offers a reader for every registered scheme that reads an event type, and none for hmac', () => {
    for (const scheme of SIGNATURE_SCHEMES.filter((candidate) => candidate.eventType !== undefined)) expect(eventTypeReaderFor(scheme.name), scheme.name).toBeDefined();
    expect(SIGNATURE_SCHEMES.filter((scheme) => scheme.eventType === undefined).map((scheme) => scheme.name)).toEqual(['hmac']);
    expect(eventTypeReaderFor('linear')?.({}, { type: 'Issue', action: 'create' })).toBe('Issue.create');
  });

  it('reads eventField from the payload or a header', () => {
    const fromPayload = eventFieldReader('payload.meta.kind');
    const fromHeader = eventFieldReader('headers.X-Event');
    if (typeof fromPayload === 'string' || typeof fromHeader === 'string') throw new Error('expected readers');
    expect(fromPayload({}, { meta: { kind: 'issue.updated' } })).toBe('issue.updated');
    expect(fromHeader({ 'x-event': 'deploy' }, {})).toBe('deploy');
    expect(eventFieldReader('query.kind')).toMatch(/payload.<path> or headers.<name>/);
  });

  it('matches exact names, every action of a bare event and the rest of a dotted name after .*', () => {
    const matches = compileEventMatcher(['issues', 'pull_request.opened', 'invoice.*']);
    expect(['issues', 'issues.opened', 'pull_request.opened', 'invoice.paid', 'invoice.payment.failed'].map(matches)).toEqual([true, true, true, true, true]);
    expect(['issues_comment', 'pull_request', 'pull_request.closed', 'invoice', 'invoices.paid', undefined].map(matches)).toEqual([false, false, false, false, false, false]);
  });
});
