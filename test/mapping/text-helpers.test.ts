import { describe, expect, it } from 'vitest';
import { createTemplateCompiler } from '../../src/mapping/template.js';
import { toSafeRecord } from '../../src/mapping/context.js';

const compiler = createTemplateCompiler();
const render = (source: string, payload: Record<string, unknown>): string => compiler.compile(source)(toSafeRecord(payload));

describe('the text helpers presets use', () => {
  it('oneline folds every whitespace run into one space and cuts at N characters', () => {
    expect(render('[{{oneline title}}]', { title: '  Fix\n\tthe   gear  ' })).toBe('[Fix the gear]');
    expect(render('[{{oneline title 7}}]', { title: 'Fix the gear' })).toBe('[Fix the…]');
    expect(render('[{{oneline missing 7}}]', {})).toBe('[]');
  });

  it('excerpt keeps lines, collapses spaces and blank runs, and cuts at N characters', () => {
    expect(render('{{excerpt body}}', { body: 'a  b\r\n\r\n\r\n\r\n  c\t\td  ' })).toBe('a b\n\nc d');
    expect(render('{{excerpt body 5}}', { body: 'abcdefgh' })).toBe('abcde…');
  });

  it('pick maps a value to its text, else the fallback, else the value with spaces for underscores', () => {
    expect(render('{{pick action "synchronize" "pushed to" "closed" "closed"}}', { action: 'synchronize' })).toBe('pushed to');
    expect(render('{{pick action "synchronize" "pushed to" "changed"}}', { action: 'labeled' })).toBe('changed');
    expect(render('{{pick action}}', { action: 'ready_for_review' })).toBe('ready for review');
    expect(render('[{{pick action}}]', {})).toBe('[]');
  });

  it('money shows minor units in the currency unit, zero-decimal currencies as they are', () => {
    expect(render('{{money amount currency}}', { amount: 4900, currency: 'eur' })).toBe('49.00 EUR');
    expect(render('{{money amount currency}}', { amount: 4900, currency: 'jpy' })).toBe('4900 JPY');
    expect(render('{{money amount}}', { amount: '1050' })).toBe('10.50');
    expect(render('[{{money amount currency}}]', { amount: 'lots', currency: 'usd' })).toBe('[]');
  });

  it('date shows Unix seconds or milliseconds as UTC, other text as given', () => {
    expect(render('{{date at}}', { at: 1_700_000_000 })).toBe('2023-11-14 22:13 UTC');
    expect(render('{{date at}}', { at: 1_700_000_000_000 })).toBe('2023-11-14 22:13 UTC');
    expect(render('{{date at}}', { at: '2024-01-01' })).toBe('2024-01-01');
  });
});
