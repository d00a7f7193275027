import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { neutraliseMarkdown, type MarkdownRules } from '../../src/channels/markup.js';
import { crossReferenceFindings, discordFindings, mattermostFindings, sourceChannelFindings, type Finding } from './markup-oracle.js';

/**
 * Hostile Markdown from pieces of every construct that loads, links or notifies somewhere, and of
 * the block structure around them (quotes, lists, indentation, fences, tables, escapes); bounded
 * by the number of runs, never by the clock.
 */
const PIECES = [
  '[', ']', '(', ')', '![', '!', '<', '>', '`', '``', '```', '\\', '@', '@@', '&', '&#64;', '&#x40;', '&commat;', '#', '*', '_', '~', '||', '|', ':', '"', "'",
  '\n', '\n\n', '\r\n', '    ', '  ', ' ', '\t', '> ', '- ', '1. ', '10. ', '* ', '- [ ] ', '---', '===', '~~~', '```js\n', '\n```\n', '\n   ```\n',
  'http://', 'HTTPS://', 'ftp://', '//evil.example/x', 'www.', 'evil.example', 'mailto:', 'javascript:', 'img src=', 'a href=', '/a', 'div',
  'channel', 'here', 'everyone', 'all', 'user', '_user', 'x', 'Y', '9', '.', '-', '/', '=', ';', 'é', '\u200B',
  '[b]: ', '[b]', '[^1]', '<@80351110224678912>', '<@!80351110224678912>', '<@&165511591545143296>', '<#165511591545143296>', '</deploy:1041567894569451530>', '<:e:165511591545143296>', '<!channel>', '@everyone', '@here', '<img src=//evil.example/i>',
  '<a href=//evil.example>', '[t](//evil.example)', '[t](<//evil.example>)', '![i](//evil.example/i.png)', '<https://evil.example>', '<x@evil.example>',
  '\\<', '\\`', '\\[', '\\\\', '\\@', '*@', '_@', '.@', '(@',
  'acme/other', 'group/sub/project', 'project', '12', 'a5c3785', '&#35;', '&num;', '&amp;', '&#50;', '\\#', '\\!', '\\&',
  '| a | b |\n|---|---|\n| ', ' | ', '|\n', '```\n', '  ```\n', '1. x\n   ```\n', '- x\n  ', '\n    ', '$`', '`$', '[[', ']]', '{', '}', '<\n', '<\t', ':/', '~~', '__', '**', '-# ', '# ',
];
const hostile = fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }).map((pieces) => pieces.join(''));
const CHARACTERS = [...'[]()!<>`\\@&#*_~|:"\'\n\t -/.=;abchlnptuwxHPTW'];
const scrambled = fc.string({ unit: fc.constantFrom(...CHARACTERS), maxLength: 80 });
const markdown = fc.oneof(hostile, scrambled);
/** MARKUP_FUZZ_RUNS raises it for a longer hunt; the suite's own runs stay bounded. */
const RUNS = Number(process.env['MARKUP_FUZZ_RUNS'] ?? 700);

function holds(render: (text: string) => Finding[], rules: MarkdownRules, keep: (finding: Finding) => boolean = () => true) {
  fc.assert(
    fc.property(markdown, (text) => {
      const sent = neutraliseMarkdown(text, rules);
      expect(render(sent).filter(keep), JSON.stringify(sent)).toEqual([]);
    }),
    { numRuns: RUNS },
  );
}

describe('neutraliseMarkdown against real renderers (property)', () => {
  it('GitHub, GitLab, Linear: no image, raw HTML, hidden link or mention survives', () => {
    holds(sourceChannelFindings, { mentions: 'all', links: true });
  });

  it('GitHub, GitLab, Linear with markup "allow": still no mention', () => {
    holds(sourceChannelFindings, { mentions: 'all', links: false }, (finding) => finding.kind === 'mention');
  });

  it('GitHub, GitLab: no reference to another repository or project survives', () => {
    holds(crossReferenceFindings, { mentions: 'mass', links: true, crossReferences: true });
  });

  it('Mattermost: no image, raw HTML, hidden link or mass mention survives', () => {
    holds(mattermostFindings, { mentions: 'mass', links: true });
  });

  it('Discord: no mention of any kind, masked link or hidden link survives', () => {
    holds(discordFindings, { mentions: 'mass', links: true, emphasisCrossesCode: true });
  });

  it('sends text that holds none of [ < ` \\ & @ and no URL exactly as written', () => {
    const plain = fc.string({ unit: fc.constantFrom(...'abcXYZ019 .,;:?!\'"()*_#-~|=+/\n\t'), maxLength: 120 });
    fc.assert(
      fc.property(plain, (text) => {
        expect(neutraliseMarkdown(text, { mentions: 'all', links: true })).toBe(text);
      }),
      { numRuns: RUNS },
    );
  });
});
