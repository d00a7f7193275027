import { describe, expect, it } from 'vitest';
import { parseModelRef } from '../../src/providers/model-ref.js';

describe('parseModelRef', () => {
  it('splits at the first slash so model names may contain slashes', () => {
    expect(parseModelRef('echo/echo')).toEqual({ provider: 'echo', model: 'echo' });
    expect(parseModelRef('openrouter/meta-llama/llama-3-8b')).toEqual({ provider: 'openrouter', model: 'meta-llama/llama-3-8b' });
  });

  it('refuses a reference with an empty provider or model part', () => {
    expect(parseModelRef('gpt-4o')).toBeUndefined();
    expect(parseModelRef('/gpt-4o')).toBeUndefined();
    expect(parseModelRef('openai/')).toBeUndefined();
  });
});
