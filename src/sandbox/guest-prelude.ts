import { REGISTER_GLOBAL } from './bundle.js';

/**
 * The script every isolate context runs before any module code. Its completion value, `[call, bind]`,
 * is the only thing the worker holds a Reference to; guest code can reach neither them nor any
 * isolated-vm object. It freezes every intrinsic and the global object first, so nothing a call does
 * to globals or built-in prototypes survives into the next call (one context serves many calls: a
 * fresh context per call measured ~0.9 ms and leaked heap, see docs/transforms.md).
 *
 * Inside the guest, results and errors are turned into one JSON string, size-capped, before they
 * leave; thrown values are described from own data properties only, so no guest getter runs.
 */
export function guestPrelude(maxOutputChars: number): string {
  return `(() => {
'use strict';
const G = globalThis;
const { freeze, getPrototypeOf, getOwnPropertyDescriptor, defineProperty, keys, create } = Object;
const { ownKeys } = Reflect;
const stringify = JSON.stringify, parse = JSON.parse, isArray = Array.isArray, Str = String;
const MAX_OUT = ${maxOutputChars}, MAX_LINES = 20, MAX_LINE = 500, MAX_FIELDS = 64;

for (const name of ['WebAssembly', 'Atomics', 'SharedArrayBuffer', 'FinalizationRegistry', 'WeakRef']) delete G[name];
// Legacy RegExp statics ($1, lastMatch, …) would carry text of one payload into the next call.
for (const k of ownKeys(RegExp)) { const d = getOwnPropertyDescriptor(RegExp, k); if (d && d.get && k !== Symbol.species) delete RegExp[k]; }

let logs = [];
const line = (args) => {
  let out = '';
  for (let i = 0; i < args.length && out.length < MAX_LINE; i++) {
    let s;
    try { s = typeof args[i] === 'string' ? args[i] : (stringify(args[i]) ?? Str(args[i])); } catch { s = '[unprintable]'; }
    out += (i > 0 ? ' ' : '') + s;
  }
  return out.length > MAX_LINE ? out.slice(0, MAX_LINE) : out;
};
const log = (...args) => { if (logs.length < MAX_LINES) logs[logs.length] = line(args); };
defineProperty(G, 'console', { value: { log, info: log, warn: log, error: log, debug: log, trace: log } });

let factory, registered = false, fn;
defineProperty(G, '${REGISTER_GLOBAL}', { value: (f) => { if (!registered) { registered = true; factory = f; } } });

// Frozen prototypes make plain assignments of these names fail on objects that inherit them (the
// "override mistake"); an accessor that defines an own property instead keeps common code working.
const ownGetters = new Set();
const enable = (proto, names) => {
  for (const name of names) {
    const d = getOwnPropertyDescriptor(proto, name);
    if (!d || !('value' in d)) continue;
    const value = d.value, get = () => value;
    ownGetters.add(get);
    defineProperty(proto, name, { configurable: false, enumerable: d.enumerable, get,
      set(v) {
        if (this === proto) throw new TypeError('Cannot assign to ' + name + ' of a shared prototype');
        defineProperty(this, name, { value: v, writable: true, enumerable: true, configurable: true });
      } });
  }
};
enable(Object.prototype, ['constructor', 'toString', 'valueOf', 'toLocaleString', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable']);
enable(Error.prototype, ['name', 'message', 'constructor', 'toString']);
enable(Function.prototype, ['constructor', 'toString']);

const hidden = [getPrototypeOf(function* () {}), getPrototypeOf(async function () {}), getPrototypeOf(async function* () {}),
  getPrototypeOf([][Symbol.iterator]()), getPrototypeOf(new Map()[Symbol.iterator]()), getPrototypeOf(new Set()[Symbol.iterator]()),
  getPrototypeOf(''[Symbol.iterator]()), getPrototypeOf(/a/[Symbol.matchAll](''))];
try { hidden.push(getPrototypeOf([].values().map((x) => x))); } catch {}
try { hidden.push(getPrototypeOf(Iterator.from({ next() { return { done: true }; } }))); } catch {}
try { const s = new Intl.Segmenter().segment(''); hidden.push(getPrototypeOf(s), getPrototypeOf(s[Symbol.iterator]())); } catch {}
const seen = new Set();
const stack = [G, ...hidden];
while (stack.length > 0) {
  const o = stack.pop();
  if ((typeof o !== 'object' && typeof o !== 'function') || o === null || seen.has(o)) continue;
  seen.add(o);
  freeze(o);
  stack.push(getPrototypeOf(o));
  for (const k of ownKeys(o)) { const d = getOwnPropertyDescriptor(o, k); if (d) stack.push(d.value, d.get, d.set); }
}

const nameOf = (e) => {
  for (let o = e, i = 0; o !== null && i < 8; o = getPrototypeOf(o), i++) {
    const d = getOwnPropertyDescriptor(o, 'name');
    if (!d) continue;
    const v = 'value' in d ? d.value : ownGetters.has(d.get) ? d.get() : undefined;
    return typeof v === 'string' ? v : '';
  }
  return '';
};
const describe = (e) => {
  if (typeof e === 'string') return e.slice(0, MAX_LINE);
  if ((typeof e !== 'object' && typeof e !== 'function') || e === null) return 'threw a ' + (e === null ? 'null' : typeof e);
  const d = getOwnPropertyDescriptor(e, 'message');
  if (!d || typeof d.value !== 'string') return 'threw a non-Error value';
  const name = nameOf(e);
  return ((name ? name + ': ' : '') + d.value).slice(0, MAX_LINE);
};
const fail = (s, error) => stringify({ s, error, logs });

const encode = (value) => {
  if (value === undefined) return stringify({ s: 'undefined', logs });
  if (value === null) return stringify({ s: 'null', logs });
  if (typeof value !== 'object') return fail('invalid', 'returned a ' + typeof value + '; expected an object, null or undefined');
  if (isArray(value)) return fail('invalid', 'returned an array; expected an object, null or undefined');
  const ks = keys(value);
  if (ks.length > MAX_FIELDS) return fail('invalid', 'returned an object with ' + ks.length + ' fields');
  const out = create(null);
  let size = 2;
  for (const k of ks) {
    const v = value[k], t = typeof v;
    if (v === undefined) continue;
    if (t !== 'string' && t !== 'number' && t !== 'boolean') {
      return fail('invalid', 'field "' + k.slice(0, 64) + '" is ' + (v === null ? 'null' : 'a ' + t) + '; expected a string, number or boolean');
    }
    size += k.length + (t === 'string' ? v.length : 24) + 6;
    if (size > MAX_OUT) return fail('too-large', 'result is larger than ' + MAX_OUT + ' characters');
    out[k] = v;
  }
  const json = stringify(out);
  if (json.length > MAX_OUT) return fail('too-large', 'result is larger than ' + MAX_OUT + ' characters');
  return stringify({ s: 'value', json, logs });
};

const call = async (inputJson) => {
  logs = [];
  let value;
  try { value = await fn(parse(inputJson)); } catch (e) { return fail('threw', describe(e)); }
  try { return encode(value); } catch (e) { return fail('invalid', 'result could not be read: ' + describe(e)); }
};

const encodeExamples = (list) => {
  if (list === undefined) return '[]';
  if (!isArray(list)) throw 'the "examples" export must be an array';
  const out = [];
  for (let i = 0; i < list.length; i++) {
    const ex = list[i];
    if (typeof ex !== 'object' || ex === null) throw 'examples[' + i + '] must be an object';
    const kind = ex.expect === undefined ? 'undefined' : ex.expect === null ? 'null' : 'value';
    out.push({ name: typeof ex.name === 'string' ? ex.name : 'example ' + (i + 1), input: ex.input, expectKind: kind, expect: ex.expect });
  }
  return stringify(out);
};

const bind = (exportName) => {
  if (typeof factory !== 'function') return stringify({ s: 'error', error: 'the bundle did not register a module' });
  let ns;
  try { ns = factory(); } catch (e) { return stringify({ s: 'error', error: 'module top level threw: ' + describe(e) }); }
  factory = undefined;
  const names = exportName ? [exportName] : ['default', 'transform'];
  const chosen = names.find((n) => ns !== null && typeof ns === 'object' && typeof ns[n] === 'function');
  if (chosen === undefined) {
    return stringify({ s: 'error', error: exportName ? 'export "' + exportName + '" is not a function'
      : 'no default export and no "transform" export that is a function' });
  }
  fn = ns[chosen];
  try { return stringify({ s: 'ok', exportName: chosen, examples: encodeExamples(ns.examples) }); }
  catch (e) { return stringify({ s: 'error', error: describe(e) }); }
};
return [call, bind];
})()`;
}
