import type { SqliteStoreSeams, WriterAccess } from '../../../src/store/sqlite/ingress.js';

/** The pragmas the faulty writer sets on its connection: a full disk, a read-only store. */
export type FaultPragma = 'max_page_count' | 'query_only';

/**
 * Fault injection into the SQLite adapter's writer thread, for tests only: pass `seams` to the
 * adapter (storeFixture, or `storeSeams: { sqlite: faults.seams }` of startService), then call
 * the methods. The writer thread then runs ./faulty-writer-thread.ts instead of the production entry.
 */
export interface WriterFaults {
  readonly seams: SqliteStoreSeams;
  /** Sets the pragma on the writer's connection and re-probes, so isWritable() reflects it at once. */
  pragma(name: FaultPragma, value: number | boolean): Promise<void>;
  /** The writer thread dies in its next commit, after writing its rows and before COMMIT. */
  crashDuringNextCommit(): Promise<void>;
  /** Ends the writer thread now. */
  terminateWriter(): Promise<void>;
  /** Commit transactions the writer acknowledged so far. */
  commitCount(): number;
}

export function writerFaults(): WriterFaults {
  let access: WriterAccess | undefined;
  const writer = (): WriterAccess => {
    if (access === undefined) throw new Error('the store was not opened with these seams');
    return access;
  };
  const expect = async (reply: Promise<{ type: string; message?: string }>, type: string): Promise<void> => {
    const answer = await reply;
    if (answer.type !== type) throw new Error(answer.message ?? `unexpected reply ${answer.type}`);
  };
  return {
    seams: {
      writerEntry: new URL('./faulty-writer-thread.ts', import.meta.url),
      onWriter: (given) => {
        access = given;
      },
    },
    pragma: (name, value) => expect(writer().request({ type: 'extension', name: 'pragma', value: { name, setting: value } }), 'probed'),
    crashDuringNextCommit: () => expect(writer().request({ type: 'extension', name: 'crash-next-commit' }), 'done'),
    terminateWriter: () => writer().terminate(),
    commitCount: () => writer().commitCount(),
  };
}
