/**
 * Renders what a channel sends with that service's own kind of parser and reports what would load,
 * link or notify: an image, raw HTML, a link whose host its visible text does not show, a mention.
 *
 * - GitHub, GitLab, Linear: CommonMark with GFM (markdown-it with raw HTML and linkify on; micromark
 *   with the GFM extension, raw HTML on). Mentions as GitHub and GitLab find them: in each rendered
 *   text node outside code and links, an `@` not after a word character, then a name character.
 *   References to another repository or project the same way (crossReferenceFindings), as the forms
 *   GitHub ("Autolinked references and URLs") and GitLab ("GitLab-specific references") document.
 * - Mattermost: marked (GFM) for images, HTML and links; mass mentions as the server finds them in the
 *   raw text (words split at anything but letters, digits and `:._-@`, then again at `.-:`), with code
 *   included where the server would leave it out.
 * - Discord: discord-markdown-parser (simple-markdown with Discord's rules, masked links on).
 */
import { parse as parseDiscord } from 'discord-markdown-parser';
import MarkdownIt from 'markdown-it';
import { marked } from 'marked';
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';

export interface Finding {
  kind: 'image' | 'html' | 'hidden link' | 'mention' | 'reference';
  detail: string;
}

const markdownIt = new MarkdownIt({ html: true, linkify: true });
/** What the renderers produce from Markdown; any other tag came from raw HTML in the text. */
const RENDERED_TAGS = new Set([
  'p', 'em', 'strong', 'code', 'pre', 'a', 'ul', 'ol', 'li', 'blockquote', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'hr', 'br', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'del', 's', 'input',
]);
/** GitHub: `(?:^|\W)@name`; GitLab also takes names starting with `_` or `.`. The union of both. */
const SOURCE_MENTION = /(?<![A-Za-z0-9_])@[A-Za-z0-9_.]/;
/** Where a relative link would go: a page of the service itself, which the text does not show either. */
const RELATIVE_BASE = new URL('https://rendering-service.invalid/page');
const MASS_WORDS = new Set(['@channel', '@all', '@here']);
/**
 * A reference that reaches another repository or project, in a rendered text node. The union of
 * GitHub's `owner/repo#12` and `owner/repo@<sha>`, and GitLab's `group[/sub…]/project#12`, `…!12`
 * (merge request), `…&12` (epic), `…@<sha>`, and the same-namespace `project#12`, `project!12`,
 * `group&12`; stricter than either service: any path character right before `#`, `!` or `&` and a
 * digit counts. A same-repository `#12` does not match: nothing of a path is before its `#`.
 */
const CROSS_REFERENCE = /[\w.-][#!&]\d|[\w.-]\/[\w.-]+@[0-9a-f]{7}/i;

/** GitHub, GitLab and Linear: two CommonMark/GFM renderers, each must find nothing. */
export function sourceChannelFindings(markdown: string): Finding[] {
  const htmls = [markdownIt.render(markdown), micromark(markdown, { allowDangerousHtml: true, extensions: [gfm()], htmlExtensions: [gfmHtml()] })];
  return htmls.flatMap((html) => htmlFindings(html, SOURCE_MENTION));
}

/** GitHub and GitLab: the references to another repository or project each renderer's text would carry. */
export function crossReferenceFindings(markdown: string): Finding[] {
  const htmls = [markdownIt.render(markdown), micromark(markdown, { allowDangerousHtml: true, extensions: [gfm()], htmlExtensions: [gfmHtml()] })];
  return htmls.flatMap((html) => htmlFindings(html, CROSS_REFERENCE, 'reference')).filter((finding) => finding.kind === 'reference');
}

/** Mattermost: marked for what renders; its server, not the renderer, decides who is notified. */
export function mattermostFindings(markdown: string): Finding[] {
  const html = marked.parse(markdown, { gfm: true, async: false });
  const massMentions = mattermostMassMentions(markdown).map((word) => ({ kind: 'mention' as const, detail: word }));
  return [...htmlFindings(html, undefined), ...massMentions];
}

/** The Mattermost server's reading of the raw message (code not removed: stricter than the server). */
export function mattermostMassMentions(message: string): string[] {
  const found: string[] = [];
  for (const word of message.split(/[^\p{L}\p{N}:._@-]+/u)) {
    for (const part of [word, ...word.split(/[.:-]+/)]) if (MASS_WORDS.has(part.toLowerCase())) found.push(part);
  }
  return found;
}

interface DiscordNode {
  type: string;
  content?: unknown;
  target?: string;
}

/** Discord: mention nodes of any kind, masked links, and links whose host their text does not show. */
export function discordFindings(markdown: string): Finding[] {
  const findings: Finding[] = [];
  const visit = (nodes: unknown): void => {
    if (!Array.isArray(nodes)) return;
    for (const node of nodes as DiscordNode[]) {
      if (['user', 'role', 'everyone', 'here', 'channel', 'slashCommand', 'guildNavigation'].includes(node.type)) {
        findings.push({ kind: 'mention', detail: `${node.type} ${JSON.stringify(node)}` });
      }
      if (['link', 'url', 'autolink'].includes(node.type)) {
        const problem = hiddenHost(node.target ?? '', discordText(node.content));
        if (node.type === 'link' || problem !== undefined) findings.push({ kind: 'hidden link', detail: `${node.type} ${node.target ?? ''}` });
      }
      visit(node.content);
    }
  };
  visit(parseDiscord(markdown, 'extended'));
  return findings;
}

function discordText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as DiscordNode[]).map((node) => discordText(node.content)).join('');
}

