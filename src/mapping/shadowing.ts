import { isDeepStrictEqual } from 'node:util';
import type { MappingConfig } from '../config/mapping-schema.js';
import type { MappingSource } from './mapping-records.js';
import { trimSlashes } from './compile.js';

type Signature = NonNullable<MappingConfig['signature']>;

/**
 * Mappings an earlier one keeps requests from, found from the config alone (the order, `match`,
 * `events`, `filter`, `signature`): the engine's load-time warnings (`hookgate check`, `try`, the
 * log at start and reload). A request goes to the first mapping of its path that matches it and that
 * it is authenticated for (src/http/candidate-auth.ts), and the first mapping of the path answers
 * a request authenticated for none. So:
 * - a mapping is never reached when an earlier one on its path matches all it would (no `events`, no
 *   `filter`, its `match.source` unset or the same) and takes every credential it takes;
 * - a token mapping is never reached behind a first mapping of the path that requires a signature;
 * - signed mappings behind a first mapping that takes the hook token are reached by signed
 *   deliveries, but a bad signature is answered by that first mapping ("missing hook token") and
 *   `hookgate sign` signs for it (it refuses): said once per first mapping.
 */
export function shadowingWarnings(sources: readonly MappingSource[]): string[] {
  const warnings: string[] = [];
  const signedBehindToken = new Map<MappingSource, MappingSource[]>();
  sources.forEach((later, index) => {
    const earlier = sources.slice(0, index).filter((source) => samePath(source, later));
    const first = earlier[0];
    const covering = earlier.filter((source) => sourceCovers(source, later));
    const taker = covering.find((source) => unconditional(source) && credentialsCover(source, later));
    // Below, `first` answers every request of `later` only when no earlier mapping is first for some of its sources.
    const firstForAll = first !== undefined && covering[0] === first;
    if (taker !== undefined) warnings.push(neverReached(later, taker));
    else if (firstForAll && later.config.signature === undefined && requiresSignature(first)) warnings.push(tokenRefused(later, first));
    else if (firstForAll && later.config.signature !== undefined && takesToken(first)) signedBehindToken.set(first, [...(signedBehindToken.get(first) ?? []), later]);
  });
  for (const [first, signed] of signedBehindToken) warnings.push(badSignatureAnsweredBy(first, signed));
  return warnings;
}

function pathOf(source: MappingSource): string | undefined {
  const path = source.config.match?.path;
  return path === undefined ? undefined : trimSlashes(path);
}

/** The earlier mapping is a candidate for every name the later one serves: the same path, or no path. */
function samePath(earlier: MappingSource, later: MappingSource): boolean {
  const path = pathOf(earlier);
  return path === undefined || path === pathOf(later);
}

function sourceCovers(earlier: MappingSource, later: MappingSource): boolean {
  const source = earlier.config.match?.source;
  return source === undefined || source === later.config.match?.source;
}

/** No `events` or `filter` to pass a delivery over: it takes every request it is authenticated for (a transform's null is a skip, not a pass). */
function unconditional(source: MappingSource): boolean {
  return source.config.events === undefined && source.config.filter === undefined;
}

function takesToken(source: MappingSource): boolean {
  const { signature } = source.config;
  return signature === undefined || signature.allowToken === true;
}

function requiresSignature(source: MappingSource): boolean {
  return !takesToken(source);
}

/** Every request the later mapping is authenticated for, the earlier one is too. */
function credentialsCover(earlier: MappingSource, later: MappingSource): boolean {
  const signature = later.config.signature;
  if (signature === undefined) return takesToken(earlier);
  if (signature.allowToken === true && !takesToken(earlier)) return false;
  const covering = earlier.config.signature;
  return covering !== undefined && verifiesAllOf(covering, signature);
}

/** Same scheme and settings, and every secret of the later one among the earlier one's. */
function verifiesAllOf(earlier: Signature, later: Signature): boolean {
  const settings = ({ secret: _secret, secrets: _secrets, allowToken: _allowToken, ...rest }: Signature) => rest;
  const secrets = (signature: Signature) => signature.secrets ?? (signature.secret === undefined ? [] : [signature.secret]);
  const earlierSecrets = new Set(secrets(earlier));
  return isDeepStrictEqual(settings(earlier), settings(later)) && secrets(later).every((secret) => earlierSecrets.has(secret));
}

function name(source: MappingSource): string {
  return `mapping "${source.id}" (${source.label})`;
}

function where(source: MappingSource): string {
  const path = pathOf(source);
  return path === undefined ? 'for every hook name' : `on path "${path}"`;
}

function neverReached(later: MappingSource, taker: MappingSource): string {
  const credential = later.config.signature === undefined ? 'the hook token' : `a ${later.config.signature.scheme} signature`;
  return `${name(later)} is never reached: ${name(taker)} comes before it ${where(later)}, takes every delivery it would (no events, no filter) and accepts ${credential} as well; move it before that mapping, or give one of them another path`;
}

function tokenRefused(later: MappingSource, first: MappingSource): string {
  return `${name(later)} takes the hook token but is never reached: ${name(first)} comes first ${where(later)} and requires a ${first.config.signature?.scheme} signature, so a request with the token alone is refused (401) before any other mapping of the path is tried; give the signed mapping allowToken: true, or the token mapping another path`;
}

function badSignatureAnsweredBy(first: MappingSource, signed: readonly MappingSource[]): string {
  const labels = [...new Set(signed.map((source) => source.label))];
  const onePreset = labels.length === 1 && labels[0]?.startsWith('preset ') === true;
  const who = onePreset ? `${labels[0]} (${signed.length === 1 ? `"${signed[0]?.id}"` : `its ${signed.length} mappings`})` : signed.map(name).join(', ');
  const path = pathOf(first) ?? '<name>';
  return `${name(first)} comes first ${where(first)} and takes the hook token, before the signed ${who}: correctly signed deliveries still reach the signed mappings, but one whose signature fails is answered by "${first.id}" (401 "missing hook token", not "invalid signature") and \`hookgate sign ${path}\` refuses (it signs for the first mapping of the path); give "${first.id}" another match.path, or remove it`;
}
