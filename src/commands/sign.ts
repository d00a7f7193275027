import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import { ConfigError, type ConfigIssue } from '../errors.js';
import { configPathFrom, loadConfigFile, notNeededWarning, type ResolvedConfig } from '../config/load.js';
import type { MappingConfig } from '../config/mapping-schema.js';
import { compileEventMatcher, eventFieldReader, eventTypeReaderFor } from '../admission/event-type.js';
import { compileSignature, type CompiledSignature, type SignedDelivery } from '../auth/signatures/index.js';
import { mismatchReason } from '../mapping/match.js';
import { trimSlashes } from '../mapping/compile.js';
import { parseCommandLine, UsageError } from './args.js';
import { findRunningServer } from '../server-state.js';
import type { CommandIo } from './io.js';
import { collectMappingSources } from '../mapping/mapping-records.js';
import { PRESETS } from '../../presets/index.js';

/** No signed mapping receives the request, or the payload file cannot be read: printed, exit 1. */
class SignError extends Error {}

/**
 * What `sign` reads besides the mapping that signs (whose own `${VAR}`s it checks once it knows
 * which one that is): where the server listens and keeps its state, and the hooks path. An unset
 * variable anywhere else (a target's token, a channel's key) is only a warning.
 */
const SIGN_NEEDS = ['/gateway/bind', '/gateway/port', '/storage', '/hooks/enabled', '/hooks/path'];

/**
 * `hookgate sign`: the headers a sender would send for this payload to the mapping that would
 * receive it, signed now with the mapping's (first) secret, and a curl command that sends them,
 * so a signed mapping can be tried locally. It prints a signature, never the secret.
 */
