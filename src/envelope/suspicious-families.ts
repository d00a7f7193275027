/*
 * The suspicious pattern families, as data: each family is a list of alternatives, and each
 * alternative says where a match of it can begin (a word of a list, a line start, a literal). The
 * regular expressions are built from the same lists, so that "every match begins at one of its
 * starts" holds by construction; suspicious.ts tests a family only at those positions (see
 * anchored-scan.ts), and the plain, unanchored expressions stay the definition the tests compare with.
 *
 * The patterns run on the folded view (lower case, look-alikes folded, invisible characters dropped).
 * Every gap is bounded and every pattern starts with a literal word or a line start, so matching stays
 * linear on large payloads.
 */

/** Horizontal white space within one line: at least one character (`S`), or possibly none (`S0`). */
const S = '[^\\S\\n]+';
const S0 = '[^\\S\\n]*';
/** Up to `n` characters of the same line. */
const gap = (n: number): string => `[^\\n]{0,${n}}?`;
/** Optional markup a fake header may start or end with: `### `, `> `, `**`, `[`, `<`, `<|`, `(`. */
const HEADER_OPEN = '[^\\S\\n]{0,8}[#>*=_\\-\\[(<|{ ]{0,8}';
const CLOSE = '[^\\S\\n]{0,4}[\\])>|}*_ ]{0,4}';

/** Where matches of one alternative can begin. */
type Start =
  /**
   * Where one of `words` matches right after a `\b` (one scan over the text finds every such place):
   * every match of the alternative begins with `\b` and a match of one of them. Each begins with a
   * literal lower-case letter, so the scan can group them by it.
   */
  | { words: readonly string[] }
  /** At the start of a line (the pattern begins with `^`, multiline). */
  | { lineStart: true }
  /** At one of these literal texts. */
  | { literals: readonly string[] };

export interface Alternative {
  start: Start;
  /** The pattern as it runs sticky at one of its starts (a look-behind checks what precedes it). */
  source: string;
  /**
   * The same matches as a pattern that reads forwards from its first word: what a run over the whole
   * text uses (a look-behind tried at every place a dense text offers would cost a window each).
   */
  forward: string;
  /** How many characters its look-behind may read, at most (0 without one): what a try can cost. */
  lookBehindChars: number;
  /**
   * With a look-behind: words one of which its match must hold within the `lookBehindChars`
   * characters before the start (a pattern, no `\b`), which a plain search of those characters
   * checks in a fraction of the look-behind's cost (see anchored-scan.ts).
   */
  near?: string;
}

/** What must precede an alternative's start: a look-behind, and the words its match always holds. */
interface LookBehind {
  source: string;
  near: string;
}

export interface FamilyDefinition {
  name: string;
  alternatives: readonly Alternative[];
}

const words = (list: readonly string[]): string => `(?:${list.join('|')})`;

/**
 * Words for a look-behind, grouped by their last letter (`(?:(?:sen|forwar)d|…)`): a look-behind
 * is matched backwards, so the engine tests one letter per group where it would test every word.
 */
function endingWords(list: readonly string[]): string {
  const groups = new Map<string, string[]>();
  for (const word of list) {
    if (!/[a-z]$/.test(word)) throw new Error(`a look-behind word must end with a literal letter: ${word}`);
    const letter = word.charAt(word.length - 1);
    groups.set(letter, [...(groups.get(letter) ?? []), word.slice(0, -1)]);
  }
  return `(?:${[...groups].map(([letter, heads]) => `(?:${heads.join('|')})${letter}`).join('|')})`;
}

/** A bound on what a look-behind reads: its gaps (`{0,n}`) and, generously, 16 characters per word. */
function lookBehindBound(before: string): number {
  const gaps = [...before.matchAll(/\{0,(\d+)\}/g)].reduce((sum, match) => sum + Number(match[1]), 0);
  return gaps + 16 * (before.split('\\b').length - 1);
}

