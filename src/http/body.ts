import type { Context, Middleware } from 'koa';
import { koaBody } from 'koa-body';
import { HookError } from '../errors.js';
import { budgetRefusal, chargeOf } from './body-budget.js';
import { readWithin, type ReadPace } from './body-watch.js';
import { bodyCharset, checkAscii } from './charset.js';

export interface BodyLimits extends ReadPace {
  maxBodyBytes: number;
  maxJsonDepth: number;
}

/** Refuses a declared Content-Length over the limit before a byte of the body is read. */
export function declaredLengthGuard(maxBodyBytes: number): Middleware {
  // Synchronous: it returns next()'s promise instead of awaiting it (no async layer per request).
  return (ctx, next) => {
    const declared = ctx.req.headers['content-length'];
    if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > maxBodyBytes) {
      throw tooLarge(maxBodyBytes);
    }
    return next();
  };
}

/** Media types read as JSON: JSON itself, any `+json` type, text/plain, or none declared. */
export const JSON_TYPES = ['application/json', '+json', 'text/plain'];

/**
 * Where the body is kept for the request's later steps (the idempotency fingerprint): a signed
 * request's exact bytes (a Buffer), or an unsigned request's text as co-body decoded it (a string,
 * whose UTF-8 encoding is those bytes: encoding it up front would cost a copy of every body, ~1 µs
 * per KiB, for the few requests that carry an Idempotency-Key).
 */
export const RAW_BODY_STATE = 'rawBody';

/**
 * Reads and parses the body as a JSON object, within the size limit and the read timeout.
 * co-body (under koa-body) parses with bourne, which refuses `__proto__` and
 * `constructor.prototype` keys, so a payload can never pollute a prototype.
 * The body stays on `ctx.state.rawBody` as text (see {@link rawBodyOf}): the bytes as received after
 * any Content-Encoding is undone, read by co-body as UTF-8, so a body that is not valid UTF-8 has its
 * invalid sequences replaced (U+FFFD) there as in the parsed payload. A declared charset that is not
 * UTF-8 is refused (415) rather than misread (charset.ts).
 */
export function jsonBodyReader(limits: BodyLimits): Middleware {
  const parse = koaBody({
    json: true,
    jsonStrict: true,
    includeUnparsed: true,
    jsonLimit: limits.maxBodyBytes,
    jsonTypes: JSON_TYPES,
    text: false,
    urlencoded: false,
    multipart: false,
    parsedMethods: ['POST' as never],
    onError: (error: Error) => {
      throw translateParseError(error, limits.maxBodyBytes);
    },
  });
  return async (ctx, next) => {
    // Neither Content-Length nor Transfer-Encoding: HTTP says there is no body. Checked before the
    // media type, which type-is cannot see on a body-less request (it would answer 415).
    if (ctx.req.headers['content-length'] === undefined && ctx.req.headers['transfer-encoding'] === undefined) throw emptyBody();
    const declaredType = ctx.get('Content-Type');
    if (declaredType === '') {
      ctx.req.headers['content-type'] = 'application/json';
    } else if (!ctx.is(JSON_TYPES)) {
      throw new HookError('UNSUPPORTED_MEDIA_TYPE', 'request body must be JSON (Content-Type: application/json)', { closeConnection: true });
    }
    const charset = bodyCharset(declaredType);
    if (charset instanceof HookError) throw charset;
    // co-body inflates a compressed body out of sight of the meter: it is charged the most it may become.
    if (isEncoded(ctx) && chargeOf(ctx)?.reserve(limits.maxBodyBytes) === false) throw budgetRefusal();
    await readWithin(ctx, parse(ctx, async () => undefined), limits);
    const text = unparsedText(ctx);
    // co-body reads a zero-length body as {}: tell the sender what is missing instead of `text required`.
    if (isBlank(text)) throw emptyBody();
    checkAscii(charset, text);
    ctx.state[RAW_BODY_STATE] = text;
    ctx.state['payload'] = checkPayload(ctx, limits.maxJsonDepth);
    await next();
  };
}

