import { describe, expect, it } from 'vitest';
import { collectNotes, MAX_NOTE_CHARS, MAX_RUN_NOTES } from '../../src/runtime/run-notes.js';

describe('collectNotes', () => {
  it('keeps notes in order, once each, and leaves out blank ones', () => {
    const notes = collectNotes();
    for (const text of ['first', 'second', 'first', '  ']) notes.add(text);
    expect(notes.list()).toEqual(['first', 'second']);
  });

  it('keeps at most MAX_RUN_NOTES notes, each cut to MAX_NOTE_CHARS with an ellipsis', () => {
    const notes = collectNotes();
    notes.add('x'.repeat(MAX_NOTE_CHARS + 50));
    for (let i = 0; i < MAX_RUN_NOTES + 5; i += 1) notes.add(`note ${i}`);
    const list = notes.list();
    expect(list).toHaveLength(MAX_RUN_NOTES);
    expect(list[0]).toBe(`${'x'.repeat(MAX_NOTE_CHARS - 1)}…`);
    expect(list.at(-1)).toBe(`note ${MAX_RUN_NOTES - 2}`);
  });
});
