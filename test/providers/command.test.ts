import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commandProvider, renderPrompt, type CommandConfig } from '../../src/providers/command.js';
import { silentLogger } from '../../src/log.js';
import type { CompletionRequest, Provider } from '../../src/providers/types.js';
import { isGone, killQuietly, waitUntil } from './process-helpers.js';
import { failure } from './failure.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/providers/', import.meta.url));
const deps = { fetch: globalThis.fetch, logger: silentLogger() };

let dir: string;
const spawned = new Set<number>();
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hookgate-command-'));
});
afterEach(() => {
  // A test that failed before reading the fixture's pid file still cleans up what it recorded.
  const pidFile = join(dir, 'pids.json');
  if (existsSync(pidFile)) readPids(pidFile);
  killQuietly(spawned);
  spawned.clear();
  rmSync(dir, { recursive: true, force: true });
});

function fixture(name: string, extra: Partial<CommandConfig> = {}): Provider {
  return commandProvider.create('local', { api: 'command', command: [process.execPath, join(FIXTURES, name)], ...extra }, deps);
}

function request(overrides: Partial<CompletionRequest> = {}): CompletionRequest {
  return {
    model: 'my-model',
    messages: [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hello\nworld' },
      { role: 'assistant', content: 'hi' },
      { role: 'user', content: 'again' },
    ],
    signal: new AbortController().signal,
    ...overrides,
  };
}


function readPids(file: string): { pid: number; grandchild: number } {
  const pids = JSON.parse(readFileSync(file, 'utf8')) as { pid: number; grandchild: number };
  spawned.add(pids.pid).add(pids.grandchild);
  return pids;
}

