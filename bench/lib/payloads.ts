/**
 * Request bodies of a given size (JSON-encoded length, ±1%): each is a realistic payload for its
 * endpoint, padded by a free-text field so the parse and store costs grow with the size.
 */
export type PayloadKind = 'wake' | 'agent' | 'template' | 'github';

export function payload(kind: PayloadKind, bytes: number): string {
  const base = shape(kind);
  const pad = Math.max(0, bytes - JSON.stringify(base('')).length);
  return JSON.stringify(base(filler(pad)));
}

function shape(kind: PayloadKind): (text: string) => unknown {
  switch (kind) {
    case 'wake':
      // next-heartbeat: the wake is queued for the periodic tick, so the runtime does no work meanwhile.
      return (text) => ({ text: `Disk almost full on build-7. ${text}`, mode: 'next-heartbeat' });
    case 'agent':
      // deliver false, next-heartbeat: admission is measured, not delivery or an immediate heartbeat.
      return (text) => ({ message: `Summarise this alert. ${text}`, name: 'Alert', deliver: false, wakeMode: 'next-heartbeat' });
    case 'template':
      return (text) => ({ sensor: 'greenhouse', value: 21.5, unit: '°C', note: text });
    case 'github':
      return (text) => ({
        action: 'opened',
        issue: {
          number: 42,
          title: 'Crash on start',
          body: text,
          html_url: 'https://github.com/acme/app/issues/42',
          user: { login: 'octocat', id: 1, type: 'User' },
          labels: [{ name: 'bug' }],
          state: 'open',
        },
        repository: { full_name: 'acme/app', private: false, html_url: 'https://github.com/acme/app' },
        sender: { login: 'octocat', id: 1 },
      });
  }
}

/** Word-like ASCII text: what a webhook's free text looks like, and nothing the envelope must rewrite. */
function filler(length: number): string {
  const words = 'the quick brown fox jumps over a lazy dog while build seven reports disk usage at ninety percent ';
  return words.repeat(Math.ceil(length / words.length)).slice(0, length);
}
