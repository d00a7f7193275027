import type { MappingSource } from '../mapping/mapping-records.js';
import { TEMPLATED_FIELDS, FIELD_POINTERS } from '../mapping/compiled.js';
import type { RequestLog } from './request-log.js';

export interface MappingView {
  id: string;
  source: 'config' | 'preset';
  label: string;
  match: { path?: string; source?: string };
  action: 'wake' | 'agent' | 'notify';
  templates: Record<string, string>;
  transform?: { module: string; export?: string };
  /** The mapping's signature scheme, when it has one (the mapping schema may carry `signature`). */
  signature?: string;
  hits: number;
  errors: number;
}

/**
 * What the Mappings page shows of each mapping: its record (templates are config, not secrets)
 * and the recent counts from the request log. Accepted requests count for the mapping that
 * produced them; refused ones count for a mapping whose match.path is the hook they were sent to.
 */
export function mappingViews(sources: readonly MappingSource[], counts: ReturnType<RequestLog['counts']>): MappingView[] {
  return sources.map((source) => {
    const config = source.config as Record<string, unknown> & MappingSource['config'];
    const path = config.match?.path?.replace(/^\/+|\/+$/g, '');
    const hits = counts.byMapping.get(source.id)?.hits ?? 0;
    const errors = path === undefined ? 0 : (counts.byHook.get(path)?.errors ?? 0);
    const signature = signatureOf(config['signature']);
    return {
      id: source.id,
      source: source.label.startsWith('preset') ? 'preset' : 'config',
      label: source.label,
      match: { ...(path === undefined ? {} : { path }), ...(config.match?.source === undefined ? {} : { source: config.match.source }) },
      action: config.action ?? 'agent',
      templates: templatesOf(config),
      ...(config.transform === undefined ? {} : { transform: { module: config.transform.module, ...(config.transform.export === undefined ? {} : { export: config.transform.export }) } }),
      ...(signature === undefined ? {} : { signature }),
      hits,
      errors,
    };
  });
}

function templatesOf(config: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const field of TEMPLATED_FIELDS) {
    const pointer = FIELD_POINTERS[field].split('/');
    let value: unknown = config;
    for (const key of pointer) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
    if (typeof value === 'string') out[FIELD_POINTERS[field]] = value;
  }
  return out;
}

function signatureOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && typeof (value as { scheme?: unknown }).scheme === 'string') return (value as { scheme: string }).scheme;
  return undefined;
}
