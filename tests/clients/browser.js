#!/usr/bin/env node
/* Drives headless Chromium (puppeteer-core) for tests/test_clients_browser.py.
 *
 * Argument: JSON {chromium, visits: [{url, calls: [{fn, args}], ready, inject,
 * screenshot, fullcalendar}]}. Each visit opens `url` in a fresh browser context,
 * waits for the page's promise `window[ready]` when given, runs each call as
 * `window.calendarProbe[fn](...args)` in the page, and reports what happened. `inject`
 * ({prefix, headers}) adds headers to every request whose URL starts with `prefix`,
 * standing for credentials the browser would attach by itself (cached HTTP auth).
 * Prints one line of JSON: {visits: [{calls, console, pageErrors, failed, responses,
 * fullcalendar}]}.
 */
'use strict';

const puppeteer = require('puppeteer-core');

const TIMEOUT = 20000;

async function visit(browser, plan) {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  await page.setViewport({ width: 1200, height: 900 });
  const seen = { calls: [], console: [], pageErrors: [], failed: [], responses: [] };
  page.on('console', (message) => seen.console.push(`${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) => seen.pageErrors.push(String(error)));
  page.on('requestfailed', (request) => {
    const failure = request.failure();
    seen.failed.push({
      method: request.method(),
      url: request.url(),
      error: failure ? failure.errorText : null,
    });
  });
  page.on('response', (response) => {
    seen.responses.push({
      method: response.request().method(),
      url: response.url(),
      status: response.status(),
    });
  });
  if (plan.inject) {
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      if (request.url().startsWith(plan.inject.prefix)) {
        request.continue({ headers: { ...request.headers(), ...plan.inject.headers } });
      } else {
        request.continue();
      }
    });
  }
  try {
    await page.goto(plan.url, { waitUntil: 'load' });
    if (plan.ready) {
      await page.waitForFunction((name) => window[name] !== undefined, {}, plan.ready);
      await page.evaluate((name) => window[name], plan.ready);
    }
    for (const step of plan.calls || []) {
      seen.calls.push(
        await page.evaluate(
          (fn, args) => window.calendarProbe[fn](...args),
          step.fn,
          step.args || [],
        ),
      );
    }
    if (plan.fullcalendar) {
      seen.fullcalendar = await page.evaluate(() => ({
        viewTitle: document.querySelector('.fc-toolbar-title')?.textContent ?? null,
        titles: [...document.querySelectorAll('.fc-event-title')].map((node) => node.textContent),
        state: window.calendarState,
      }));
    }
    if (plan.screenshot) {
      await page.screenshot({ path: plan.screenshot, fullPage: true });
    }
  } finally {
    await context.close();
  }
  return seen;
}

async function main() {
  const plan = JSON.parse(process.argv[2]);
  const browser = await puppeteer.launch({
    executablePath: plan.chromium,
    headless: true,
    // root in a container: no sandbox; no GPU; /dev/shm may be small
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
    timeout: TIMEOUT,
  });
  try {
    const visits = [];
    for (const planned of plan.visits) {
      visits.push(await visit(browser, planned));
    }
    process.stdout.write(JSON.stringify({ visits }) + '\n');
  } finally {
    await browser.close();
  }
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error) + '\n');
  process.exit(1);
});
