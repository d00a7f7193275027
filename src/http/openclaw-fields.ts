import type { Context } from 'koa';
import { HookError } from '../errors.js';

/**
 * Fields that clients written for OpenClaw send to /wake and /agent, and that Hookgate does not
 * carry out. Refused with 400 naming the field instead of being dropped: a sender that asks for
 * routing or a reply it will not get must learn it at once (docs/spec-decisions.md).
 */
const REFUSED: Readonly<Record<'wake' | 'agent', Readonly<Record<string, string>>>> = {
  wake: {
    sessionKey: 'a wake event always goes to the main session; to run in a hook: session, POST /agent with sessionKey',
    agentId: 'a wake event always goes to the main session of the one agent, "main"',
  },
  agent: {
    accountId: 'channels have one account each; configure the account in channels.<name>',
  },
};

/** Throws 400 INVALID_BODY naming the first refused OpenClaw field present in the body. */
export function refuseUnsupportedFields(route: 'wake' | 'agent', body: Record<string, unknown>): void {
  for (const [field, why] of Object.entries(REFUSED[route])) {
    if (Object.hasOwn(body, field) && body[field] !== undefined) throw new HookError('INVALID_BODY', `${field} is not supported on /${route}: ${why}`);
  }
}

const KEY_SHAPE = /^[\x21-\x7e]{1,256}$/;

export function checkedKey(value: unknown, name: string): string {
  const trimmed = typeof value === 'string' ? value.trim() : undefined;
  if (trimmed === undefined || !KEY_SHAPE.test(trimmed)) {
    throw new HookError('INVALID_IDEMPOTENCY_KEY', `${name} must be 1 to 256 visible ASCII characters`);
  }
  return trimmed;
}

function headerKey(ctx: Context, name: string): string | undefined {
  const value = ctx.req.headers[name.toLowerCase()];
  return value === undefined ? undefined : checkedKey(Array.isArray(value) ? undefined : value, name);
}

export interface IdempotencySources {
  /** hooks.compat.openclawHeaders: `X-OpenClaw-Idempotency-Key` counts as `Idempotency-Key`. */
  openclawHeaders: boolean;
  /** The parsed body of /wake or /agent, whose `idempotencyKey` field OpenClaw reads; undefined elsewhere. */
  body?: Record<string, unknown> | undefined;
}

/**
 * The request's idempotency key, in OpenClaw's order: the `Idempotency-Key` header, then
 * `X-OpenClaw-Idempotency-Key` (when enabled), then the body's `idempotencyKey`. A malformed key
 * is 400 (OpenClaw drops it silently; a sender relying on it would then run twice).
 */
export function requestIdempotencyKey(ctx: Context, sources: IdempotencySources): string | undefined {
  const standard = headerKey(ctx, 'Idempotency-Key');
  if (standard !== undefined) return standard;
  const openclaw = sources.openclawHeaders ? headerKey(ctx, 'X-OpenClaw-Idempotency-Key') : undefined;
  if (openclaw !== undefined) return openclaw;
  const body = sources.body;
  if (body !== undefined && Object.hasOwn(body, 'idempotencyKey') && body['idempotencyKey'] !== undefined) {
    return checkedKey(body['idempotencyKey'], 'idempotencyKey');
  }
  return undefined;
}
