import { foldForMatching } from './fold.js';
import { hasControlToken, hasMarkerForm } from './sanitize.js';

/*
 * Heuristics for logging and metrics only: they never block or alter a request (the envelope is the
 * defence; these tell an operator that someone is trying). They run on the folded view, so full-width
 * letters, look-alikes and zero-width characters do not hide a phrase. Every gap is bounded and every
 * pattern starts with a literal word or a line start, so matching stays linear on large payloads.
 */

/** Horizontal white space within one line: at least one character (`S`), or possibly none (`S0`). */
const S = '[^\\S\\n]+';
const S0 = '[^\\S\\n]*';
/** Up to `n` characters of the same line. */
const gap = (n: number): string => `[^\\n]{0,${n}}?`;
/** Optional markup a fake header may start or end with: `### `, `> `, `**`, `[`, `<`, `<|`, `(`. */
const OPEN = '[^\\S\\n]{0,8}[#>*=_\\-\\[(<|{ ]{0,8}';
const CLOSE = '[^\\S\\n]{0,4}[\\])>|}*_ ]{0,4}';

/** A line that starts like a chat transcript's role header: `System:`, `### Assistant:`, `[SYSTEM]`. */
function header(roles: string): string {
  return `^${OPEN}(?:${roles})${CLOSE}(?::|\\]|>)`;
}

const FAMILIES: ReadonlyArray<readonly [string, RegExp]> = [
  [
    'ignore-previous-instructions',
    new RegExp(
      `\\b(?:ignore|disregard|forget|override|bypass|skip|drop|abandon)\\b${gap(20)}` +
        `\\b(?:all|any|every|previous|prior|above|earlier|preceding|your|system|original|initial|those|these|my)\\b${gap(30)}` +
        `\\b(?:instructions?|prompts?|rules|directions|directives|guidelines|guardrails|constraints|safeguards)\\b`,
      'u',
    ),
  ],
  [
    'fake-system-header',
    new RegExp(
      `${header('system|system[\\s_-]?(?:prompt|message|note|override)|developer|admin(?:istrator)?|operator')}` +
        `|\\bsystem[\\s_-]{0,3}(?:override|prompt[\\s_-]{0,3}update)\\b|<\\|?${S0}system${S0}\\|?>`,
      'mu',
    ),
  ],
  ['fake-assistant-header', new RegExp(header('assistant|ai|ai assistant|model|chatbot|bot|claude|gpt|chatgpt|gemini|llama|copilot'), 'mu')],
  ['fake-user-header', new RegExp(header('human|user'), 'mu')],
  [
    'role-override',
    new RegExp(
      [
        `\\byou${S}are${S}(?:now|no${S}longer)\\b`,
        `\\bfrom${S}now${S}on\\b${gap(40)}\\byou\\b`,
        `\\bpretend${S}(?:to${S}be|you${S}are|that${S}you)\\b`,
        `\\b(?:act|behave|respond)${S}as${S}(?:if${S}you|though|an?${S}(?:unrestricted|unfiltered|different|new))\\b`,
        `\\b(?:new|updated|real|actual|true)${S}(?:role|persona|identity|instructions|system${S}prompt)\\b`,
        `\\b(?:developer|god|dan|jailbreak|unrestricted)${S}mode\\b`,
        `\\bjailbreak`,
      ].join('|'),
      'u',
    ),
  ],
  [
    'exfiltration-request',
    new RegExp(
      [
        `\\b(?:send|forward|e-?mail|post|upload|share|leak|exfiltrate|transmit|paste|reveal|print|output|dump|give)\\b${gap(80)}` +
          `(?:\\.env\\b|\\b(?:passwords?|passcodes?|credentials?|api[\\s_-]?keys?|access[\\s_-]?tokens?|tokens?|secrets?|` +
          `private[\\s_-]?keys?|ssh[\\s_-]?keys?|env(?:ironment)?[\\s_-]?var(?:iable)?s?|cookies?|system[\\s_-]?prompt|` +
          `(?:conversation|chat|message)[\\s_-]?history|contacts|address[\\s_-]?book))`,
        `!\\[[^\\]\\n]{0,100}\\]\\(https?://[^)\\s]{1,200}[?&]`,
      ].join('|'),
      'u',
    ),
  ],
  [
    'tool-invocation-request',
    new RegExp(
      [
        `\\b(?:run|execute|exec|invoke)\\b${gap(30)}\\b(?:command|shell|script|tool|terminal|bash|powershell|code)\\b`,
        `\\brm${S}-rf\\b`,
        `\\b(?:curl|wget)\\b${gap(200)}\\|${S0}(?:ba|z)?sh\\b`,
      ].join('|'),
      'u',
    ),
  ],
];

/** Tag characters (ASCII smuggling) and bidi overrides: invisible text a model still reads. */
const INVISIBLE_TEXT = /[\u{e0000}-\u{e007f}\u202a-\u202e\u2066-\u2069]/u;

/** Whether the sanitiser's patterns occur in the text, when a caller already knows. */
export interface EnvelopeFindings {
  marker: boolean;
  controlToken: boolean;
}

/**
 * {@link detectSuspiciousPatterns} for a text whose folded view (and, optionally, whether it holds a
 * marker form or a control token) the caller already has, so that one fold serves the envelope and
 * the detector.
 */
export function detectInFolded(text: string, foldedText: string, known?: EnvelopeFindings): string[] {
  const found = FAMILIES.filter(([, pattern]) => pattern.test(foldedText)).map(([name]) => name);
  if (known?.marker ?? hasMarkerForm(foldedText)) found.push('marker-imitation');
  if (known?.controlToken ?? hasControlToken(foldedText)) found.push('control-token');
  if (INVISIBLE_TEXT.test(text)) found.push('invisible-text');
  return found;
}

/**
 * Names of the suspicious pattern families found in `text`, in a fixed order, each at most once.
 * Callers log the count and the names with the hook name, never the text.
 */
export function detectSuspiciousPatterns(text: string): string[] {
  return detectInFolded(text, foldForMatching(text));
}

/** Every family name {@link detectSuspiciousPatterns} can return. */
export const SUSPICIOUS_FAMILIES: readonly string[] = [
  ...FAMILIES.map(([name]) => name),
  'marker-imitation',
  'control-token',
  'invisible-text',
];