/** koa-body (`includeUnparsed`) leaves the body's text on `ctx.request.rawBody`. */
function unparsedText(ctx: Context): string {
  const raw: unknown = (ctx.request as { rawBody?: unknown }).rawBody;
  return typeof raw === 'string' ? raw : '';
}

/** The body's bytes as {@link jsonBodyReader} or the signed-body reader kept them (text stands for its UTF-8 bytes). */
export function rawBodyOf(ctx: Context): Buffer | string {
  const raw: unknown = ctx.state[RAW_BODY_STATE];
  return Buffer.isBuffer(raw) || typeof raw === 'string' ? raw : Buffer.alloc(0);
}

function checkPayload(ctx: Context, maxDepth: number): Record<string, unknown> {
  const body: unknown = ctx.request.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new HookError('INVALID_JSON', 'request body must be a JSON object');
  }
  const problem = inspectPayload(body, maxDepth);
  if (problem === 'too-deep') throw new HookError('BODY_TOO_DEEP', `request body is nested deeper than ${maxDepth} levels`);
  if (problem === 'forbidden-key') {
    throw new HookError('FORBIDDEN_KEY', 'request body contains a forbidden key (__proto__ or constructor.prototype)');
  }
  return body as Record<string, unknown>;
}

/**
 * One iterative walk (a hostile nesting depth cannot overflow the stack) for the depth cap and
 * for `constructor.prototype`, which the parser lets through as plain own keys.
 */
export function inspectPayload(root: unknown, maxDepth: number): 'too-deep' | 'forbidden-key' | undefined {
  const stack: Array<[object, number]> = [[root as object, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop() as [object, number];
    if (depth > maxDepth) return 'too-deep';
    if (!Array.isArray(value) && Object.hasOwn(value, 'constructor')) {
      const ctor = (value as { constructor: unknown }).constructor;
      if (ctor !== null && typeof ctor === 'object' && Object.hasOwn(ctor, 'prototype')) return 'forbidden-key';
    }
    for (const child of Object.values(value)) {
      if (child !== null && typeof child === 'object') stack.push([child as object, depth + 1]);
    }
  }
  return undefined;
}

function isEncoded(ctx: Context): boolean {
  const encoding = ctx.get('Content-Encoding').toLowerCase();
  return encoding !== '' && encoding !== 'identity';
}

export function translateParseError(error: Error & { status?: number; type?: string; body?: unknown }, maxBodyBytes: number): HookError {
  if (error instanceof HookError) return error;
  if (error.status === 413 || error.type === 'entity.too.large') return tooLarge(maxBodyBytes);
  if (isBlank(error.body)) return emptyBody();
  if (error.type === 'request.aborted') return new HookError('INVALID_JSON', 'request body was aborted', { closeConnection: true });
  if (error.type === 'request.size.invalid') {
    return new HookError('INVALID_JSON', 'request body length does not match Content-Length', { closeConnection: true });
  }
  if (error.status === 415 || error.type === 'encoding.unsupported' || error.type === 'charset.unsupported') {
    return new HookError('UNSUPPORTED_MEDIA_TYPE', 'unsupported body encoding or charset', { closeConnection: true });
  }
  if (/prototype/i.test(error.message)) {
    return new HookError('FORBIDDEN_KEY', 'request body contains a forbidden key (__proto__ or constructor.prototype)');
  }
  return new HookError('INVALID_JSON', 'request body is not valid JSON');
}

function tooLarge(maxBodyBytes: number): HookError {
  return new HookError('PAYLOAD_TOO_LARGE', `request body exceeds ${maxBodyBytes} bytes`, { closeConnection: true });
}

/** No bytes, or only JSON whitespace: nothing was sent, which is not the same mistake as bad JSON. */
function isBlank(raw: unknown): boolean {
  return typeof raw === 'string' && /^[\x20\x09\x0a\x0d]*$/.test(raw);
}

function emptyBody(): HookError {
  return new HookError('EMPTY_BODY', 'empty body: send a JSON object');
}
