import type { FieldSource } from './field-path.js';
import { evaluateFilter, traceFilter, type ConditionTrace } from './filter-eval.js';
import type { CompiledAdmission } from './compile-admission.js';

export type AdmissionVerdict =
  | { pass: true; event: string | undefined }
  | { pass: false; reason: 'event'; event: string | undefined }
  | { pass: false; reason: 'filter'; event: string | undefined };

export interface AdmissionRequest {
  payload: Record<string, unknown>;
  /** Lower-cased names, credentials removed. */
  headers: Readonly<Record<string, string>>;
  query: Readonly<Record<string, string>>;
}

/** Whether a matched mapping acts on this delivery: `events`, then `filter`. */
export function admit(admission: CompiledAdmission | undefined, request: AdmissionRequest, traces?: ConditionTrace[]): AdmissionVerdict {
  if (admission === undefined) return { pass: true, event: undefined };
  const event = admission.eventOf?.(request.headers, request.payload);
  if (admission.events !== undefined && !admission.events(event)) return { pass: false, reason: 'event', event };
  if (admission.filter !== undefined) {
    const source: FieldSource = { payload: request.payload, headers: request.headers, query: request.query, event };
    const passed = traces === undefined ? evaluateFilter(admission.filter, source) : traceFilter(admission.filter, source, traces);
    if (!passed) return { pass: false, reason: 'filter', event };
  }
  return { pass: true, event };
}
