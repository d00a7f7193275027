/**
 * Hookgate configurations for the benchmark, written as JSON5 files into a temp directory: each
 * has its own SQLite file, logs at `warn` (per-request info lines would otherwise dominate), the
 * chosen storage.synchronous, a 1 h heartbeat, maxConcurrent 1 and a 1 MiB body limit so the
 * 256 KB row fits.
 *
 * Agent runs: except in `core-echo`, the model is a `command` provider running `sleep 3600`, so the
 * first admitted run occupies the only run slot for the whole measurement and the runtime does no
 * further work: the rows measure admission alone. `core-echo` runs the in-process echo provider,
 * i.e. admission while the runtime drains the backlog it creates.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const HOOK_TOKEN = 'bench-hook-token-0123456789abcdef';
const TRANSFORM_SOURCE = fileURLToPath(new URL('../../transforms/github-issue.js', import.meta.url));

export type ConfigKind =
  /** wake, agent and one template mapping (no transform: the idle-RSS target applies here). */
  | 'core'
  /** core, but agent runs execute on the in-process echo provider while admission goes on. */
  | 'core-echo'
  /** 1,000 template mappings with distinct match.path; the benchmark hits the last. */
  | 'mappings-1000'
  /** one transform mapping (transforms/github-issue.js). */
  | 'transform-1'
  /** 50 copies of that module, one mapping each; the benchmark hits the last. */
  | 'transform-50'
  /** --soak: echo runs, a 30 s heartbeat, one template mapping and one transform mapping. */
  | 'soak';

export type Synchronous = 'full' | 'normal';

// The free-text field goes into the wake text, so a bigger body also means more text to envelope.
export const TEMPLATE = 'Sensor {{sensor}} reports {{value}}{{unit}} at {{default time now}}: {{note}}';

/** The hook path each kind's mapping rows POST to. */
export function mappedPath(kind: ConfigKind, variant: 'plain' | 'filter' | 'debounce' | 'ratelimit' = 'plain'): string {
  if (variant !== 'plain') return `/hooks/sensor-${variant}`;
  if (kind === 'mappings-1000') return '/hooks/sensor-999';
  if (kind === 'transform-50') return '/hooks/github-49';
  if (kind === 'transform-1' || kind === 'soak') return '/hooks/github-0';
  return '/hooks/sensor-0';
}

export function writeConfig(root: string, kind: ConfigKind, synchronous: Synchronous, label: string): string {
  const dir = join(root, `${kind}-${synchronous}-${label}`);
  mkdirSync(dir, { recursive: true });
  const hooks: Record<string, unknown> = { enabled: true, token: HOOK_TOKEN, path: '/hooks', maxBodyBytes: 1024 * 1024 };
  if (kind === 'core' || kind === 'core-echo' || kind === 'mappings-1000') {
    hooks['mappings'] = Array.from({ length: kind === 'mappings-1000' ? 1000 : 1 }, (_, i) => templateMapping(i));
    if (kind === 'core') (hooks['mappings'] as unknown[]).push(...admissionMappings());
  } else {
    const count = kind === 'transform-50' ? 50 : 1;
    mkdirSync(join(dir, 'transforms'));
    for (let i = 0; i < count; i++) copyFileSync(TRANSFORM_SOURCE, join(dir, 'transforms', `github-${i}.js`));
    hooks['transformsDir'] = 'transforms';
    hooks['mappings'] = Array.from({ length: count }, (_, i) => ({
      id: `github-${i}`,
      match: { path: `github-${i}` },
      action: 'agent',
      wakeMode: 'next-heartbeat',
      deliver: false,
      transform: { module: `github-${i}.js` },
    }));
    if (kind === 'soak') (hooks['mappings'] as unknown[]).push(templateMapping(0));
  }
  const echo = kind === 'core-echo' || kind === 'soak';
  const config = {
    gateway: { bind: '127.0.0.1', port: 0, shutdownGraceMs: 1000 },
    hooks,
    agents: {
      defaults: {
        model: echo ? 'echo/echo' : 'parked/sleep',
        maxConcurrent: kind === 'soak' ? 4 : 1,
        // Admission rows queue far more runs than the default back-pressure allows; they measure admission.
        maxQueued: 1_000_000_000,
        heartbeat: { every: kind === 'soak' ? '30s' : '1h' },
        delivery: { channel: 'log' },
      },
    },
    models: { providers: { parked: { api: 'command', command: ['sleep', '3600'] } } },
    storage: { path: 'data/hookgate.sqlite', synchronous },
    logging: { level: 'warn' },
  };
  const path = join(dir, 'hookgate.json5');
  writeFileSync(path, JSON.stringify(config, null, 2));
  return path;
}

/**
 * The template mapping with a 5-condition filter that every bench body passes (all of it is
 * evaluated), and with debounce (every request joins the one group of its key: a join per request).
 */
function admissionMappings(): Array<Record<string, unknown>> {
  const filter = {
    all: [
      { field: 'payload.sensor', equals: 'greenhouse' },
      { field: 'payload.value', gte: -50 },
      { not: { field: 'payload.unit', in: ['K', '°R'] } },
      { field: 'payload.note', regex: '^[a-z ]*' },
      { any: [{ field: 'headers.content-type', startsWith: 'application/json' }, { field: 'query.force', exists: true }] },
    ],
  };
  return [
    { ...templateMapping(0), id: 'sensor-filter', match: { path: 'sensor-filter' }, filter },
    { ...templateMapping(0), id: 'sensor-debounce', match: { path: 'sensor-debounce' }, debounce: { key: '{{sensor}}', windowSeconds: 3600 } },
    // Keyed per sensor like a real limit, and high enough that every request is admitted: the cost of the check.
    { ...templateMapping(0), id: 'sensor-ratelimit', match: { path: 'sensor-ratelimit' }, rateLimit: { limit: 1_000_000_000, periodSeconds: 1, key: '{{sensor}}' } },
  ];
}

function templateMapping(index: number): Record<string, unknown> {
  return {
    id: `sensor-${index}`,
    match: { path: `sensor-${index}` },
    action: 'wake',
    wakeMode: 'next-heartbeat',
    textTemplate: TEMPLATE,
  };
}
