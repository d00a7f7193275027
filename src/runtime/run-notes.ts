/** At most this many notes are kept per run, each cut to MAX_NOTE_CHARS: a chatty provider cannot grow a run's row. */
export const MAX_RUN_NOTES = 10;
export const MAX_NOTE_CHARS = 300;

export interface NoteCollector {
  /** Handed to the provider as CompletionRequest.note. */
  add: (text: string) => void;
  /** The notes in the order they came, without repeats. */
  list: () => string[];
}

/** The notes of one run attempt, recorded with its end (RunFinish.notes). */
export function collectNotes(): NoteCollector {
  const notes: string[] = [];
  return {
    add(text) {
      const note = text.length > MAX_NOTE_CHARS ? `${text.slice(0, MAX_NOTE_CHARS - 1)}…` : text;
      if (note.trim() === '' || notes.length >= MAX_RUN_NOTES || notes.includes(note)) return;
      notes.push(note);
    },
    list: () => [...notes],
  };
}
