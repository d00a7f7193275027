import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderConfigReference } from '../../src/config/reference.js';

describe('the configuration reference', () => {
  it('in docs/configuration.md matches the schema (run npm run docs:config after a change)', () => {
    const doc = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    const embedded = doc.slice(doc.indexOf('<!-- reference:start -->') + 24, doc.indexOf('<!-- reference:end -->')).trim();
    expect(embedded).toBe(renderConfigReference().trim());
  });

  it('describes every key of the schema', () => {
    const undocumented = renderConfigReference()
      .split('\n')
      .slice(2)
      .filter((line) => line !== '' && !line.startsWith('| `hooks.mappings[]` |'))
      .filter((line) => line.trimEnd().endsWith('|  |'));
    expect(undocumented).toEqual([]);
  });
});
