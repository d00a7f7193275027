import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../helpers/service.js';
import { until } from '../helpers/wait.js';
import { browserAvailability, launchChromium, loggedInPage, screenshot, type LaunchedBrowser } from './browser.js';
import { GATEWAY_TOKEN, post, startConsoleService } from './support.js';

// The callbacks given to page.evaluate and friends run in the page; the test program has no DOM types.
declare const document: { querySelectorAll(selector: string): ArrayLike<{ textContent: string | null }> };
declare const location: { hash: string };

const availability = browserAvailability();

/** Debounce groups open for the whole test (an hour's window), and one run that is not debounced. */
describe.skipIf(!availability.run)('pending runs on the console\'s Runs page (headless Chromium)', { timeout: 60_000 }, () => {
  let svc: TestService;
  let chromium: LaunchedBrowser;
  let page: Page;
  let groups: string[];
  let ranId: string;

  beforeAll(async () => {
    svc = await startConsoleService({
      hooks: {
        mappings: [
          { id: 'ci', match: { path: 'ci' }, action: 'agent', name: 'CI', messageTemplate: 'Build {{build}} of {{branch}}', debounce: { key: '{{branch}}', windowSeconds: 3600 } },
        ],
      },
    });
    const answers = [];
    for (const [branch, build] of [['main', 1], ['main', 2], ['main', 3], ['feature-x', 1]] as const) answers.push(await post(`${svc.hooksUrl}/ci`, { branch, build }));
    expect(answers.map((answer) => answer.status)).toEqual([202, 202, 202, 202]);
    groups = [answers[0]?.body.runId as string, answers[3]?.body.runId as string];
    ranId = (await post(`${svc.hooksUrl}/agent`, { message: 'not debounced', name: 'Direct', deliver: false })).body.runId;
    await until(() => !['queued', 'running'].includes(String(svc.db.prepare('SELECT status FROM runs WHERE run_id = ?').get(ranId)?.['status'])), 20_000);
    chromium = await launchChromium();
    page = await loggedInPage(chromium, `${svc.url}/console`, GATEWAY_TOKEN);
  }, 90_000);

  afterAll(async () => {
    await chromium?.close();
    await svc?.close();
  });

  const rowTexts = (selector: string): Promise<string[]> => page.evaluate((s) => Array.from(document.querySelectorAll(s), (row) => row.textContent ?? ''), selector);

  it('lists each pending run first, with its deliveries so far and when it fires, then the runs', async () => {
    await page.evaluate(() => {
      location.hash = '#/runs';
    });
    await page.waitForSelector('tr[data-testid="pending-run"]');
    const pending = await rowTexts('tr[data-testid="pending-run"]');
    expect(pending).toHaveLength(2);
    const main = pending.find((row) => row.includes(groups[0] as string));
    expect(main).toMatch(/pending/);
    expect(main).toMatch(/CI/);
    expect(main).toMatch(/3 deliveries so far; fires \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ/);
    expect(pending.find((row) => row.includes(groups[1] as string))).toMatch(/1 delivery so far; fires /);
    const all = await rowTexts('table[data-testid="runs"] tbody tr');
    expect(all.slice(0, 2)).toEqual(pending);
    expect(all.slice(2).some((row) => row.includes(ranId))).toBe(true);
    await screenshot(page, 'runs-pending');
  });

  it('lets the Status filter choose the pending runs, and no other status shows them', async () => {
    await page.select('select[name="status"]', 'pending');
    await page.waitForFunction(() => document.querySelectorAll('table[data-testid="runs"] tbody tr').length === 2 && document.querySelectorAll('tr[data-testid="pending-run"]').length === 2);
    await page.select('select[name="status"]', 'queued');
    await page.waitForFunction(() => document.querySelectorAll('tr[data-testid="pending-run"]').length === 0);
    expect(await rowTexts('table[data-testid="runs"] tbody tr')).toEqual([]);
    await page.select('select[name="status"]', '');
    await page.waitForFunction(() => document.querySelectorAll('tr[data-testid="pending-run"]').length === 2);
  });

  it('opens a pending run from the list', async () => {
    await page.click(`tr[data-testid="pending-run"] a[href="#/runs/${groups[0]}"]`);
    await page.waitForSelector('[data-testid="pending"]');
    expect((await rowTexts('[data-testid="deliveries"]'))[0]).toBe('3');
  });
});
