import type { JsonObjectNode } from '@croct/json5-parser';
import { presetNames } from '../../../config/preset-schema.js';

/** What setup writes under hooks.gmail; other keys there (model, thinking, …) stay as they are. */
export type GmailSettings = Record<string, string | number | boolean | Record<string, string> | undefined>;

/**
 * Sets hooks.gmail.<key> for each setting and adds "gmail" to hooks.presets, editing the JSON5
 * text in place (a concrete syntax tree): comments, key order, quoting and indentation survive.
 * A setting given as undefined is removed (e.g. `push` when switching to pull).
 */
export async function editGmailConfig(text: string, settings: GmailSettings): Promise<string> {
  const { JsonArrayNode, JsonObjectNode: ObjectNode, JsonParser } = await import('@croct/json5-parser'); // only setup needs it
  const root = JsonParser.parse(text.trim() === '' ? '{}' : text, ObjectNode);
  const objectAt = (parent: JsonObjectNode, key: string): JsonObjectNode => {
    if (!parent.has(key)) parent.set(key, {});
    return parent.get(key, ObjectNode);
  };
  const hooks = objectAt(root, 'hooks');
  const gmail = objectAt(hooks, 'gmail');
  for (const [key, value] of Object.entries(settings)) {
    if (value === undefined) {
      if (gmail.has(key)) gmail.delete(key);
    } else if (!gmail.has(key) || JSON.stringify(gmail.get(key).toJSON()) !== JSON.stringify(value)) {
      gmail.set(key, value);
    }
  }
  if (!hooks.has('presets')) hooks.set('presets', ['gmail']);
  const presets = hooks.get('presets', JsonArrayNode);
  if (!presetNames(presets.toJSON() as Array<string | { name: string }>).includes('gmail')) presets.push('gmail');
  const out = root.toString();
  return out.endsWith('\n') || !text.endsWith('\n') ? out : `${out}\n`;
}
