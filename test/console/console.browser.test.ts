import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { HTTPResponse, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeService, type FakeService } from '../channels/fake-service.js';
import { failingProviderConfig } from '../helpers/failing-provider.js';
import { TEST_TOKEN, type TestService } from '../helpers/service.js';
import { until } from '../helpers/wait.js';
import { browserAvailability, launchChromium, type LaunchedBrowser } from './browser.js';
import { GATEWAY_TOKEN, post, startConsoleService } from './support.js';

// The callbacks given to page.evaluate and friends run in the page; the test program has no DOM types.
declare const document: { querySelector(selector: string): { textContent: string | null } | null; readonly cookie: string };
declare const location: { hash: string };

const availability = browserAvailability();
if (!availability.run) console.warn(`console browser tests skipped: ${availability.reason}`);

/** Screenshots land here (git-ignored); HOOKGATE_UPDATE_SCREENSHOTS=1 also copies them to docs/console/. */
const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'console');
const DOCS_IMAGES = join(process.cwd(), 'docs', 'console');
const RAW = 'RAW-PAYLOAD-MARKER-7f3a';

describe.skipIf(!availability.run)('the console in a real browser (headless Chromium)', { timeout: 60_000 }, () => {
  let svc: TestService;
  let model: FakeService;
  let chromium: LaunchedBrowser;
  let page: Page;
  let failedRunId: string;
  const apiBodies: string[] = [];
  const cspViolations: string[] = [];

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    model = await startFakeService(() => ({ status: 200, json: { choices: [{ index: 0, message: { role: 'assistant', content: 'all quiet' }, finish_reason: 'stop' }] } }));
    // `local/plain` takes no thinking level: a run asking for one gets a note.
    const { providers } = (failingProviderConfig() as { models: { providers: Record<string, unknown> } }).models;
    const local = { api: 'openai-completions', baseUrl: `${model.baseUrl}/v1`, models: [{ id: 'plain', reasoning: false }] };
    svc = await startConsoleService({ models: { providers: { ...providers, local } } });
    const failed = await post(`${svc.hooksUrl}/agent`, { message: 'compile the nightly report', name: 'Nightly report', model: 'broken/x' });
    failedRunId = failed.body.runId;
    await until(async () => runStatus(svc, failedRunId).then((status) => status === 'error'), 20_000);
    await post(`${svc.hooksUrl}/greet`, {}, { authorization: 'Bearer not-the-hook-token' }); // a refused request for the chart
    chromium = await launchChromium();
    page = await chromium.browser.newPage();
    page.setDefaultTimeout(15_000);
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) cspViolations.push(message.text());
    });
    page.on('response', (response: HTTPResponse) => {
      if (response.url().includes('/console/api/')) void response.text().then((text) => apiBodies.push(text), () => undefined);
    });
  }, 90_000);

  afterAll(async () => {
    await chromium?.close();
    await svc?.close();
    await model?.close();
  });

  async function shoot(name: string): Promise<void> {
    const file = join(ARTIFACTS, `${name}.png`);
    await page.screenshot({ path: file as `${string}.png`, fullPage: true });
    if (process.env['HOOKGATE_UPDATE_SCREENSHOTS'] === '1') {
      mkdirSync(DOCS_IMAGES, { recursive: true });
      copyFileSync(file, join(DOCS_IMAGES, `${name}.png`));
    }
  }

  async function textOf(selector: string): Promise<string> {
    return page.$eval(selector, (element) => element.textContent ?? '');
  }

  async function go(hash: string, ready: string): Promise<void> {
    await page.evaluate((target) => {
      location.hash = target;
    }, hash);
    await page.waitForSelector(ready);
  }

  it('refuses a wrong token, then logs in with the gateway token and sets a strict session cookie', async () => {
    const response = await page.goto(`${svc.url}/console`, { waitUntil: 'domcontentloaded' });
    expect(response?.url()).toBe(`${svc.url}/console/`);
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    await page.waitForSelector('form[data-testid="login"]');
    await shoot('login');
    await page.type('input[name="token"]', 'not-the-token');
    await page.click('button[type="submit"]');
    await page.waitForSelector('[role="alert"]');
    expect(await textOf('[role="alert"]')).toContain('wrong token');
    await page.$eval('input[name="token"]', (input) => ((input as unknown as { value: string }).value = ''));
    await page.type('input[name="token"]', GATEWAY_TOKEN);
    await page.click('button[type="submit"]');
    await page.waitForSelector('nav .brand');
    const cookie = (await page.cookies()).find((c) => c.name === 'hookgate_console');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', secure: false, path: '/console' });
    expect(await page.evaluate(() => document.cookie)).toBe('');
  });

  it('shows the overview with the request chart and queue depths', async () => {
    await go('#/overview', '.chart svg');
    await page.waitForSelector('[data-testid="pending-events"]');
    await shoot('overview');
  });

  it('shows a webhook posted with fetch on the Requests page by itself (live update)', async () => {
    await go('#/requests', 'table[data-testid="requests"]');
    // The marker sits in a field no template uses: it can reach the page only if raw payloads leak.
    await post(`${svc.hooksUrl}/greet`, { who: 'Grace', note: RAW }, { 'x-github-delivery': 'delivery-77' });
    await page.waitForFunction(() => document.querySelector('table[data-testid="requests"] tbody')?.textContent?.includes('delivery-77') === true);
    const row = await textOf('table[data-testid="requests"] tbody tr');
    expect(row).toContain('greet');
    expect(row).toContain('greeter');
    expect(row).toContain('202');
    await shoot('requests');
  });

  it('opens the run from the Runs page and shows its summary', async () => {
    await go('#/runs', 'table[data-testid="runs"]');
    await page.waitForFunction(() => document.querySelector('table[data-testid="runs"] tbody')?.textContent?.includes('Greeter') === true);
    await until(() => page.evaluate(() => document.querySelector('table[data-testid="runs"] tbody tr')?.textContent?.includes('ok') === true), 20_000);
    await shoot('runs');
    await page.click('table[data-testid="runs"] tbody tr a');
    await page.waitForSelector('[data-testid="summary"]');
    await page.waitForFunction(() => document.querySelector('[data-testid="summary"]')?.textContent?.startsWith('Hook Greeter:') === true);
    expect(await textOf('[data-testid="run"]')).toContain('delivered via log');
    await shoot('run');
  });

  it('retries a failed run with the Retry button and shows the new run linked to it', async () => {
    await go(`#/runs/${failedRunId}`, 'button[data-testid="retry"]');
    expect(await textOf('[data-testid="run"]')).toContain('Nightly report');
    await page.click('button[data-testid="retry"]');
    await page.waitForFunction((id) => document.querySelector('[data-testid="run"]')?.textContent?.includes(`Retry of${id}`) === true, {}, failedRunId);
    const newRunId = await page.evaluate(() => decodeURIComponent(location.hash.split('/')[2] ?? ''));
    expect(newRunId).not.toBe(failedRunId);
    expect(svc.db.prepare('SELECT retry_of FROM runs WHERE run_id = ?').get(newRunId)).toEqual({ retry_of: failedRunId });
    // The retry runs the same action with the same always-failing provider: it ends in error again.
    await page.waitForFunction(() => document.querySelector('[data-testid="run"] .badge')?.textContent === 'error', { timeout: 20_000 });
    await shoot('retry');
    // In the runs list, the retried run's row links to the new run.
    await go('#/runs', '[data-testid="retried-by"]');
    expect(await textOf('[data-testid="retried-by"]')).toBe(`retried as ${newRunId}`);
  });

  it("shows a run's notes on its page", async () => {
    const noted = await post(`${svc.hooksUrl}/agent`, { message: 'anything new?', name: 'Noted', model: 'local/plain', thinking: 'high', deliver: false });
    await until(async () => runStatus(svc, noted.body.runId).then((status) => status === 'ok'), 20_000);
    await go(`#/runs/${noted.body.runId}`, '[data-testid="notes"] li');
    expect(await textOf('[data-testid="notes"]')).toBe('thinking "high" not sent: the catalog of provider "local" says model "plain" takes no thinking level (reasoning: false)');
    await shoot('run-notes');
  });

  it('shows the main session and the mappings', async () => {
    await go('#/main', 'table[data-testid="heartbeats"]');
    await shoot('main-session');
    await go('#/mappings', 'table[data-testid="mappings"]');
    expect(await textOf('table[data-testid="mappings"]')).toContain('Say hi to {{who}}');
    await shoot('mappings');
  });

  it('runs the playground and shows the enveloped prompt, storing nothing', async () => {
    const runsBefore = (svc.db.prepare('SELECT COUNT(*) AS n FROM runs').get() as { n: number }).n;
    await go('#/playground', 'form.stack');
    await page.type('input[name="hook"]', 'greet');
    await page.$eval('textarea[name="payload"]', (area) => {
      (area as unknown as { value: string }).value = '';
    });
    await page.type('textarea[name="payload"]', '{"who": "Ada Lovelace"}');
    await page.click('form.stack button[type="submit"]');
    await page.waitForSelector('[data-testid="playground-result"]');
    const result = await textOf('[data-testid="playground-result"]');
    expect(result).toContain('Say hi to Ada Lovelace');
    expect(result).toMatch(/<<<EXTERNAL_UNTRUSTED_CONTENT/);
    await shoot('playground');
    expect((svc.db.prepare('SELECT COUNT(*) AS n FROM runs').get() as { n: number }).n).toBe(runsBefore);
  });

  it('never put a token or a raw payload into the page or an API response, and broke no CSP rule', async () => {
    const html = await page.content();
    for (const secret of [GATEWAY_TOKEN, TEST_TOKEN, RAW]) {
      expect(html).not.toContain(secret);
      for (const body of apiBodies) expect(body).not.toContain(secret);
    }
    expect(apiBodies.length).toBeGreaterThan(5);
    expect(cspViolations).toEqual([]);
  });

  it('logs out: the API refuses the old session', async () => {
    await page.click('button.logout');
    await page.waitForSelector('form[data-testid="login"]');
    const status = await page.evaluate(async () => (await fetch('api/overview')).status);
    expect(status).toBe(401);
  });
});

async function runStatus(svc: TestService, runId: string): Promise<string | undefined> {
  const response = await fetch(`${svc.hooksUrl}/runs/${runId}`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
  return ((await response.json()) as { run?: { status: string } }).run?.status;
}
