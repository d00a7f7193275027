import { html } from 'htm/preact';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { get, post, setCsrf } from './api.js';
import { MainSessionPage } from './pages/main-session.js';
import { MappingsPage } from './pages/mappings.js';
import { OverviewPage } from './pages/overview.js';
import { PlaygroundPage } from './pages/playground.js';
import { RequestsPage } from './pages/requests.js';
import { RunPage } from './pages/run.js';
import { RunsPage } from './pages/runs.js';

const NAV = [
  ['overview', 'Overview'],
  ['requests', 'Requests'],
  ['runs', 'Runs'],
  ['main', 'Main session'],
  ['mappings', 'Mappings'],
  ['playground', 'Playground'],
] as const;

function useHashRoute(): string[] {
  const read = () => location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onChange = () => setRoute(read());
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

function Login({ onLoggedIn }: { onLoggedIn: () => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const submit = async (e: Event) => {
    e.preventDefault();
    try {
      const answer = await post<{ csrf: string }>('login', { token });
      setCsrf(answer.csrf);
      setToken('');
      onLoggedIn();
    } catch (caught) {
      setError((caught as Error).message);
    }
  };
  return html`<main class="login"><form onSubmit=${submit} data-testid="login">
    <h1>Hookgate console</h1>
    <label>Gateway token <input type="password" name="token" autocomplete="current-password" required value=${token} onInput=${(e: Event) => setToken((e.target as HTMLInputElement).value)} /></label>
    <p class="muted small">gateway.auth.token from the service's configuration (not the hook token).</p>
    <button type="submit" class="primary">Log in</button>
    ${error === undefined ? null : html`<p class="error" role="alert">${error}</p>`}
  </form></main>`;
}

function Page({ route, onUnauthorized }: { route: string[]; onUnauthorized: () => void }) {
  const [name, id] = route;
  if (name === 'runs' && id !== undefined) return html`<${RunPage} key=${id} runId=${id} onUnauthorized=${onUnauthorized} />`;
  switch (name) {
    case 'requests': return html`<${RequestsPage} onUnauthorized=${onUnauthorized} />`;
    case 'runs': return html`<${RunsPage} onUnauthorized=${onUnauthorized} />`;
    case 'main': return html`<${MainSessionPage} onUnauthorized=${onUnauthorized} />`;
    case 'mappings': return html`<${MappingsPage} onUnauthorized=${onUnauthorized} />`;
    case 'playground': return html`<${PlaygroundPage} onUnauthorized=${onUnauthorized} />`;
    default: return html`<${OverviewPage} onUnauthorized=${onUnauthorized} />`;
  }
}

function App() {
  const [state, setState] = useState<'checking' | 'out' | 'in'>('checking');
  const route = useHashRoute();
  useEffect(() => {
    get<{ csrf: string }>('session').then(
      (answer) => (setCsrf(answer.csrf), setState('in')),
      () => setState('out'),
    );
  }, []);
  const loggedOut = () => (setCsrf(undefined), setState('out'));
  if (state === 'checking') return html`<p class="muted">loading…</p>`;
  if (state === 'out') return html`<${Login} onLoggedIn=${() => setState('in')} />`;
  const logout = async () => {
    await post('logout').catch(() => undefined);
    loggedOut();
  };
  const current = route[0] ?? 'overview';
  return html`<div class="shell">
    <nav>
      <span class="brand">Hookgate</span>
      ${NAV.map(([key, label]) => html`<a href=${`#/${key}`} class=${current === key ? 'active' : ''}>${label}</a>`)}
      <button type="button" class="logout" onClick=${logout}>Log out</button>
    </nav>
    <main><${Page} route=${route} onUnauthorized=${loggedOut} /></main>
  </div>`;
}

const root = document.getElementById('app');
if (root !== null) render(html`<${App} />`, root);
