/**
 * The guest prelude: runs inside every isolate context before any module code (never in Node).
 * Bundled by esbuild (../guest-prelude.ts, scripts/build.mjs) and type-checked on its own
 * (tsconfig.json here: no Node types, so nothing of the host can be reached by mistake).
 *
 * `startGuest` returns `[call, bind]`, the only things the worker holds a Reference to; guest code
 * can reach neither them nor any isolated-vm object. It freezes every intrinsic and the global
 * object first, so nothing a call does to globals or built-in prototypes survives into the next call
 * (one context serves many calls: a fresh context per call measured ~0.9 ms and leaked heap, see
 * docs/transforms.md).
 *
 * Results and errors become one JSON string, size-capped, before they leave; thrown values are
 * described from own data properties only, so no guest getter runs.
 */
import type { GuestOptions } from './options.js';
import { urlValue } from './url.js';

type Call = (inputJson: string) => Promise<string>;
type Bind = (exportName: string) => string;
type Bag = Record<PropertyKey, unknown>;

// Captured before any guest code runs (and before everything is frozen).
const { freeze, getPrototypeOf, getOwnPropertyDescriptor, defineProperty, keys, create } = Object;
const { ownKeys } = Reflect;
const stringify = JSON.stringify, parse = JSON.parse, isArray = Array.isArray, Str = String;
const stringValueOf = String.prototype.valueOf;
const MAX_LINES = 20, MAX_LINE = 500, MAX_FIELDS = 64;
const G = globalThis as unknown as Bag;
/** V8's own `stack` accessor, shared by every error it makes: the only `stack` getter describe runs. */
const NATIVE_STACK = getOwnPropertyDescriptor(new Error(), 'stack')?.get;

/** Getters installed by allowOwnAssignment: nameOf may run these (they return a fixed value). */
const ownGetters = new Set<() => unknown>();
let logs: string[] = [];

