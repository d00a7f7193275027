import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, startTestService, type TestService } from '../helpers/service.js';
import { browserAvailability, launchChromium, loggedInPage, screenshot, type LaunchedBrowser } from './browser.js';
import { GATEWAY_TOKEN } from './support.js';

declare const location: { hash: string };

const RELAY_TOKEN = 'relay-token-laptop-0123456789';
const availability = browserAvailability();

describe.skipIf(!availability.run)('a relay target in the console (headless Chromium)', { timeout: 60_000 }, () => {
  let svc: TestService;
  let chromium: LaunchedBrowser;
  let page: Page;
  let runId: string;

  beforeAll(async () => {
    svc = await startTestService({ gateway: { auth: { token: GATEWAY_TOKEN } }, targets: { laptop: { kind: 'relay', tokens: [RELAY_TOKEN] } }, agents: { defaults: { forward: 'laptop' } } });
    runId = (await post(`${svc.hooksUrl}/agent`, { message: 'held' })).body.runId as string;
    await post(`${svc.hooksUrl}/agent`, { message: 'held too' });
    const pulled = await fetch(`${svc.hooksUrl}/relay/laptop/events?consumer=laptop-1&max=1`, { headers: { authorization: `Bearer ${RELAY_TOKEN}` } });
    expect(pulled.status).toBe(200);
    chromium = await launchChromium();
    page = await loggedInPage(chromium, `${svc.url}/console`, GATEWAY_TOKEN);
  }, 90_000);

  afterAll(async () => {
    await chromium?.close();
    await svc?.close();
  });

  it('shows the backlog, the leased events and the consumer on the overview, and a held run without Start now', async () => {
    await page.waitForSelector('[data-testid="relay-laptop"]');
    const card = await page.$eval('[data-testid="relay-laptop"]', (element) => element.textContent ?? '');
    expect(card).toMatch(/laptop: 2 waiting · 1 leased · oldest \d+ s old/);
    expect(card).toMatch(/consumers: laptop-1 \(\d+ s ago\)/);
    await screenshot(page, 'relay-overview');
    await page.evaluate((target) => {
      location.hash = target;
    }, `#/runs/${runId}`);
    await page.waitForSelector('[data-testid="waiting"]');
    expect(await page.$eval('[data-testid="waiting"]', (element) => element.textContent ?? '')).toBe('waiting: consumer');
    expect(await page.$('button[data-testid="force-start"]')).toBeNull();
  });
});
