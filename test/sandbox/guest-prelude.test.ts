import ivm from 'isolated-vm';
import { afterEach, describe, expect, it } from 'vitest';
import { guestPrelude } from '../../src/sandbox/guest-prelude.js';

/** The prelude alone in an isolate, as the worker runs it: its completion value is [call, bind]. */
let isolate: ivm.Isolate | undefined;
afterEach(() => {
  isolate?.dispose();
  isolate = undefined;
});

async function startPrelude(maxOutputChars: number) {
  isolate = new ivm.Isolate({ memoryLimit: 32 });
  const context = await isolate.createContext();
  const script = await isolate.compileScript(guestPrelude({ maxOutputChars, registerGlobal: '__test_register' }));
  const pair = (await script.run(context, { reference: true })) as ivm.Reference<unknown[]>;
  const call = (await pair.get(0, { reference: true })) as ivm.Reference<(input: string) => Promise<string>>;
  const bind = (await pair.get(1, { reference: true })) as ivm.Reference<(name: string) => string>;
  const load = async (moduleSource: string): Promise<unknown> => {
    await (await isolate!.compileScript(`__test_register(function () { return ${moduleSource}; });`)).run(context);
    return JSON.parse((await bind.apply(undefined, [''], { result: { copy: true } })) as string);
  };
  const run = async (input: unknown): Promise<unknown> =>
    JSON.parse((await call.apply(undefined, [JSON.stringify(input)], { result: { promise: true, copy: true } })) as string);
  const evaluate = (code: string): Promise<unknown> => context.eval(code, { copy: true });
  return { load, run, evaluate };
}

describe('the guest prelude (type-checked source, bundled)', () => {
  it('receives the host options: the output cap it is given is the one it enforces', async () => {
    const guest = await startPrelude(40);
    expect(await guest.load('{ default: (input) => ({ message: input.text }) }')).toEqual({ s: 'ok', exportName: 'default', examples: '[]' });
    expect(await guest.run({ text: 'short' })).toEqual({ s: 'value', json: '{"message":"short"}', logs: [] });
    expect(await guest.run({ text: 'x'.repeat(40) })).toEqual({ s: 'too-large', error: 'result is larger than 40 characters', logs: [] });
  });

  it('leaves neither its bundle nor startGuest on the global object, and freezes it', async () => {
    const guest = await startPrelude(1000);
    expect(await guest.evaluate('typeof hookgateGuest + " " + typeof startGuest')).toBe('undefined undefined');
    expect(await guest.evaluate('Object.isFrozen(globalThis) && Object.isFrozen(Array.prototype)')).toBe(true);
    expect(await guest.evaluate('typeof WebAssembly + " " + typeof Atomics')).toBe('undefined undefined');
  });
});
