import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HookError } from '../../src/errors.js';
import { digestForLog } from '../../src/log-digest.js';
import { input, startRunner, type TestRunner } from './helpers.js';

/*
 * A transform's error text can quote the payload. The `transform.failed` line carries the error's
 * name, where in the module it was thrown and a digest; the text itself only reaches the HookError's
 * cause, which `hookgate try` and the console's playground show.
 */

const SECRET = 'payload-secret-4711';
let t: TestRunner;

beforeAll(() => {
  t = startRunner();
});

afterAll(async () => {
  await t.close();
});

async function failure(name: string, payload: unknown): Promise<{ line: Record<string, unknown>; cause: string }> {
  const handle = await t.runner.load({ module: 'leaks.js', export: name });
  const error = await t.runner.run(handle, input(payload)).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(HookError);
  const line = t.logs.filter((entry) => entry['event'] === 'transform.failed').at(-1) ?? {};
  return { line, cause: String(((error as HookError).cause as Error | undefined)?.message) };
}

describe('transform.failed never carries the error text', () => {
  it('logs the name, the source line and a digest of an Error whose message is the payload', async () => {
    const { line, cause } = await failure('stringifies', { secret: SECRET });
    expect(JSON.stringify(t.logs)).not.toContain(SECRET);
    expect(line).toMatchObject({ module: 'leaks.js#stringifies', reason: 'threw', error: 'Error', at: 'leaks.js:3:9' });
    expect(cause).toContain(SECRET);
    expect(line['detail']).toEqual(digestForLog(`Error: ${JSON.stringify({ secret: SECRET })}`));
  });

  it("keeps V8's JSON.parse message, which quotes its input, out of the log and names the module's line", async () => {
    const { line, cause } = await failure('parses', { raw: `{"token": "${SECRET}"` });
    expect(JSON.stringify(t.logs)).not.toContain(SECRET);
    expect(line).toMatchObject({ reason: 'threw', error: 'SyntaxError', at: 'leaks.js:6:39' });
    expect(cause).toMatch(/SyntaxError/);
  });

  it('says what type a thrown non-error had', async () => {
    const { line, cause } = await failure('throwsString', { secret: SECRET });
    expect(JSON.stringify(t.logs)).not.toContain(SECRET);
    expect(line).toMatchObject({ reason: 'threw', error: 'string' });
    expect(line).not.toHaveProperty('at');
    expect(cause).toContain(SECRET);
  });

  it('runs no getter of the thrown error to find the line, and still keeps its text out', async () => {
    const { line } = await failure('messageGetter', { secret: SECRET });
    expect(JSON.stringify(t.logs)).not.toContain(SECRET);
    expect(line).toMatchObject({ reason: 'threw', error: 'Error' });
    expect(line).not.toHaveProperty('at');
  });
});
