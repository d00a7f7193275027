import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';

/** Debian's chromium package; CHROMIUM_PATH overrides. */
export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

/**
 * Whether the browser suite runs here, or why not. HOOKGATE_BROWSER_TESTS=1 (set by .ci/run) makes
 * a missing browser a failure instead of a skip.
 */
export function browserAvailability(): { run: true } | { run: false; reason: string } {
  if (existsSync(CHROMIUM)) return { run: true };
  const reason = `no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`;
  if (process.env['HOOKGATE_BROWSER_TESTS'] === '1') throw new Error(`HOOKGATE_BROWSER_TESTS=1 but ${reason}`);
  return { run: false, reason };
}

export interface LaunchedBrowser {
  browser: Browser;
  close(): Promise<void>;
}

/**
 * Headless Chromium with everything that would reach for the network turned off (this machine has
 * none: a component update or sync would hang the start), in a fresh profile removed at close.
 */
export async function launchChromium(): Promise<LaunchedBrowser> {
  const { default: puppeteer } = await import('puppeteer-core');
  const profile = mkdtempSync(join(tmpdir(), 'hookgate-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    timeout: 30_000,
    protocolTimeout: 30_000,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
      `--user-data-dir=${profile}`,
      '--window-size=1280,900',
    ],
    defaultViewport: { width: 1280, height: 900 },
  });
  return {
    browser,
    async close() {
      const child = browser.process();
      await Promise.race([browser.close(), new Promise((resolve) => setTimeout(resolve, 5000))]).catch(() => undefined);
      if (child !== null && child.exitCode === null) child.kill('SIGKILL');
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Screenshots land in test-artifacts/console/ (git-ignored); HOOKGATE_UPDATE_SCREENSHOTS=1 also copies them to docs/console/. */
export async function screenshot(page: Page, name: string): Promise<void> {
  const artifacts = join(process.cwd(), 'test-artifacts', 'console');
  mkdirSync(artifacts, { recursive: true });
  const file = join(artifacts, `${name}.png`);
  await page.screenshot({ path: file as `${string}.png`, fullPage: true });
  if (process.env['HOOKGATE_UPDATE_SCREENSHOTS'] === '1') {
    const docs = join(process.cwd(), 'docs', 'console');
    mkdirSync(docs, { recursive: true });
    copyFileSync(file, join(docs, `${name}.png`));
  }
}

/** A page of the browser, logged in to the console at `consoleUrl` with the gateway token, as a user does it. */
export async function loggedInPage(chromium: LaunchedBrowser, consoleUrl: string, token: string): Promise<Page> {
  const page = await chromium.browser.newPage();
  page.setDefaultTimeout(15_000);
  await page.goto(consoleUrl, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('form[data-testid="login"]');
  await page.type('input[name="token"]', token);
  await page.click('button[type="submit"]');
  await page.waitForSelector('nav .brand');
  return page;
}
