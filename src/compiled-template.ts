/**
 * What a compiled template is, for every part that renders one: the mapping engine compiles them
 * (src/mapping/template.ts); admission renders its keys with them (src/admission/). It sits below
 * both, so neither imports the other for it.
 */

/**
 * The data templates see. Everything is copied into null-prototype objects with the keys
 * `__proto__`, `constructor` and `prototype` dropped, so no template path can reach an object's
 * prototype or a constructor, even when a payload carries those names as own keys. Objects and
 * arrays render as JSON (not `[object Object]`) through a non-enumerable Symbol.toPrimitive, which
 * no template path can name. Built by src/mapping/context.ts.
 */
export type SafeRecord = { [key: string]: unknown };

/** A compiled template: context in, text out. Throws only on a helper misuse the load check could not see. */
export type CompiledTemplate = (context: SafeRecord) => string;

export interface TemplateCompiler {
  /** Compiles and checks one template; throws TemplateSyntaxError with a readable reason. */
  compile(source: string): CompiledTemplate;
}

export class TemplateSyntaxError extends Error {
  override readonly name = 'TemplateSyntaxError';
}