export async function runSign(argv: string[], io: CommandIo): Promise<number> {
  const args = parseSignArgs(argv);
  try {
    const tolerance = { needed: SIGN_NEEDS, warnings: [] as string[], unset: [] as ConfigIssue[] };
    const config = await loadConfigFile(configPathFrom(args.config, io.env, io.cwd), io.env, tolerance);
    const payloadPath = resolvePath(io.cwd, args.payload);
    const body = await readBody(payloadPath);
    const now = Math.floor(Date.now() / 1000);
    const { id, pointer, signature, delivery } = await signedDelivery(config, body, { ...args, now });
    // Only now is it known which mapping signs: its own variables must be set, the others need not be.
    const missing = tolerance.unset.filter((issue) => issue.path === pointer || issue.path.startsWith(`${pointer}/`));
    if (missing.length > 0) throw new SignError(`hookgate sign: mapping "${id}" signs with what is not set: ${missing.map((issue) => `${issue.message} (used at ${issue.path})`).join('; ')}`);
    for (const issue of tolerance.unset) io.stderr(`warning: ${notNeededWarning(issue)}\n`);
    io.stdout(formatSigned({ config, name: args.name, mappingId: id, signature, delivery, now, payloadPath, body: body.bytes, contentType: body.contentType }));
    return 0;
  } catch (error) {
    if (error instanceof ConfigError || error instanceof SignError) {
      io.stderr(`${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

/** A wrong command line throws UsageError (src/cli.ts prints it with the usage, exit 2). */
export function parseSignArgs(argv: string[]) {
  const parsed = parseCommandLine({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: { payload: { type: 'string' }, delivery: { type: 'string' }, config: { type: 'string' }, event: { type: 'string' } },
  });
  const [name, ...extra] = parsed.positionals;
  if (name === undefined || extra.length > 0) throw new UsageError('exactly one hook name is expected');
  if (parsed.values.payload === undefined) throw new UsageError('--payload FILE is required');
  if (parsed.values.event?.trim() === '') throw new UsageError('--event wants an event name, e.g. pull_request');
  return { name: trimSlashes(name), payload: parsed.values.payload, delivery: parsed.values.delivery, config: parsed.values.config, event: parsed.values.event?.trim() };
}

/**
 * The scheme signs a default event (GitHub: push); the one the mapping takes (its `events`) or
 * --event replaces it, so the printed request is one the mapping does not skip. The event header
 * is not signed by any scheme that has one.
 */
function withEvent(headers: Record<string, string>, event: string | undefined): Record<string, string> {
  const name = Object.keys(headers).find((header) => /-event$/i.test(header));
  if (event === undefined) return headers;
  if (name === undefined) throw new SignError(`hookgate sign: this scheme sends no event header for --event ${JSON.stringify(event)}`);
  return { ...headers, [name]: event };
}

interface Body {
  bytes: Buffer;
  contentType: string;
  fields: Record<string, unknown>;
}

/** The file's bytes are what gets signed; its fields (JSON, else a form) only decide which mapping receives it. */
async function readBody(path: string): Promise<Body> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new SignError(`hookgate sign: cannot read payload ${path}: ${(error as Error).message}`);
  }
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    const fields = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
    return { bytes, contentType: 'application/json', fields };
  } catch {
    return { bytes, contentType: 'application/x-www-form-urlencoded', fields: Object.fromEntries(new URLSearchParams(bytes.toString('utf8'))) };
  }
}

interface SignedFor {
  id: string;
  /** Where the mapping is in the config (`/hooks/presets/0`): the variables under it are the ones signing needs. */
  pointer: string;
  signature: CompiledSignature;
  delivery: SignedDelivery;
}

/**
 * The request signed for the first mapping (hooks.mappings, then the presets') that would receive
 * it; with --event, for the first whose `events` take the event as the service reads it from the
 * signed headers and the payload (a preset has one mapping per event group on one path).
 */
async function signedDelivery(config: ResolvedConfig, body: Body, args: { name: string; event: string | undefined; delivery: string | undefined; now: number }): Promise<SignedFor> {
  const { name, event } = args;
  const source = typeof body.fields['source'] === 'string' ? body.fields['source'] : undefined;
  let received = false;
  for (const { config: mapping, id, pointer } of collectMappingSources(config.hooks, PRESETS).sources) {
    const entry = { path: mapping.match?.path === undefined ? undefined : trimSlashes(mapping.match.path), source: mapping.match?.source };
    if (mismatchReason(entry, name, source) !== undefined) continue;
    received = true;
    if (mapping.signature === undefined) {
      if (event !== undefined && !takesEvent(mapping, {}, body.fields)) continue;
      throw new SignError(`hookgate sign: mapping "${id}" receives "${name}" but has no signature (it takes the hook token)`);
    }
    const { signature, problems } = compileSignature(mapping.signature);
    if (signature === undefined) throw new SignError(`hookgate sign: mapping "${id}": ${problems.map((problem) => problem.message).join('; ')}`);
    if (signature.scheme.sign === undefined) throw new SignError(`hookgate sign: scheme ${signature.scheme.name} is signed with the provider's private key, which only the provider holds; send a real delivery, or check its headers with hookgate try`);
    const signed = await signature.scheme.sign(signature.settings, body.bytes, args.now, args.delivery ?? randomUUID());
    const headers = withEvent(signed.headers, event ?? eventsOf(mapping)[0]);
    if (event !== undefined && !takesEvent(mapping, headers, body.fields)) continue;
    return { id, pointer, signature, delivery: { ...signed, headers } };
  }
  if (received) throw new SignError(`hookgate sign: no mapping that receives "${name}" takes the event ${JSON.stringify(event)} with this payload (see their events)`);
  throw new SignError(`hookgate sign: no mapping in hooks.mappings or hooks.presets receives "${name}" with this payload`);
}

/**
 * Whether the mapping's `events` take the delivery, its type read as the service reads it (the
 * scheme's reader, or `eventField`): GitHub's `issues` header with an `opened` payload is
 * `issues.opened`. A mapping without `events` takes every event.
 */
function takesEvent(mapping: MappingConfig, headers: Record<string, string>, fields: Record<string, unknown>): boolean {
  if (mapping.events === undefined) return true;
  const reader = mapping.eventField === undefined ? eventTypeReaderFor(mapping.signature?.scheme) : eventFieldReader(mapping.eventField);
  if (typeof reader !== 'function') return true;
  const lowered = Object.fromEntries(Object.entries(headers).map(([header, value]) => [header.toLowerCase(), value]));
  return compileEventMatcher(mapping.events)(reader(lowered, fields));
}

/**
 * The event headers the mapping's `events` admits: `issues.opened` is sent as the header `issues`
 * (GitHub puts the action in the body); wildcards name no single event.
 */
function eventsOf(mapping: { events?: readonly string[] | undefined }): string[] {
  return (mapping.events ?? []).filter((event) => !event.includes('*')).map((event) => event.split('.')[0] as string);
}

interface Signed {
  config: ResolvedConfig;
  name: string;
  mappingId: string;
  signature: CompiledSignature;
  delivery: SignedDelivery;
  now: number;
  payloadPath: string;
  body: Buffer;
  contentType: string;
}

function formatSigned(signed: Signed): string {
  const { config, signature, delivery } = signed;
  const query = delivery.query === undefined || delivery.query === '' ? '' : `?${delivery.query}`;
  const url = `${serverBase(config)}${config.hooks.path}/${signed.name}${query}`;
  const window = signature.scheme.timestamped ? `, valid for ${signature.settings.toleranceSeconds} s` : '';
  const lines = [`# mapping "${signed.mappingId}", scheme ${signature.scheme.name}, signed at ${new Date(signed.now * 1000).toISOString()}${window}`];
  // A header that carries the secret itself (GitLab's token) is shown as a placeholder: this command never prints a secret.
  const headers = Object.entries(delivery.headers).map(([name, value]) => [name, signature.settings.secrets.includes(value) ? SECRET_PLACEHOLDER : value] as const);
  if (headers.some(([, value]) => value === SECRET_PLACEHOLDER)) lines.push(`# ${signature.scheme.name} sends the secret itself: put it in place of ${SECRET_PLACEHOLDER}`);
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  // A sender that writes the time into the body (Linear): the signed body is not the file's, so it is sent inline.
  const rewritten = delivery.body !== undefined && !delivery.body.equals(signed.body);
  if (rewritten) lines.push(`# the body is sent with its time set to now: ${(delivery.body as Buffer).toString('utf8')}`);
  const data = rewritten ? quote((delivery.body as Buffer).toString('utf8')) : `@${quote(signed.payloadPath)}`;
  const curlHeaders = [`Content-Type: ${signed.contentType}`, ...headers.map(([name, value]) => `${name}: ${value}`)];
  lines.push('', `curl -sS -X POST ${quote(url)} ${curlHeaders.map((header) => `-H ${quote(header)}`).join(' ')} --data-binary ${data}`, '');
  return lines.join('\n');
}

const SECRET_PLACEHOLDER = '<signature.secret>';

/** The running server's address (its state file: the real --port), else the configured one. */
function serverBase(config: ResolvedConfig): string {
  const running = findRunningServer(config.storage);
  if (running !== undefined) return running.url.replace(/\/+$/, '');
  const host = config.gateway.bind === '0.0.0.0' || config.gateway.bind === '::' ? '127.0.0.1' : config.gateway.bind;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.gateway.port}`;
}

/** POSIX shell single quotes. */
function quote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}