/** A line that starts like a chat transcript's role header: `System:`, `### Assistant:`, `[SYSTEM]`. */
function header(roles: string): Alternative {
  const source = `^${HEADER_OPEN}(?:${roles})${CLOSE}(?::|\\]|>)`;
  return { start: { lineStart: true }, source, forward: source, lookBehindChars: 0 };
}

/**
 * An alternative that begins at a word: `\b`, then one of `starts` followed by `rest` (what the scan
 * looks for), then `tail`. `before`, when given, is what must precede that place (a look-behind): a
 * phrase whose first words are common (`send`, `run`, `ignore`) is anchored at its rarer last word
 * and checked backwards.
 */
function atWord(starts: readonly string[], rest = '', tail = '', lookBehind?: LookBehind): Alternative {
  const head = `${words(starts)}${rest}`;
  const start = { words: starts.map((word) => `${word}${rest}`) };
  if (lookBehind === undefined) return { start, source: `\\b${head}${tail}`, forward: `\\b${head}${tail}`, lookBehindChars: 0 };
  const { source: before, near } = lookBehind;
  // The look-behind after a look-ahead for the head: a sticky run where the head is absent stops before it.
  const source = `\\b(?=${head})(?<=${before})${head}${tail}`;
  return { start, source, forward: `${before}\\b${head}${tail}`, lookBehindChars: lookBehindBound(before), near };
}

/** An alternative that begins at a literal text (written as a pattern in `source`). */
function atLiteral(literal: string, source: string, lookBehind?: LookBehind): Alternative {
  const start = { literals: [literal] };
  if (lookBehind === undefined) return { start, source, forward: source, lookBehindChars: 0 };
  const { source: before, near } = lookBehind;
  const anchored = `(?=${source})(?<=${before})${source}`;
  return { start, source: anchored, forward: `${before}${source}`, lookBehindChars: lookBehindBound(before), near };
}

const SYSTEM_ROLES = 'system|system[\\s_-]?(?:prompt|message|note|override)|developer|admin(?:istrator)?|operator';
const ASSISTANT_ROLES = 'assistant|ai|ai assistant|model|chatbot|bot|claude|gpt|chatgpt|gemini|llama|copilot';
const USER_ROLES = 'human|user';

const IGNORE_VERBS = endingWords(['ignore', 'disregard', 'forget', 'override', 'bypass', 'skip', 'drop', 'abandon']);
const WHOSE = endingWords(['all', 'any', 'every', 'previous', 'prior', 'above', 'earlier', 'preceding', 'your', 'system', 'original', 'initial', 'those', 'these', 'my']);
const RULES = ['instructions?', 'prompts?', 'rules', 'directions', 'directives', 'guidelines', 'guardrails', 'constraints', 'safeguards'];
const SEND_VERBS = endingWords([
  'send', 'forward', 'e-?mail', 'post', 'upload', 'share', 'leak', 'exfiltrate', 'transmit', 'paste', 'reveal', 'print',
  'output', 'dump', 'give',
]);
/** What an exfiltration request asks for (after `\b`; `.env` is anchored on its own). */
const SECRETS = [
  'passwords?', 'passcodes?', 'credentials?', 'api[\\s_-]?keys?', 'access[\\s_-]?tokens?', 'tokens?', 'secrets?',
  'private[\\s_-]?keys?', 'ssh[\\s_-]?keys?', 'env(?:ironment)?[\\s_-]?var(?:iable)?s?', 'cookies?', 'system[\\s_-]?prompt',
  'conversation[\\s_-]?history', 'chat[\\s_-]?history', 'message[\\s_-]?history', 'contacts', 'address[\\s_-]?book',
];
const RUN_VERBS = endingWords(['run', 'execute', 'exec', 'invoke']);
const TOOLS = ['command', 'shell', 'script', 'tool', 'terminal', 'bash', 'powershell', 'code'];

