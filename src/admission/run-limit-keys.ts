import type { AdmittedAction } from '../actions/types.js';
import type { CompiledTemplate, SafeRecord } from '../compiled-template.js';
import { renderLimitKey } from './limit-key.js';

/** A mapping's throttle and concurrency key templates (compiled at load); the runtime's gates read the rendered keys from the run. */
export interface CompiledRunLimitKeys {
  throttle: CompiledTemplate | undefined;
  concurrency: CompiledTemplate | undefined;
}

/** The agent action with its run-limit keys rendered from this delivery (a wake is returned as it is). */
export function withRunLimitKeys(action: AdmittedAction, keys: CompiledRunLimitKeys | undefined, context: SafeRecord, mappingId: string): AdmittedAction {
  if (keys === undefined || action.kind !== 'agent') return action;
  const limitKeys: { throttle?: string; concurrency?: string } = {};
  if (keys.throttle !== undefined) limitKeys.throttle = renderLimitKey(keys.throttle, context, mappingId, 'throttle.key');
  if (keys.concurrency !== undefined) limitKeys.concurrency = renderLimitKey(keys.concurrency, context, mappingId, 'concurrency.key');
  return Object.keys(limitKeys).length === 0 ? action : { ...action, limitKeys };
}