export function startGuest(options: GuestOptions): [Call, Bind] {
  removeUnsafeGlobals();
  defineProperty(G, 'console', { value: guestConsole() });
  let factory: unknown;
  let registered = false;
  defineProperty(G, options.registerGlobal, { value: (f: unknown) => { if (!registered) { registered = true; factory = f; } } });
  allowOwnAssignment(Object.prototype, ['constructor', 'toString', 'valueOf', 'toLocaleString', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable']);
  allowOwnAssignment(Error.prototype, ['name', 'message', 'constructor', 'toString']);
  allowOwnAssignment(Function.prototype, ['constructor', 'toString']);
  freezeReachable([G, ...hiddenIntrinsics()]);

  let fn: ((input: unknown) => unknown) | undefined;
  const call: Call = async (inputJson) => {
    logs = [];
    let value: unknown;
    try { value = await fn!(withUrl(parse(inputJson))); } catch (e) { return stringify({ s: 'threw', error: describe(e), name: kindOf(e), at: locate(e), logs }); }
    try { return encode(value, options.maxOutputChars); } catch (e) { return fail('invalid', 'result could not be read: ' + describe(e)); }
  };
  const bind: Bind = (exportName) => {
    if (typeof factory !== 'function') return stringify({ s: 'error', error: 'the bundle did not register a module' });
    const chosen = chooseExport(factory as () => unknown, exportName);
    factory = undefined;
    if (typeof chosen === 'string') return chosen;
    fn = chosen.fn;
    try { return stringify({ s: 'ok', exportName: chosen.name, examples: encodeExamples(chosen.ns['examples']) }); }
    catch (e) { return stringify({ s: 'error', error: describe(e) }); }
  };
  return [call, bind];
}

/** A String object (such as `input.url`) as its text; anything else unchanged. Never runs guest code. */
function primitiveString(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  try { return stringValueOf.call(v); } catch { return v; }
}

function withUrl(input: unknown): unknown {
  const bag = input as Bag;
  if (typeof bag === 'object' && bag !== null && typeof bag['url'] === 'string') bag['url'] = urlValue(bag['url'] as string);
  return input;
}

function removeUnsafeGlobals(): void {
  for (const name of ['WebAssembly', 'Atomics', 'SharedArrayBuffer', 'FinalizationRegistry', 'WeakRef']) delete G[name];
  // Legacy RegExp statics ($1, lastMatch, …) would carry text of one payload into the next call.
  const regExp = RegExp as unknown as Bag;
  for (const k of ownKeys(regExp)) { const d = getOwnPropertyDescriptor(regExp, k); if (d && d.get && k !== Symbol.species) delete regExp[k]; }
}

function guestConsole(): Record<string, (...args: unknown[]) => void> {
  const line = (args: unknown[]): string => {
    let out = '';
    for (let i = 0; i < args.length && out.length < MAX_LINE; i++) {
      let s: string;
      try { s = typeof args[i] === 'string' ? args[i] as string : (stringify(args[i]) ?? Str(args[i])); } catch { s = '[unprintable]'; }
      out += (i > 0 ? ' ' : '') + s;
    }
    return out.length > MAX_LINE ? out.slice(0, MAX_LINE) : out;
  };
  const log = (...args: unknown[]): void => { if (logs.length < MAX_LINES) logs[logs.length] = line(args); };
  return { log, info: log, warn: log, error: log, debug: log, trace: log };
}

/**
 * Frozen prototypes make plain assignments of these names fail on objects that inherit them (the
 * "override mistake"); an accessor that defines an own property instead keeps common code working.
 */
function allowOwnAssignment(proto: object, names: string[]): void {
  for (const name of names) {
    const d = getOwnPropertyDescriptor(proto, name);
    if (!d || !('value' in d)) continue;
    const value: unknown = d.value, get = () => value;
    ownGetters.add(get);
    defineProperty(proto, name, { configurable: false, enumerable: d.enumerable ?? false, get,
      set(this: object, v: unknown) {
        if (this === proto) throw new TypeError('Cannot assign to ' + name + ' of a shared prototype');
        defineProperty(this, name, { value: v, writable: true, enumerable: true, configurable: true });
      } });
  }
}

/** Prototypes no global property leads to: iterators, generators, segments. */
function hiddenIntrinsics(): unknown[] {
  const hidden: unknown[] = [getPrototypeOf(function* () {}), getPrototypeOf(async function () {}), getPrototypeOf(async function* () {}),
    getPrototypeOf([][Symbol.iterator]()), getPrototypeOf(new Map()[Symbol.iterator]()), getPrototypeOf(new Set()[Symbol.iterator]()),
    getPrototypeOf(''[Symbol.iterator]()), getPrototypeOf(/a/[Symbol.matchAll](''))];
  try { hidden.push(getPrototypeOf([].values().map((x) => x))); } catch {}
  try { hidden.push(getPrototypeOf(Iterator.from({ next() { return { done: true, value: undefined }; } }))); } catch {}
  try { const s = new Intl.Segmenter().segment(''); hidden.push(getPrototypeOf(s), getPrototypeOf(s[Symbol.iterator]())); } catch {}
  return hidden;
}

function freezeReachable(roots: unknown[]): void {
  const seen = new Set<object>();
  const stack = [...roots];
  while (stack.length > 0) {
    const o = stack.pop();
    if ((typeof o !== 'object' && typeof o !== 'function') || o === null || seen.has(o)) continue;
    seen.add(o);
    freeze(o);
    stack.push(getPrototypeOf(o));
    for (const k of ownKeys(o)) { const d = getOwnPropertyDescriptor(o, k); if (d) stack.push(d.value, d.get, d.set); }
  }
}

function nameOf(e: object): string {
  for (let o: object | null = e, i = 0; o !== null && i < 8; o = getPrototypeOf(o) as object | null, i++) {
    const d = getOwnPropertyDescriptor(o, 'name');
    if (!d) continue;
    const v: unknown = 'value' in d ? d.value : d.get !== undefined && ownGetters.has(d.get) ? d.get() : undefined;
    return typeof v === 'string' ? v : '';
  }
  return '';
}

function describe(e: unknown): string {
  if (typeof e === 'string') return e.slice(0, MAX_LINE);
  if ((typeof e !== 'object' && typeof e !== 'function') || e === null) return 'threw a ' + (e === null ? 'null' : typeof e);
  const d = getOwnPropertyDescriptor(e, 'message');
  if (!d || typeof d.value !== 'string') return 'threw a non-Error value';
  const name = nameOf(e);
  return ((name ? name + ': ' : '') + d.value).slice(0, MAX_LINE);
}

/** What was thrown, as a log may say it: the error's name (`SyntaxError`), or the type of a thrown non-error. */
function kindOf(e: unknown): string {
  if ((typeof e !== 'object' && typeof e !== 'function') || e === null) return e === null ? 'null' : typeof e;
  return hasSafeName(e) ? nameOf(e).slice(0, 64) || 'Error' : 'Error';
}

/** Whether reading `name` runs no guest code: a data property, or one of allowOwnAssignment's fixed getters. */
function hasSafeName(e: object): boolean {
  for (let o: object | null = e, i = 0; o !== null && i < 8; o = getPrototypeOf(o) as object | null, i++) {
    const d = getOwnPropertyDescriptor(o, 'name');
    if (d) return 'value' in d || (d.get !== undefined && ownGetters.has(d.get));
  }
  return true;
}

/**
 * `line:column` of the innermost frame of the module's own code (its file name starts `file://`),
 * from V8's stack, which V8 formats from `name` and `message`: read only when neither is a guest
 * getter and `stack` is V8's own accessor, so no guest code runs. Empty when it cannot be told.
 */
function locate(e: unknown): string {
  if ((typeof e !== 'object' && typeof e !== 'function') || e === null || NATIVE_STACK === undefined) return '';
  const stack = getOwnPropertyDescriptor(e, 'stack'), message = getOwnPropertyDescriptor(e, 'message');
  if (stack?.get !== NATIVE_STACK || (message !== undefined && !('value' in message)) || !hasSafeName(e)) return '';
  const text: unknown = NATIVE_STACK.call(e);
  if (typeof text !== 'string') return '';
  const frame = /\(?file:\/\/[^\n]*?:(\d+):(\d+)\)?\n?/.exec(text.slice(text.indexOf('\n    at ')));
  return frame ? frame[1] + ':' + frame[2] : '';
}

function fail(s: string, error: string): string {
  return stringify({ s, error, logs });
}

function encode(value: unknown, maxOut: number): string {
  if (value === undefined) return stringify({ s: 'undefined', logs });
  if (value === null) return stringify({ s: 'null', logs });
  if (typeof value !== 'object') return fail('invalid', 'returned a ' + typeof value + '; expected an object, null or undefined');
  if (isArray(value)) return fail('invalid', 'returned an array; expected an object, null or undefined');
  const ks = keys(value);
  if (ks.length > MAX_FIELDS) return fail('invalid', 'returned an object with ' + ks.length + ' fields');
  const out = create(null) as Bag;
  let size = 2;
  for (const k of ks) {
    const v = primitiveString((value as Bag)[k]), t = typeof v;
    if (v === undefined) continue;
    if (t !== 'string' && t !== 'number' && t !== 'boolean') {
      return fail('invalid', 'field "' + k.slice(0, 64) + '" is ' + (v === null ? 'null' : 'a ' + t) + '; expected a string, number or boolean');
    }
    size += k.length + (t === 'string' ? (v as string).length : 24) + 6;
    if (size > maxOut) return fail('too-large', 'result is larger than ' + maxOut + ' characters');
    out[k] = v;
  }
  const json = stringify(out);
  if (json.length > maxOut) return fail('too-large', 'result is larger than ' + maxOut + ' characters');
  return stringify({ s: 'value', json, logs });
}

/** The module's namespace and the export to call, or the JSON error answer of bind. */
function chooseExport(factory: () => unknown, exportName: string): { fn: (input: unknown) => unknown; name: string; ns: Bag } | string {
  let ns: unknown;
  try { ns = factory(); } catch (e) { return stringify({ s: 'error', error: 'module top level threw: ' + describe(e) }); }
  const names = exportName ? [exportName] : ['default', 'transform'];
  const exports = ns as Bag;
  const chosen = names.find((n) => ns !== null && typeof ns === 'object' && typeof exports[n] === 'function');
  if (chosen === undefined) {
    return stringify({ s: 'error', error: exportName ? 'export "' + exportName + '" is not a function'
      : 'no default export and no "transform" export that is a function' });
  }
  return { fn: exports[chosen] as (input: unknown) => unknown, name: chosen, ns: exports };
}

function encodeExamples(list: unknown): string {
  if (list === undefined) return '[]';
  if (!isArray(list)) throw 'the "examples" export must be an array';
  const out: unknown[] = [];
  for (let i = 0; i < list.length; i++) {
    const ex: unknown = list[i];
    if (typeof ex !== 'object' || ex === null) throw 'examples[' + i + '] must be an object';
    const { name, input, expect } = ex as Bag;
    const kind = expect === undefined ? 'undefined' : expect === null ? 'null' : 'value';
    out.push({ name: typeof name === 'string' ? name : 'example ' + (i + 1), input, expectKind: kind, expect });
  }
  return stringify(out);
}
