import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { ApiError, post } from '../api.js';

const EXAMPLE = '{\n  "source": "example",\n  "text": "hello from the playground"\n}';

/** `hookgate try` in the browser: the engine in force explains a payload; nothing is stored or run. */
export function PlaygroundPage({ onUnauthorized }: { onUnauthorized: () => void }) {
  const [hook, setHook] = useState('');
  const [payload, setPayload] = useState(EXAMPLE);
  const [headers, setHeaders] = useState('');
  const [result, setResult] = useState<{ text: string; prompts: string[] } | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const submit = async (e: Event) => {
    e.preventDefault();
    try {
      const body = { hook, payload: parseJson(payload, 'payload'), headers: headers.trim() === '' ? {} : parseJson(headers, 'headers') };
      const answer = await post<{ text: string; explanation: { prompts: string[] } }>('playground', body);
      setResult({ text: answer.text, prompts: answer.explanation.prompts });
      setError(undefined);
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 401) return onUnauthorized();
      setError((caught as Error).message);
      setResult(undefined);
    }
  };
  return html`<section>
    <h1>Playground</h1>
    <p class="muted">What <code>hookgate try</code> shows: the mappings considered and why, what the winner rendered, and the exact prompt with its envelope. Nothing is stored, run or delivered.</p>
    <form class="stack" onSubmit=${submit}>
      <label>Hook name <input name="hook" required value=${hook} placeholder="github" onInput=${(e: Event) => setHook((e.target as HTMLInputElement).value)} /></label>
      <label>Payload (JSON) <textarea name="payload" rows="8" value=${payload} onInput=${(e: Event) => setPayload((e.target as HTMLTextAreaElement).value)}></textarea></label>
      <label>Headers (optional JSON object) <textarea name="headers" rows="3" placeholder='{"x-github-event": "push"}' value=${headers} onInput=${(e: Event) => setHeaders((e.target as HTMLTextAreaElement).value)}></textarea></label>
      <p><button type="submit" class="primary">Try</button></p>
    </form>
    ${error === undefined ? null : html`<p class="error">${error}</p>`}
    ${result === undefined ? null : html`<h2>Result</h2><pre data-testid="playground-result">${result.text}</pre>`}
  </section>`;
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${what} is not JSON: ${(error as Error).message}`);
  }
}
