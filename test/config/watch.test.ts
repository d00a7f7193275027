import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { debounce, watchForReload } from '../../src/config/watch.js';
import { silentLogger } from '../../src/log.js';
import { until } from '../helpers/wait.js';

/**
 * The real watcher on real files. "Exactly once" is checked with a barrier: after the steps, one
 * more change; the count must then be the steps plus one. A step that fired twice (or a change
 * that fired late) shows up as one too many.
 */
describe('watchForReload', () => {
  let dir: string;
  let transforms: string;
  let changes: number;
  let stop: () => void;
  let root: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-watch-'));
    transforms = join(dir, 'transforms');
    mkdirSync(transforms);
    writeFileSync(join(dir, 'hookgate.json5'), '{}');
    writeFileSync(join(transforms, 't.js'), 'export default () => 1;\n');
    changes = 0;
    root = transforms;
    stop = watchForReload({ configPath: join(dir, 'hookgate.json5'), transformsDir: () => root, onChange: () => void (changes += 1), logger: silentLogger(), debounceMs: 100 });
  });
  afterEach(() => {
    stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const step = async (change: () => void): Promise<void> => {
    const before = changes;
    change();
    await until(() => changes > before);
  };
  const expectExactly = async (count: number): Promise<void> => {
    await step(() => writeFileSync(join(transforms, 'barrier.js'), `export default () => ${count};\n`));
    expect(changes).toBe(count + 1);
  };

  it('notices in-place writes after the file was replaced by rename (sed -i), every time', async () => {
    const file = join(transforms, 't.js');
    await step(() => execFileSync('sed', ['-i', 's/1/2/', file]));
    await step(() => writeFileSync(file, 'export default () => 3;\n'));
    await step(() => execFileSync('sed', ['-i', 's/3/4/', file]));
    await step(() => writeFileSync(file, 'export default () => 5;\n'));
    await expectExactly(4);
  });

  it('fires once for each way an editor saves: in place, rename over, delete + create', async () => {
    const file = join(transforms, 't.js');
    await step(() => writeFileSync(file, 'export default () => 2;\n'));
    await step(() => {
      writeFileSync(join(transforms, '.t.js.tmp'), 'export default () => 3;\n');
      renameSync(join(transforms, '.t.js.tmp'), file);
    });
    await step(() => {
      unlinkSync(file);
      writeFileSync(file, 'export default () => 4;\n');
    });
    await expectExactly(3);
  });

  it('fires for a new module file, a new subdirectory, and later edits inside that subdirectory', async () => {
    await step(() => writeFileSync(join(transforms, 'new.js'), 'export default () => 1;\n'));
    await step(() => {
      mkdirSync(join(transforms, 'lib', 'deep'), { recursive: true });
      writeFileSync(join(transforms, 'lib', 'deep', 'helper.js'), 'export const x = 1;\n');
    });
    await step(() => writeFileSync(join(transforms, 'lib', 'deep', 'helper.js'), 'export const x = 2;\n'));
    await step(() => execFileSync('sed', ['-i', 's/2/3/', join(transforms, 'lib', 'deep', 'helper.js')]));
    await expectExactly(4);
  });

  it('keeps watching a subdirectory that was removed and created again', async () => {
    mkdirSync(join(transforms, 'lib'));
    await step(() => writeFileSync(join(transforms, 'lib', 'a.js'), 'export const a = 1;\n'));
    await step(() => {
      rmSync(join(transforms, 'lib'), { recursive: true });
      mkdirSync(join(transforms, 'lib'));
      writeFileSync(join(transforms, 'lib', 'a.js'), 'export const a = 2;\n');
    });
    await step(() => writeFileSync(join(transforms, 'lib', 'a.js'), 'export const a = 3;\n'));
    await expectExactly(3);
  });

  it('watches the config file through its directory, also when it is replaced by rename, and ignores its neighbours', async () => {
    const config = join(dir, 'hookgate.json5');
    await step(() => writeFileSync(config, '{ a: 1 }'));
    await step(() => execFileSync('sed', ['-i', 's/1/2/', config]));
    // A store next to the config changes all the time: it must not reload anything.
    writeFileSync(join(dir, 'hookgate.sqlite-wal'), 'x');
    await step(() => writeFileSync(config, '{ a: 3 }'));
    await expectExactly(3);
  });
});

describe('watchForReload when a reload moves the transforms directory', () => {
  it('watches the new directory from the next change on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookgate-watch-'));
    const [first, second] = [join(dir, 'a'), join(dir, 'b')];
    mkdirSync(first);
    mkdirSync(second);
    let root = first;
    let changes = 0;
    const stop = watchForReload({ configPath: join(dir, 'hookgate.json5'), transformsDir: () => root, onChange: () => void (changes += 1), logger: silentLogger(), debounceMs: 100 });
    try {
      root = second; // what the reload of this config change will find
      writeFileSync(join(dir, 'hookgate.json5'), '{ hooks: { transformsDir: "./b" } }');
      await until(() => changes === 1);
      writeFileSync(join(second, 't.js'), 'export default () => 1;\n');
      await until(() => changes === 2);
    } finally {
      stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('debounce', () => {
  /** A clock the test moves by hand: timers fire when `advance` passes their time. */
  function manualClock() {
    let now = 0;
    let timers: Array<{ at: number; run: () => void }> = [];
    return {
      now: () => now,
      setTimeout: (run: () => void, ms: number) => {
        const timer = { at: now + ms, run };
        timers.push(timer);
        return timer;
      },
      clearTimeout: (timer: unknown) => void (timers = timers.filter((t) => t !== timer)),
      advance(ms: number) {
        now += ms;
        const due = timers.filter((t) => t.at <= now);
        timers = timers.filter((t) => t.at > now);
        for (const t of due) t.run();
      },
    };
  }

  it('fires once, a wait after the last trigger of a burst', () => {
    const clock = manualClock();
    let fired = 0;
    const debounced = debounce(() => (fired += 1), 100, clock);
    debounced.trigger();
    clock.advance(60);
    debounced.trigger();
    clock.advance(60);
    expect(fired).toBe(0);
    clock.advance(40);
    expect(fired).toBe(1);
    clock.advance(1000);
    expect(fired).toBe(1);
  });

  it('fires no later than four waits after a burst began, however long it goes on', () => {
    const clock = manualClock();
    let fired = 0;
    const debounced = debounce(() => (fired += 1), 100, clock);
    for (let elapsed = 0; elapsed < 400; elapsed += 50) {
      debounced.trigger();
      clock.advance(50);
    }
    expect(fired).toBe(1);
  });

  it('does not fire once cancelled', () => {
    const clock = manualClock();
    let fired = 0;
    const debounced = debounce(() => (fired += 1), 100, clock);
    debounced.trigger();
    debounced.cancel();
    clock.advance(1000);
    expect(fired).toBe(0);
  });
});
