import type { WakeMode } from '../actions/types.js';
import type { CompiledSignature } from '../auth/signatures/index.js';
import type { UntrustedSource } from '../envelope/envelope.js';
import type { CompiledTemplate } from './template.js';
import type { TransformHandle } from './transform-port.js';
import type { CompiledAdmission } from '../admission/compile-admission.js';
import type { FieldPath } from './required-fields.js';

export type MappingAction = 'wake' | 'agent' | 'notify';
import type { CompiledRateLimit } from '../admission/rate-limit.js';
import type { CompiledRunLimitKeys } from '../admission/run-limit-keys.js';
import type { MappingRunLimitsView } from '../admission/limit-views.js';
import type { CompiledOwnMessages } from '../admission/own-messages.js';

/** Fields whose values are templates, rendered per request (per item with forEach). */
export const TEMPLATED_FIELDS = ['text', 'message', 'name', 'sessionKey', 'to', 'model', 'thinking', 'from', 'subject'] as const;
export type TemplatedField = (typeof TEMPLATED_FIELDS)[number];

/** A mapping record after checking and compilation: what the engine runs per request. */
export interface CompiledMapping {
  readonly id: string;
  readonly label: string;
  /** `match.path` with slashes trimmed; undefined matches every name. */
  readonly path: string | undefined;
  readonly source: string | undefined;
  readonly action: MappingAction;
  readonly wakeMode: WakeMode | undefined;
  readonly deliver: boolean | undefined;
  readonly channel: string | undefined;
  /** `noRecipient: "skip"`: an agent reply whose `to` is unset or rendered empty is not delivered. */
  readonly skipWithoutRecipient?: boolean;
  readonly timeoutSeconds: number | undefined;
  readonly templates: Readonly<Partial<Record<TemplatedField, CompiledTemplate>>>;
  /** The mapping opted out of the envelope (allowUnsafeExternalContent). */
  readonly trusted: boolean;
  readonly envelopeSource: UntrustedSource;
  readonly forEach: string | undefined;
  readonly transform: TransformHandle | undefined;
  /** The sender signs its requests (`signature`): verified by the HTTP layer before the mapping runs. */
  readonly signature: CompiledSignature | undefined;
  /** `allowSecretHeaders`, lower-cased: the withheld headers its templates and transform may see. */
  readonly allowSecretHeaders?: ReadonlySet<string> | undefined;
  /** `allowSecretQuery`, as written: the withheld query parameters its templates and transform may see. */
  readonly allowSecretQuery?: ReadonlySet<string> | undefined;
  /** sessionMode "persistent": the session of runs that render no key. */
  readonly persistentSessionKey: string | undefined;
  /** `events`, `filter` and `debounce` (src/admission/); undefined when the mapping has none. */
  readonly admission?: CompiledAdmission | undefined;
  /** `ownMessages`: how a delivery names a message the service posted (skipped as "self"). */
  readonly ownMessages?: CompiledOwnMessages | undefined;
  /** `required`: payload fields checked before the mapping runs. */
  readonly required?: readonly FieldPath[];
  /** What each template with fields renders when none of them is present (its literal text), for `hookgate try`. */
  readonly blankRenders?: Readonly<Partial<Record<TemplatedField, string>>>;
  /** `rateLimit`, checked at admission before templates and transforms (src/admission/rate-limit.ts). */
  readonly rateLimit?: CompiledRateLimit | undefined;
  /** Keys of `throttle` and `concurrency`, rendered onto each agent action for the runtime's gates. */
  readonly runLimitKeys?: CompiledRunLimitKeys | undefined;
  /** The mapping's throttle, concurrency and budget as configured (described by `hookgate try`; the runtime's gates take them from the engine in force, MappingEngine.runLimits). */
  readonly runLimits?: MappingRunLimitsView | undefined;
  /** `forward`, `callback` and `allowRequestCallback` (docs/forward.md). */
  readonly handoff?: MappingHandoff | undefined;
}

export interface MappingHandoff {
  forward?: string | undefined;
  callback?: string | undefined;
  /** Targets a request's `callback` query parameter may name. */
  requestCallbacks?: readonly string[] | undefined;
}

/** Where each templated field lives in the mapping record, for error paths. */
export const FIELD_POINTERS: Readonly<Record<TemplatedField, string>> = {
  text: 'textTemplate',
  message: 'messageTemplate',
  name: 'name',
  sessionKey: 'sessionKey',
  to: 'to',
  model: 'model',
  thinking: 'thinking',
  from: 'envelope/from',
  subject: 'envelope/subject',
};
