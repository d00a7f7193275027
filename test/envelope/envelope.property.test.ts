import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { METADATA_MAX_CHARS, wrapUntrusted, type UntrustedSource } from '../../src/envelope/envelope.js';
import { findControlTokenSpans, findMarkerSpans, sanitizeUntrusted } from '../../src/envelope/sanitize.js';
import { controlTokenLike, hostileContent, markerLike } from './arbitraries.js';
import { countMarkerWords, inspectEnvelope, isClean } from './inspect.js';

const source = fc.constantFrom<UntrustedSource>('Email', 'Webhook');
const anyText = fc.oneof(hostileContent, fc.string({ unit: 'binary', maxLength: 200 }), fc.string({ maxLength: 200 }));

describe('wrapUntrusted for any content', () => {
  it('has exactly one start and one end marker, with the same id, start first, and nothing marker-like between them', () => {
    fc.assert(
      fc.property(anyText, source, (content, src) => {
        const output = wrapUntrusted(content, { source: src });
        const parts = inspectEnvelope(output);
        expect(countMarkerWords(output)).toBe(2);
        expect(isClean(parts.inside)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('keeps that shape when the metadata is hostile too', () => {
    fc.assert(
      fc.property(anyText, anyText, anyText, anyText, source, (content, task, from, subject, src) => {
        const output = wrapUntrusted(content, { source: src, task, from, subject });
        const parts = inspectEnvelope(output);
        expect(countMarkerWords(output)).toBe(2);
        expect(isClean(parts.inside)).toBe(true);
        for (const line of parts.headerLines) {
          expect(line).toMatch(/^(Source|Task|From|Subject): /);
          expect(Array.from(line.replace(/^\w+: /, '')).length).toBeLessThanOrEqual(METADATA_MAX_CHARS);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('returns content with no marker or control-token form unchanged', () => {
    const plain = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz ABC.,;:!?()-_\n\t0123456789éü😀'), maxLength: 300 });
    fc.assert(
      fc.property(plain, (content) => {
        fc.pre(isClean(content));
        expect(inspectEnvelope(wrapUntrusted(content, { source: 'Email' })).content).toBe(content);
      }),
    );
  });
});

describe('the sanitiser', () => {
  it('finds every generated marker look-alike', () => {
    fc.assert(
      fc.property(markerLike, (marker) => {
        expect(findMarkerSpans(marker).length).toBeGreaterThan(0);
        expect(sanitizeUntrusted(marker)).toContain('[[MARKER_SANITIZED]]');
      }),
      { numRuns: 300 },
    );
  });

  it('finds every generated control-token look-alike', () => {
    fc.assert(
      fc.property(controlTokenLike, (token) => {
        expect(findControlTokenSpans(token).length).toBeGreaterThan(0);
      }),
    );
  });

  it('leaves nothing to find after one pass, whatever the input', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        expect(isClean(sanitizeUntrusted(text))).toBe(true);
      }),
      { numRuns: 400 },
    );
  });
});
