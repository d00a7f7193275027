import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import type { DebounceJoin } from '../../src/store/debounce-port.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import { agent } from '../store/helpers.js';

const CHILD = fileURLToPath(new URL('./support/fire-stored-groups.ts', import.meta.url));
const SOURCE_HOOKS = fileURLToPath(new URL('../../bin/source-hooks.js', import.meta.url));
/** The child's heap: far below what the stored group weighs, so loading it whole cannot fit. */
const HEAP_MB = 48;
const MEMBERS = 320;
const MEMBER_CHARS = 200_000;

function runChild(path: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`--max-old-space-size=${HEAP_MB}`, '--import', SOURCE_HOOKS, CHILD, path], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('a keep "all" group stored beyond the bounds (by a version without them)', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it(`fires after a restart in a process whose heap (${HEAP_MB} MB) is a fraction of the group (${(MEMBERS * MEMBER_CHARS) / 1e6} MB), with every delivery counted`, async () => {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-large-group-'));
    const path = join(dir, 'store.sqlite');
    const store = openSqliteStore({ path, synchronous: 'normal' }, { logger: silentLogger(), idempotencyTtlMs: 3_600_000, role: 'service' });
    const at = Date.now() - 120_000;
    // No bound, as an older version stored it: every delivery joins the one group, due long ago.
    const joinOf = (index: number): DebounceJoin => ({
      mappingId: 'sentry-digest',
      key: 'issue-1',
      action: { ...agent(`event ${index} ${'x'.repeat(MEMBER_CHARS)}`), envelope: { source: 'Webhook' } },
      windowMs: 1000,
      maxWaitMs: 60_000,
      keep: 'all',
      maxChars: 20_000,
      maxDeliveries: Number.MAX_SAFE_INTEGER,
      maxBytes: Number.MAX_SAFE_INTEGER,
    });
    let groupId = '';
    for (let batch = 0; batch < MEMBERS / 40; batch += 1) {
      const outcome = await store.debounce.join({ joins: Array.from({ length: 40 }, (_, index) => joinOf(batch * 40 + index)) }, at);
      groupId = outcome.kind === 'committed' ? (outcome.groups[0]?.groupId as string) : '';
    }
    expect(await store.debounce.view(groupId)).toMatchObject({ deliveries: MEMBERS });
    await store.close();

    const { code, stdout, stderr } = await runChild(path);
    expect({ code, stderr: stderr.slice(0, 500) }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(stdout)).toEqual({ runs: [groupId] });
    const db = new DatabaseSync(path, { readOnly: true });
    try {
      const { action } = db.prepare('SELECT action FROM runs WHERE run_id = ?').get(groupId) as { action: string };
      const message = (JSON.parse(action) as { message: string }).message;
      // The first delivery whole (longer than maxChars), the others counted.
      expect(message).toContain('event 0 ');
      expect(message.endsWith(`(${MEMBERS - 1} more not shown)`)).toBe(true);
      expect(db.prepare('SELECT COUNT(*) AS n FROM debounce_members').get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  }, 120_000);
});
