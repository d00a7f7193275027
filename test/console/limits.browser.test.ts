import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_TOKEN, type TestService } from '../helpers/service.js';
import { until } from '../helpers/wait.js';
import { browserAvailability, launchChromium, loggedInPage, type LaunchedBrowser } from './browser.js';
import { GATEWAY_TOKEN, post, startConsoleService } from './support.js';

declare const document: { querySelector(selector: string): { textContent: string | null } | null };
declare const location: { hash: string };

const availability = browserAvailability();
const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'console');

async function runOf(svc: TestService, runId: string): Promise<Record<string, unknown> | undefined> {
  const response = await fetch(`${svc.hooksUrl}/runs/${runId}`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
  return ((await response.json()) as { run?: Record<string, unknown> }).run;
}

describe.skipIf(!availability.run)('run limits in the console (headless Chromium)', { timeout: 60_000 }, () => {
  let svc: TestService;
  let chromium: LaunchedBrowser;
  let page: Page;
  let waitingRunId: string;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    svc = await startConsoleService({ agents: { defaults: { delivery: { channel: 'log' }, budget: { runsPerHour: 1 } } } });
    const first = await post(`${svc.hooksUrl}/agent`, { message: 'first' });
    await until(async () => (await runOf(svc, first.body.runId))?.['status'] === 'ok');
    waitingRunId = (await post(`${svc.hooksUrl}/agent`, { message: 'second', name: 'Budgeted' })).body.runId;
    await until(async () => (await runOf(svc, waitingRunId))?.['waitingFor'] === 'budget');
    chromium = await launchChromium();
    page = await loggedInPage(chromium, `${svc.url}/console`, GATEWAY_TOKEN);
  }, 90_000);

  afterAll(async () => {
    await chromium?.close();
    await svc?.close();
  });

  async function go(hash: string, ready: string): Promise<void> {
    await page.evaluate((target) => {
      location.hash = target;
    }, hash);
    await page.waitForSelector(ready);
  }

  it('shows the runs waiting and the budget on the overview', async () => {
    await go('#/overview', '[data-testid="limits"]');
    const card = await page.$eval('[data-testid="limits"]', (element) => element.textContent ?? '');
    expect(card).toContain('1 waiting for budget');
    expect(card).toContain('budget service per hour: 1 of 1 used, 0 left');
    await page.screenshot({ path: join(ARTIFACTS, 'limits-overview.png') as `${string}.png`, fullPage: true });
  });

  it('shows what a run waits for and until when, and starts it with Start now', async () => {
    await go(`#/runs/${waitingRunId}`, '[data-testid="waiting"]');
    expect(await page.$eval('[data-testid="waiting"]', (element) => element.textContent ?? '')).toMatch(/^waiting: budget, until \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/);
    await page.screenshot({ path: join(ARTIFACTS, 'limits-run.png') as `${string}.png`, fullPage: true });
    await page.click('button[data-testid="force-start"]');
    await page.waitForFunction(() => document.querySelector('[data-testid="run"] .badge')?.textContent === 'ok', { timeout: 20_000 });
    expect((await runOf(svc, waitingRunId))?.['status']).toBe('ok');
  });
});
