import Type from 'typebox';
import { SIGNATURE_SCHEMES } from '../auth/signatures/registry.js';

/** Schemes whose deliveries never say their event type (each scheme file declares it by omitting `eventType`). */
const WITHOUT_EVENT_TYPE = SIGNATURE_SCHEMES.filter((scheme) => scheme.eventType === undefined).map((scheme) => `\`${scheme.name}\``);

/** A mapping's `events` key: the delivery event types it acts on (docs/flow-control.md). */
export const EventsSchema = Type.Array(Type.String({ minLength: 1 }), {
  minItems: 1,
  description:
    'Event types this mapping acts on; others are passed over (the next mapping is tried, else `200 {"ok":true,"skipped":"event"}`). The type comes from the signature scheme (where each sender puts it: docs/signatures.md, column "event type") or from `eventField`: ' +
    `set it for a mapping without a signature or with ${WITHOUT_EVENT_TYPE.join(', ')} (no event type of ${WITHOUT_EVENT_TYPE.length === 1 ? 'its' : 'their'} own). ` +
    '`issues` matches every issue action, `issues.opened` only that one, `invoice.*` the rest of a dotted name.',
});

export const EventFieldSchema = Type.String({
  minLength: 1,
  pattern: '^(payload|headers)\\.',
  description: 'Where the event type is when the signature scheme does not say: `payload.<path>` (e.g. `payload.type`) or `headers.<lower-case name>`. Wins over the scheme.',
});

/**
 * A filter tree is recursive and its conditions take one operator each; the mapping compiler
 * (src/admission/filter-compile.ts) checks the whole tree and names the path of each problem.
 */
export const FilterSchema = Type.Unknown({
  description:
    'Declarative payload filter: a tree of `{all:[…]}`, `{any:[…]}`, `{not:{…}}` over conditions `{ field, <op>: value }`. Fields: `payload.<path>`, `headers.<name>`, `query.<name>`, `event`. Operators: equals, notEquals, in, notIn, contains, startsWith, endsWith, regex (RE2: linear time), exists, gt, gte, lt, lte. No match: the mapping is passed over (`skipped: "filter"`).',
});

export const DebounceSchema = Type.Object(
  {
    key: Type.String({ description: 'Template: deliveries rendering the same key (per mapping) merge into one action. Empty once rendered: that delivery acts at once.' }),
    windowSeconds: Type.Number({ exclusiveMinimum: 0, maximum: 86400, description: 'The group fires after this many seconds without a new delivery for its key.' }),
    maxWaitSeconds: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, maximum: 604800, description: 'The group fires at the latest this long after its first delivery. Default: 10 × windowSeconds.' }),
    ),
    keep: Type.Optional(
      Type.Union([Type.Literal('last'), Type.Literal('all')], {
        description: '`last` (default): the newest delivery\'s action, with a line saying how many were merged. `all`: every delivery\'s message, oldest first.',
      }),
    ),
    maxChars: Type.Optional(Type.Integer({ minimum: 100, maximum: 1_000_000, description: '`keep: "all"`: bound of the merged message. Default 20000.' })),
    maxDeliveries: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100_000,
        description: '`keep: "all"`: the most deliveries a group stores. The delivery past it closes the group (it fires at once) and opens a new one. Default 1000.',
      }),
    ),
    maxBytes: Type.Optional(
      Type.Integer({
        minimum: 1024,
        maximum: 268_435_456,
        description: '`keep: "all"`: the most bytes of stored actions (rendered messages and their fields, as JSON) a group holds. The delivery that would pass it closes the group (it fires at once) and opens a new one. Default 16777216 (16 MiB).',
      }),
    ),
  },
  { additionalProperties: false, description: 'Merge deliveries with the same key into one action, durably (the pending group survives restarts). docs/flow-control.md.' },
);
