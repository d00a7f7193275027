import { describe, expect, it } from 'vitest';
import { compileAllowTo, createRecipientPolicy } from '../../src/channels/recipients.js';
import { HookError } from '../../src/errors.js';

describe('allowTo', () => {
  it('keeps exact entries exact', () => {
    const allows = compileAllowTo(['-1001', '@news']);
    expect(['-1001', '@news'].map(allows)).toEqual([true, true]);
    expect(['-10011', '@new', '-100*'].map(allows)).toEqual([false, false, false]);
  });

  it('reads * as any characters but / and ** as any characters', () => {
    const org = compileAllowTo(['my-org/*']);
    expect(['my-org/api#12', 'my-org/web!3', 'my-org/api'].map(org)).toEqual([true, true, true]);
    expect(['my-org/sub/api#1', 'other/api#1', 'my-org2/api#1'].map(org)).toEqual([false, false, false]);
    const issues = compileAllowTo(['my-org/api#*']);
    expect(['my-org/api#1', 'my-org/api', 'my-org/apix#1'].map(issues)).toEqual([true, false, false]);
    const deep = compileAllowTo(['group/**']);
    expect(['group/sub/project#4', 'groupie/x#1'].map(deep)).toEqual([true, false]);
  });

  it('takes regular-expression characters literally', () => {
    const allows = compileAllowTo(['a.b/(c)*']);
    expect(['a.b/(c)d', 'axb/(c)d', 'a.b/cd'].map(allows)).toEqual([true, false, false]);
  });

  it('allows the threads and issues of an allowed recipient', () => {
    const allows = compileAllowTo(['C123', 'my-org/api']);
    expect(['C123#1712345678.0001', 'my-org/api#7', 'C1234#1', '#C123'].map(allows)).toEqual([true, true, false, false]);
  });

  it('matches GitHub, GitLab and Linear recipients in any case of their owner, repository or team, the issue part exactly', () => {
    const policy = createRecipientPolicy({
      github: { allowTo: ['acme/*', 'Other/API#discussion-7'] },
      gitlab: { allowTo: ['Group/**', 'solo/project'] },
      linear: { allowTo: ['ENG-*'] },
      slack: { allowTo: ['C0123'] },
    });
    expect(['ACME/x#1', 'Acme/X#2', 'other/api#discussion-7', 'OTHER/Api#discussion-7'].map((to) => policy.allows('github', to))).toEqual([true, true, true, true]);
    expect(['acmex/x#1', 'other/api#discussion-8', 'other/api#DISCUSSION-7'].map((to) => policy.allows('github', to))).toEqual([false, false, false]);
    expect(['group/SUB/project!3', 'GROUP/p#1', 'Solo/Project#4', 'groupie/p#1'].map((to) => policy.allows('gitlab', to))).toEqual([true, true, true, false]);
    expect(['eng-5', 'Eng-12', 'OPS-1'].map((to) => policy.allows('linear', to))).toEqual([true, true, false]);
    // A Slack id is an id: its case is its own.
    expect(policy.allows('slack', 'c0123')).toBe(false);
  });

  it('refuses a request outside the list at admission, per channel', () => {
    const policy = createRecipientPolicy({ github: { allowTo: ['my-org/*'] } });
    expect(() => policy.checkAdmission('github', 'my-org/api#1', 'whatsapp')).not.toThrow();
    expect(() => policy.checkAdmission('github', 'evil/api#1', 'whatsapp')).toThrow(HookError);
    expect(policy.allows('slack', 'anything')).toBe(true);
  });
});
