import { networkInterfaces } from 'node:os';
import type { ConfigIssue } from '../errors.js';
import { PROVIDERS } from '../providers/index.js';
import { OPENCLAW_IGNORED_KEYS } from './openclaw-keys.js';

type Json = Record<string, unknown>;
type Interfaces = typeof networkInterfaces;

export interface FoldResult {
  /** The config with OpenClaw-only keys removed and OpenClaw bind modes turned into addresses. */
  value: Json;
  /** One line per key accepted but not used, for `hookgate check` and the start-up log. */
  ignored: string[];
  issues: ConfigIssue[];
}

/**
 * Lets a whole OpenClaw config file (openclaw.json) be given to --config: keys Hookgate does not
 * use are removed and reported, never silently reinterpreted. `knows(path)` says whether
 * Hookgate's own schema has the key (such a key is never removed, whatever the table says).
 */
export function foldOpenClawConfig(raw: Json, knows: (segments: string[]) => boolean, interfaces: Interfaces = networkInterfaces): FoldResult {
  const value = structuredClone(raw);
  const ignored: string[] = [];
  const issues: ConfigIssue[] = [];
  for (const rule of OPENCLAW_IGNORED_KEYS) {
    for (const segments of expand(value, rule.path.split('/'))) {
      if (knows(segments)) continue;
      removeAt(value, segments);
      ignored.push(`/${segments.join('/')}: ${rule.reason}`);
    }
  }
  ignored.push(...foldProviders(value), ...foldModelCatalog(value));
  foldBind(value, ignored, issues, interfaces);
  return { value, ignored, issues };
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Concrete paths present in the value that a pattern (with `*` segments) names. */
function expand(root: Json, pattern: string[]): string[][] {
  let paths: Array<{ at: Json; path: string[] }> = [{ at: root, path: [] }];
  for (const [index, segment] of pattern.entries()) {
    const last = index === pattern.length - 1;
    const next: typeof paths = [];
    for (const { at, path } of paths) {
      const keys = segment === '*' ? Object.keys(at) : Object.hasOwn(at, segment) ? [segment] : [];
      for (const key of keys) {
        const child = at[key];
        if (last) next.push({ at, path: [...path, key] });
        else if (isObject(child)) next.push({ at: child, path: [...path, key] });
      }
    }
    paths = next;
  }
  return paths.map(({ path }) => path);
}

function removeAt(root: Json, segments: string[]): void {
  let at: Json = root;
  for (const segment of segments.slice(0, -1)) at = at[segment] as Json;
  delete at[segments[segments.length - 1] as string];
}

/** A provider whose `api` Hookgate does not speak (anthropic-messages, …): removed and reported; runs naming it fail. */
function foldProviders(root: Json): string[] {
  const providers = isObject(root['models']) ? root['models']['providers'] : undefined;
  if (!isObject(providers)) return [];
  const known = new Set(PROVIDERS.map((provider) => provider.api));
  const lines: string[] = [];
  for (const [id, entry] of Object.entries(providers)) {
    const api = isObject(entry) ? entry['api'] : undefined;
    if (typeof api === 'string' && !known.has(api)) {
      delete providers[id];
      lines.push(`/models/providers/${id}: api "${api}" is not supported (supported: ${[...known].join(', ')}); runs that name this provider fail`);
    }
  }
  return lines;
}

/** OpenClaw's model map entries may carry more than `alias` (params, …); fallbacks are accepted but not used. */
function foldModelCatalog(root: Json): string[] {
  const defaults = isObject(root['agents']) && isObject(root['agents']['defaults']) ? root['agents']['defaults'] : undefined;
  if (defaults === undefined) return [];
  const lines: string[] = [];
  const model = defaults['model'];
  if (isObject(model) && Array.isArray(model['fallbacks']) && model['fallbacks'].length > 0) {
    lines.push('/agents/defaults/model/fallbacks: Hookgate does not retry a failed run on another model');
  }
  const models = defaults['models'];
  if (!isObject(models)) return lines;
  for (const [id, entry] of Object.entries(models)) {
    if (!isObject(entry)) continue;
    for (const key of Object.keys(entry).filter((name) => name !== 'alias')) {
      delete entry[key];
      lines.push(`/agents/defaults/models/${id}/${key}: per-model settings are not used (only alias is)`);
    }
  }
  return lines;
}

const LOOPBACK = '127.0.0.1';
const ALL_INTERFACES = '0.0.0.0';

/**
 * OpenClaw's `gateway.bind` names a mode, not an address: `loopback`/`auto` → 127.0.0.1, `lan` →
 * 0.0.0.0, `tailnet` → this machine's Tailscale address (100.64.0.0/10), `custom` →
 * `gateway.customBindHost`. Never used as a hostname.
 */
function foldBind(root: Json, ignored: string[], issues: ConfigIssue[], interfaces: Interfaces): void {
  const gateway = root['gateway'];
  if (!isObject(gateway)) return;
  const bind = gateway['bind'];
  const custom = gateway['customBindHost'];
  delete gateway['customBindHost'];
  if (bind === 'custom') {
    if (typeof custom === 'string' && custom.trim() !== '') gateway['bind'] = custom.trim();
    else issues.push({ path: '/gateway/customBindHost', message: 'required when gateway.bind is "custom"' });
    return;
  }
  if (custom !== undefined) ignored.push('/gateway/customBindHost: used only with gateway.bind "custom"');
  if (bind === 'loopback' || bind === 'auto') gateway['bind'] = LOOPBACK;
  else if (bind === 'lan') gateway['bind'] = ALL_INTERFACES;
  else if (bind === 'tailnet') {
    const address = tailnetAddress(interfaces);
    if (address === undefined) issues.push({ path: '/gateway/bind', message: '"tailnet": no Tailscale address (100.64.0.0/10) on this machine' });
    else gateway['bind'] = address;
  }
}

function tailnetAddress(interfaces: Interfaces): string | undefined {
  for (const entries of Object.values(interfaces())) {
    for (const entry of entries ?? []) {
      const [a, b] = entry.address.split('.').map(Number);
      if (entry.family === 'IPv4' && a === 100 && b !== undefined && b >= 64 && b <= 127) return entry.address;
    }
  }
  return undefined;
}
