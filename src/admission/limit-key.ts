import { HookError } from '../errors.js';
import type { CompiledTemplate, SafeRecord } from '../compiled-template.js';

/** A rendered key longer than this is cut: keys name buckets and rows, not payloads. */
export const MAX_KEY_CHARS = 200;

/** A limit's key for one delivery (empty: the mapping's one shared bucket), trimmed and bounded. */
export function renderLimitKey(template: CompiledTemplate | undefined, context: SafeRecord, mappingId: string, field: string): string {
  if (template === undefined) return '';
  let key: string;
  try {
    key = template(context).trim();
  } catch (error) {
    throw new HookError('MAPPING_INVALID', `hook mapping "${mappingId}" could not render ${field}`, { cause: error });
  }
  return key.length > MAX_KEY_CHARS ? key.slice(0, MAX_KEY_CHARS) : key;
}
