/*
 * The suspicious pattern families exactly as they were written before suspicious-families.ts split
 * them into anchored alternatives: unanchored expressions, one per family, run over the whole folded
 * view. Kept frozen as the oracle the anchored scan is compared with (test/envelope/anchored-scan.test.ts).
 */

const S = '[^\\S\\n]+';
const S0 = '[^\\S\\n]*';
const gap = (n: number): string => `[^\\n]{0,${n}}?`;
const OPEN = '[^\\S\\n]{0,8}[#>*=_\\-\\[(<|{ ]{0,8}';
const CLOSE = '[^\\S\\n]{0,4}[\\])>|}*_ ]{0,4}';

function header(roles: string): string {
  return `^${OPEN}(?:${roles})${CLOSE}(?::|\\]|>)`;
}

export const REFERENCE_FAMILIES: ReadonlyArray<readonly [string, RegExp]> = [
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
