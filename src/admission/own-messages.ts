import { TemplateSyntaxError, type CompiledTemplate, type SafeRecord, type TemplateCompiler } from '../compiled-template.js';
import type { MappingConfig } from '../config/mapping-schema.js';
import { contentMark, idMark } from '../own-messages.js';
import type { OwnMessageStore } from '../store/port.js';

/** A mapping's `ownMessages`, compiled at load: how a delivery names a message the service may have posted. */
export interface CompiledOwnMessages {
  /** The channel the service posts such messages with. */
  readonly channel: string;
  readonly id: CompiledTemplate;
  /** Both or neither: the recipient and text, matched against what was kept before posting. */
  readonly content: { to: CompiledTemplate; text: CompiledTemplate } | undefined;
}

/** Where admission asks whether a delivery is one of the service's own messages. */
export interface OwnMessageLookup {
  store: Pick<OwnMessageStore, 'includesAny'>;
  now: () => number;
}

type Problem = (field: string, message: string) => void;

/** Compiles `ownMessages`; its `channel` comes checked and by its canonical name from the caller, which knows the channels (undefined: not valid). */
export function compileOwnMessages(config: MappingConfig, templates: TemplateCompiler, problem: Problem, channel: string | undefined): CompiledOwnMessages | undefined {
  const own = config.ownMessages;
  if (own === undefined) return undefined;
  const compile = (field: 'id' | 'to' | 'text', source: string): CompiledTemplate | undefined => {
    try {
      return templates.compile(source);
    } catch (error) {
      if (!(error instanceof TemplateSyntaxError)) throw error;
      problem(`ownMessages/${field}`, `ownMessages.${field} does not compile: ${error.message}`);
      return undefined;
    }
  };
  if ((own.to === undefined) !== (own.text === undefined)) problem(own.to === undefined ? 'ownMessages/to' : 'ownMessages/text', 'ownMessages.to and ownMessages.text go together (a message is recognised by its recipient and text)');
  const id = compile('id', own.id);
  const to = own.to === undefined ? undefined : compile('to', own.to);
  const text = own.text === undefined ? undefined : compile('text', own.text);
  if (id === undefined || channel === undefined) return undefined;
  return { channel, id, content: to === undefined || text === undefined ? undefined : { to, text } };
}

/** The marks this delivery would have if the service posted it (src/own-messages.ts): its id, and its recipient and text. */
export function ownMarksOf(own: CompiledOwnMessages, context: SafeRecord): string[] {
  const marks: string[] = [];
  const id = own.id(context).trim();
  if (id !== '') marks.push(idMark(id).mark);
  if (own.content !== undefined) {
    const to = own.content.to(context).trim();
    const text = own.content.text(context);
    if (to !== '' && text.trim() !== '') marks.push(contentMark(to, text).mark);
  }
  return marks;
}

/** Whether the delivery is a message the service posted on the mapping's channel (a store read; false when it names none). */
export async function isOwnMessage(own: CompiledOwnMessages, context: SafeRecord, lookup: OwnMessageLookup): Promise<boolean> {
  const marks = ownMarksOf(own, context);
  return marks.length > 0 && lookup.store.includesAny(own.channel, marks, lookup.now());
}