const TOKEN = /<(\/?)([A-Za-z][\w-]*)([^>]*)>|<[^>]*>?|([^<]+)/g;

/** Walks rendered HTML: tags it knows, text nodes (`mention` found in them outside code and links is a `kind`), and the text of each link. */
function htmlFindings(html: string, mention: RegExp | undefined, kind: 'mention' | 'reference' = 'mention'): Finding[] {
  const findings: Finding[] = [];
  let codeDepth = 0;
  let link: { href: string; text: string } | undefined;
  for (const token of html.matchAll(TOKEN)) {
    const [whole, closing, rawName, attributes, text] = token;
    if (text !== undefined) {
      const decoded = decodeHtml(text);
      if (link !== undefined) link.text += decoded;
      else if (codeDepth === 0 && mention?.test(decoded) === true) findings.push({ kind, detail: decoded });
      continue;
    }
    const name = rawName?.toLowerCase();
    if (name === undefined) {
      findings.push({ kind: 'html', detail: whole });
      continue;
    }
    if (name === 'img') findings.push({ kind: 'image', detail: whole });
    else if (!RENDERED_TAGS.has(name)) findings.push({ kind: 'html', detail: whole });
    if (name === 'code' || name === 'pre') codeDepth += closing === '/' ? -1 : 1;
    if (name !== 'a') continue;
    if (link !== undefined) findings.push(...linkFinding(link));
    link = closing === '/' ? undefined : { href: hrefOf(attributes ?? ''), text: '' };
  }
  // A raw <a> need not be closed to link what follows it.
  return link === undefined ? findings : [...findings, ...linkFinding(link)];
}

function linkFinding(link: { href: string; text: string }): Finding[] {
  const problem = hiddenHost(link.href, link.text);
  return problem === undefined ? [] : [{ kind: 'hidden link', detail: problem }];
}

/** The href of a tag, quoted or not (raw HTML need not quote it). */
function hrefOf(attributes: string): string {
  const found = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(attributes);
  return decodeHtml(found?.[1] ?? found?.[2] ?? found?.[3] ?? '');
}

/** Why a link hides where it goes, or undefined when its visible text shows its host. */
function hiddenHost(href: string, text: string): string | undefined {
  const shown = text.toLowerCase();
  // normalizeLinkText: the target as markdown-it shows it (percent-decoded, punycode as Unicode).
  if ([href, markdownIt.normalizeLinkText(href)].some((form) => shown.includes(form.toLowerCase()) || shown.includes(withoutScheme(form).toLowerCase()))) return undefined;
  let host: string;
  try {
    const url = new URL(href, RELATIVE_BASE);
    host = url.protocol === 'mailto:' ? url.pathname.slice(url.pathname.lastIndexOf('@') + 1) : url.hostname;
  } catch {
    return `an unreadable target "${href}" behind "${text}"`;
  }
  if (host === RELATIVE_BASE.hostname) return `a relative link "${href}" behind "${text}"`;
  if (host !== '' && shown.includes(host.toLowerCase())) return undefined;
  return `"${href}" behind "${text}"`;
}

/** The target as a reader would type it: decoded, without `scheme:` or `scheme://`. */
function withoutScheme(href: string): string {
  return safeDecode(href).replace(/^[a-z][a-z0-9+.-]*:(?:\/\/)?/i, '');
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // not valid percent-encoding: compared as it is
  }
}

function decodeHtml(text: string): string {
  return text
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&#x([0-9a-f]+);/gi, (_, code: string) => String.fromCodePoint(Number.parseInt(code, 16)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
