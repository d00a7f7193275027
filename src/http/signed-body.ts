import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { parse as parseSafeJson } from '@hapi/bourne';
import { HookError } from '../errors.js';
import { inspectPayload, JSON_TYPES, RAW_BODY_STATE, translateParseError, type BodyLimits } from './body.js';
import { readWithin } from './body-watch.js';
import { bodyCharset, checkAscii } from './charset.js';

const FORM_TYPE = 'application/x-www-form-urlencoded';

/** A signed request's body: its exact bytes, and the payload parsed from them (or why it could not be). */
export interface SignedBody {
  raw: Buffer;
  format: 'json' | 'form';
  payload: Record<string, unknown> | undefined;
  /** Thrown only once the request is authenticated, so an unauthenticated sender learns nothing but 401. */
  problem: HookError | undefined;
}

/**
 * Reads the body's bytes exactly as received (a signature covers them, so nothing may be decoded,
 * inflated or re-encoded first), within the size limit (413 before any signature work), the
 * read timeout and the least transfer rate, then parses them as JSON or, for schemes that allow it, as a form. A body that
 * cannot be parsed is not an error yet: the sender must be authenticated before it learns why.
 */
export async function readSignedBody(ctx: Context, limits: BodyLimits): Promise<SignedBody> {
  const declared = ctx.get('Content-Length');
  let raw: Buffer = Buffer.alloc(0);
  const read = getRawBody(ctx.req, { limit: limits.maxBodyBytes, ...(/^\d+$/.test(declared) ? { length: Number(declared) } : {}) }).then((bytes) => {
    raw = bytes;
  });
  await readWithin(
    ctx,
    read.catch((error: unknown) => {
      throw translateParseError(error as Error, limits.maxBodyBytes);
    }),
    limits,
  );
  ctx.state[RAW_BODY_STATE] = raw;
  const format = formatOf(ctx);
  const charset = bodyCharset(ctx.get('Content-Type'));
  try {
    if (typeof format !== 'string') throw format;
    if (charset instanceof HookError) throw charset;
    checkAscii(charset, raw);
    const payload = format === 'json' ? parseJsonObject(raw.toString('utf8')) : parseForm(raw.toString('utf8'));
    checkShape(payload, limits.maxJsonDepth);
    return { raw, format, payload, problem: undefined };
  } catch (error) {
    if (!(error instanceof HookError)) throw error;
    return { raw, format: format === 'form' ? 'form' : 'json', payload: undefined, problem: error };
  }
}

/** How the body is to be parsed, or why it cannot be (reported once the request is authenticated). */
function formatOf(ctx: Context): 'json' | 'form' | HookError {
  const encoding = ctx.get('Content-Encoding').toLowerCase();
  if (encoding !== '' && encoding !== 'identity') return new HookError('UNSUPPORTED_MEDIA_TYPE', 'a signed request body must not be content-encoded');
  if (ctx.get('Content-Type') === '' || ctx.is(JSON_TYPES)) return 'json';
  if (ctx.is(FORM_TYPE)) return 'form';
  return new HookError('UNSUPPORTED_MEDIA_TYPE', 'request body must be JSON (or a form for schemes that send one)');
}

function parseJsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = parseSafeJson(text); // bourne refuses __proto__ keys by default
  } catch (error) {
    if (/prototype/i.test((error as Error).message)) throw forbiddenKey();
    throw new HookError('INVALID_JSON', 'request body is not valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new HookError('INVALID_JSON', 'request body must be a JSON object');
  return value as Record<string, unknown>;
}

/** Form fields as an object (a repeated field becomes an array); `payload` is parsed when it holds a JSON object (Slack interactivity). */
function parseForm(text: string): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    if (key === '__proto__' || key === 'constructor' || key === 'prototype') throw forbiddenKey();
    const previous = fields[key];
    fields[key] = previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value];
  }
  const payload = fields['payload'];
  if (typeof payload === 'string' && payload.trimStart().startsWith('{')) {
    try {
      fields['payload'] = parseJsonObject(payload);
    } catch (error) {
      if (error instanceof HookError && error.code === 'FORBIDDEN_KEY') throw error;
    }
  }
  return fields;
}

function checkShape(payload: Record<string, unknown>, maxDepth: number): void {
  const problem = inspectPayload(payload, maxDepth);
  if (problem === 'too-deep') throw new HookError('BODY_TOO_DEEP', `request body is nested deeper than ${maxDepth} levels`);
  if (problem === 'forbidden-key') throw forbiddenKey();
}

function forbiddenKey(): HookError {
  return new HookError('FORBIDDEN_KEY', 'request body contains a forbidden key (__proto__ or constructor.prototype)');
}