describe('command provider', () => {
  it('renders messages as role blocks separated by blank lines', () => {
    expect(renderPrompt(request(), 'text')).toBe('System: be brief\n\nUser: hello\nworld\n\nAssistant: hi\n\nUser: again\n');
  });

  it('renders messages as one JSON line with model and thinking when input is json', () => {
    const line = renderPrompt(request({ thinking: 'low' }), 'json');
    expect(line.endsWith('\n')).toBe(true);
    expect(line.trimEnd()).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({ model: 'my-model', thinking: 'low', messages: request().messages });
  });

  it('feeds the prompt on stdin and replies with trimmed stdout, with model, thinking, env and cwd applied', async () => {
    process.env['FIXTURE_INHERITED'] = 'from-parent';
    try {
      const provider = fixture('reflect.mjs', { env: { FIXTURE_EXTRA: 'configured' }, cwd: dir });
      const { text } = await provider.complete(request({ thinking: 'high' }));
      expect(text.startsWith('{') && text.endsWith('}')).toBe(true);
      expect(JSON.parse(text)).toEqual({
        stdin: renderPrompt(request(), 'text'),
        model: 'my-model',
        thinking: 'high',
        extra: 'configured',
        inherited: 'from-parent',
        cwd: dir,
        args: [],
      });
    } finally {
      delete process.env['FIXTURE_INHERITED'];
    }
  });

  it('passes an empty HOOKGATE_THINKING and no parent variables when inheritEnv is false', async () => {
    process.env['FIXTURE_INHERITED'] = 'from-parent';
    try {
      const { text } = await fixture('reflect.mjs', { inheritEnv: false, input: 'json' }).complete(request());
      const reply = JSON.parse(text) as Record<string, unknown>;
      expect(reply['thinking']).toBe('');
      expect(reply['inherited']).toBeNull();
      expect(JSON.parse(reply['stdin'] as string)).toMatchObject({ model: 'my-model', thinking: null });
    } finally {
      delete process.env['FIXTURE_INHERITED'];
    }
  });

  it('passes argv as given, without a shell', async () => {
    const provider = commandProvider.create('local', { api: 'command', command: [process.execPath, join(FIXTURES, 'reflect.mjs'), '$HOME', 'a b', '; rm -rf /'] }, deps);
    const reply = JSON.parse((await provider.complete(request())).text) as { args: string[] };
    expect(reply.args).toEqual(['$HOME', 'a b', '; rm -rf /']);
  });

  it('does not fail when the program exits without reading a large prompt', async () => {
    const provider = commandProvider.create('local', { api: 'command', command: [process.execPath, '-e', "process.stdout.write('ok')"] }, deps);
    const big = request({ messages: [{ role: 'user', content: 'y'.repeat(4 * 1024 * 1024) }] });
    await expect(provider.complete(big)).resolves.toEqual({ text: 'ok' });
  });

  it('rejects a non-zero exit with reason process, the exit code and the end of stderr', async () => {
    const error = await failure(fixture('fail.mjs').complete(request()));
    expect(error.reason).toBe('process');
    expect(error.status).toBe(3);
    expect(error.message).toContain('exited with code 3');
    expect(error.message).toMatch(/the last line says why$/);
    expect(error.message).not.toContain('\n');
    expect(error.message.length).toBeLessThan(500 + 200);
  });

  it('rejects a program that cannot be started with reason process', async () => {
    const provider = commandProvider.create('local', { api: 'command', command: [join(dir, 'no-such-program')] }, deps);
    const error = await failure(provider.complete(request()));
    expect(error.reason).toBe('process');
    expect(error.message).toContain('ENOENT');
  });

  it('kills a program that writes more than maxOutputBytes and rejects with reason process', async () => {
    const error = await failure(fixture('flood.mjs', { maxOutputBytes: 100_000 }).complete(request()));
    expect(error.reason).toBe('process');
    expect(error.message).toContain('more than 100000 bytes');
  });

  it('on abort kills the whole process group, even a SIGTERM-ignoring program and its grandchild', async () => {
    const pidFile = join(dir, 'pids.json');
    const controller = new AbortController();
    const pending = fixture('hang-group.mjs', { env: { FIXTURE_PIDFILE: pidFile } }).complete(request({ signal: controller.signal }));
    await waitUntil(() => existsSync(pidFile), 10_000, 'the fixture to record its pids');
    const { pid, grandchild } = readPids(pidFile);
    expect(isGone(pid) || isGone(grandchild)).toBe(false);
    let settled = false;
    const error = failure(pending).finally(() => (settled = true));
    controller.abort();
    // Rejected from the abort itself (before the event loop's next turn), not once the group is dead:
    // the program never exits by itself and ignores SIGTERM.
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(true);
    expect((await error).reason).toBe('aborted');
    await waitUntil(() => isGone(pid) && isGone(grandchild), 15_000, 'both processes to die');
  });

  it('replies once the program exits even if it left a child holding stdout, and kills that child', async () => {
    const pidFile = join(dir, 'pids.json');
    // The grandchild would hold stdout open forever: an answer at all means the exit was enough.
    const { text } = await fixture('leave-child.mjs', { env: { FIXTURE_PIDFILE: pidFile } }).complete(request());
    expect(text).toBe('answered');
    const { grandchild } = readPids(pidFile);
    await waitUntil(() => isGone(grandchild), 15_000, 'the left-over child to die');
  });

  it('gives up with reason timeout after timeoutMs', async () => {
    const hang = commandProvider.create('local', { api: 'command', command: [process.execPath, '-e', 'setInterval(() => {}, 1000)'], timeoutMs: 300 }, deps);
    // The program never exits: only the provider's own timeout can end the call (reason and message say which).
    const error = await failure(hang.complete(request()));
    expect(error.reason).toBe('timeout');
    expect(error.message).toContain('300 ms');
  });

  it('rejects at once without starting anything when the signal is already aborted', async () => {
    const pidFile = join(dir, 'pids.json');
    const error = await failure(fixture('hang-group.mjs', { env: { FIXTURE_PIDFILE: pidFile } }).complete(request({ signal: AbortSignal.abort() })));
    expect(error.reason).toBe('aborted');
    expect(existsSync(pidFile)).toBe(false);
  });
});