/** `\b`, one of the verbs, `\b`, then up to `n` characters of the line: what precedes the anchored word. */
const afterVerb = (verbs: string, n: number): LookBehind => ({ source: `\\b${verbs}\\b[^\\n]{0,${n}}`, near: verbs });

export const FAMILY_DEFINITIONS: readonly FamilyDefinition[] = [
  {
    name: 'ignore-previous-instructions',
    alternatives: [
      atWord(RULES, '\\b', '', { source: `${afterVerb(IGNORE_VERBS, 20).source}\\b${WHOSE}\\b[^\\n]{0,30}`, near: IGNORE_VERBS }),
    ],
  },
  {
    name: 'fake-system-header',
    alternatives: [
      header(SYSTEM_ROLES),
      atWord(['system'], '[\\s_-]{0,3}(?:override|prompt[\\s_-]{0,3}update)\\b'),
      atLiteral('<', `<\\|?${S0}system${S0}\\|?>`),
    ],
  },
  { name: 'fake-assistant-header', alternatives: [header(ASSISTANT_ROLES)] },
  { name: 'fake-user-header', alternatives: [header(USER_ROLES)] },
  {
    name: 'role-override',
    alternatives: [
      atWord(['you'], `${S}are${S}(?:now|no${S}longer)\\b`),
      atWord(['from'], `${S}now${S}on\\b`, `${gap(40)}\\byou\\b`),
      atWord(['pretend'], `${S}(?:to${S}be|you${S}are|that${S}you)\\b`),
      atWord(['act', 'behave', 'respond'], `${S}as${S}(?:if${S}you|though|an?${S}(?:unrestricted|unfiltered|different|new))\\b`),
      atWord(['new', 'updated', 'real', 'actual', 'true'], `${S}(?:role|persona|identity|instructions|system${S}prompt)\\b`),
      atWord(['developer', 'god', 'dan', 'jailbreak', 'unrestricted'], `${S}mode\\b`),
      atWord(['jailbreak']),
    ],
  },
  {
    name: 'exfiltration-request',
    alternatives: [
      atWord(SECRETS, '', '', afterVerb(SEND_VERBS, 80)),
      atLiteral('.env', '\\.env\\b', afterVerb(SEND_VERBS, 80)),
      atLiteral('![', '!\\[[^\\]\\n]{0,100}\\]\\(https?://[^)\\s]{1,200}[?&]'),
    ],
  },
  {
    name: 'tool-invocation-request',
    alternatives: [
      atWord(TOOLS, '\\b', '', afterVerb(RUN_VERBS, 30)),
      atWord(['rm'], `${S}-rf\\b`),
      atLiteral('|', `\\|${S0}(?:ba|z)?sh\\b`, afterVerb(endingWords(['curl', 'wget']), 200)),
    ],
  },
];

/** Whether a family has an alternative anchored at line starts (its expression needs the `m` flag). */
function usesLineStarts(family: FamilyDefinition): boolean {
  return family.alternatives.some((alternative) => 'lineStart' in alternative.start);
}

/** The family as one expression read forwards, unanchored: the definition (flags `u`, plus `m` for line starts). */
export function familyPattern(family: FamilyDefinition, extraFlags = ''): RegExp {
  const source = family.alternatives.map((alternative) => alternative.forward).join('|');
  return new RegExp(source, `u${usesLineStarts(family) ? 'm' : ''}${extraFlags}`);
}

/** The family as one sticky expression to try at one of its starts (see anchored-scan.ts). */
export function anchoredFamilyPattern(family: FamilyDefinition): RegExp {
  const source = family.alternatives.map((alternative) => alternative.source).join('|');
  return new RegExp(source, `u${usesLineStarts(family) ? 'm' : ''}y`);
}

/** The start of every line-start alternative, roles of all families together: a line that lacks it starts no header. */
export const HEADER_START_SOURCE = `^${HEADER_OPEN}(?:${[SYSTEM_ROLES, ASSISTANT_ROLES, USER_ROLES].join('|')})`;
