/**
 * The rows of the benchmark: which Hookgate configuration, endpoint and body each measures. Every
 * row is driven against the two reference servers too (same body, same connections), so each
 * Hookgate number has both limits beside it from the same minute of the same machine.
 */
import { HOOK_TOKEN, mappedPath, type ConfigKind } from './configs.js';
import { payload, type PayloadKind } from './payloads.js';

export interface Row {
  id: string;
  label: string;
  config: ConfigKind;
  path: string;
  body: string;
  headers: Record<string, string>;
  /** Drive at half of this row's measured maximum (same round) instead of flat out. */
  halfRateOf?: string;
}

const KB = 1024;

function row(id: string, label: string, config: ConfigKind, path: string, kind: PayloadKind, bytes: number, extra: Partial<Row> = {}): Row {
  const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${HOOK_TOKEN}` };
  if (kind === 'github') headers['x-github-event'] = 'issues';
  return { id, label, config, path, body: payload(kind, bytes), headers, ...extra };
}

export function allRows(): Row[] {
  return [
    row('wake-1k', '/hooks/wake, 1 KB', 'core', '/hooks/wake', 'wake', 1 * KB),
    row('wake-half', '/hooks/wake, 1 KB, at half the max rate', 'core', '/hooks/wake', 'wake', 1 * KB, { halfRateOf: 'wake-1k' }),
    row('wake-16k', '/hooks/wake, 16 KB', 'core', '/hooks/wake', 'wake', 16 * KB),
    row('wake-64k', '/hooks/wake, 64 KB', 'core', '/hooks/wake', 'wake', 64 * KB),
    row('wake-256k', '/hooks/wake, 256 KB', 'core', '/hooks/wake', 'wake', 256 * KB),
    row('template-1k', 'template mapping (1 mapping), 1 KB', 'core', mappedPath('core'), 'template', 1 * KB),
    row('template-filter-1k', 'template mapping with a 5-condition filter, 1 KB', 'core', mappedPath('core', 'filter'), 'template', 1 * KB),
    row('template-debounce-1k', 'template mapping with debounce (every request joins one group), 1 KB', 'core', mappedPath('core', 'debounce'), 'template', 1 * KB),
    row('template-1k-ratelimit', 'template mapping with a keyed rateLimit (never refusing), 1 KB', 'core', mappedPath('core', 'ratelimit'), 'template', 1 * KB),
    row('template-64k', 'template mapping, 64 KB', 'core', mappedPath('core'), 'template', 64 * KB),
    row('agent-1k', '/hooks/agent (admission, 202), 1 KB', 'core', '/hooks/agent', 'agent', 1 * KB),
    row('agent-64k', '/hooks/agent (admission, 202), 64 KB', 'core', '/hooks/agent', 'agent', 64 * KB),
    row('agent-1k-echo', '/hooks/agent, 1 KB, echo runs executing meanwhile', 'core-echo', '/hooks/agent', 'agent', 1 * KB),
    row('mappings-1000', '1,000 template mappings, hit the last, 1 KB', 'mappings-1000', mappedPath('mappings-1000'), 'template', 1 * KB),
    row('transform-1k', 'transform mapping (github-issue.js), 1 KB', 'transform-1', mappedPath('transform-1'), 'github', 1 * KB),
    row('transform-64k', 'transform mapping (github-issue.js), 64 KB', 'transform-1', mappedPath('transform-1'), 'github', 64 * KB),
    row('transform-50', '50 transform modules, hit the last, 1 KB', 'transform-50', mappedPath('transform-50'), 'github', 1 * KB),
  ];
}

/** The flow-control rows whose targets compare them with template-1k (bench/lib/alternation.ts). */
export const FLOW_CONTROL_ROWS = ['template-filter-1k', 'template-debounce-1k', 'template-1k-ratelimit'] as const;

/** --quick: the 1 KB rows of the ratio and latency targets (the memory and start-up targets come with them). */
const QUICK = new Set(['wake-1k', 'wake-half', 'template-1k', 'template-filter-1k', 'template-debounce-1k', 'agent-1k', 'transform-1k']);

export function planRows(quick: boolean): Row[] {
  return allRows().filter((r) => !quick || QUICK.has(r.id));
}

/** Rows measured again with storage.synchronous = normal (both references switch too). */
export const NORMAL_ROWS = new Set(['wake-1k', 'wake-half', 'template-1k', 'agent-1k']);
