import { HookError } from '../errors.js';
import type { ConsolePorts } from './ports.js';

const NAME = /^[A-Za-z0-9._~\-/]{1,200}$/;

/**
 * The Playground: a hook name, a payload and optional headers through the engine in force, the way
 * `hookgate try` runs them (the engine's explain: no store, no run, no delivery).
 */
export async function playground(ports: ConsolePorts, body: unknown) {
  const input = (typeof body === 'object' && body !== null ? body : {}) as { hook?: unknown; payload?: unknown; headers?: unknown };
  const hook = typeof input.hook === 'string' ? input.hook.replace(/^\/+|\/+$/g, '') : '';
  if (!NAME.test(hook)) throw new HookError('INVALID_BODY', 'hook must be a hook name (letters, digits, . _ ~ - /)');
  if (typeof input.payload !== 'object' || input.payload === null || Array.isArray(input.payload)) throw new HookError('INVALID_BODY', 'payload must be a JSON object');
  const headers = headersOf(input.headers);
  const result = await ports.explain({ name: hook, payload: input.payload as Record<string, unknown>, headers, query: {} });
  if (result === undefined) throw new HookError('NOT_FOUND', 'no mappings are configured (hooks.mappings and hooks.presets are empty)');
  return { explanation: result.json, text: result.text };
}

function headersOf(value: unknown): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new HookError('INVALID_BODY', 'headers must be an object of strings');
  const out: Record<string, string> = {};
  for (const [name, inner] of Object.entries(value)) {
    if (typeof inner !== 'string') throw new HookError('INVALID_BODY', `header "${name.slice(0, 100)}" must be a string`);
    out[name.toLowerCase()] = inner;
  }
  return out;
}
