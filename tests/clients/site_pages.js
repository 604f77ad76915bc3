#!/usr/bin/env node
/* Opens the site's pages in headless Chromium (puppeteer-core) for tests/test_site_clients.py.
 *
 * Argument: JSON {chromium, screenshots, widths, pages: [{name, url}]}. Each page is loaded
 * at every width (CSS pixels) with JavaScript on and off, each time in a fresh browser
 * context: what a person sees on a desktop and on a phone, with and without scripts.
 * For each load it reports the `data-event-id` values in document order, the rel=next and
 * rel=prev links (anchors and head links), axe-core's WCAG 2.1 A/AA violations, whether
 * the page scrolls sideways at 320 px (WCAG 1.4.10 reflow), and saves a full-page
 * screenshot as `<screenshots>/<name>-<width>-js-on|off.png`. With JavaScript on at the
 * first width it also follows the next and prev links and reports what they show.
 * Prints one line of JSON: {loads: [...]}.
 */
'use strict';

const fs = require('fs');
const path = require('path');
const puppeteer = require('puppeteer-core');

const TIMEOUT = 30000;
const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const REFLOW_WIDTH = 320;

/* What the page shows: its events in document order and its pagination links. */
function shown() {
  const links = (rel) =>
    [...document.querySelectorAll(`a[rel~="${rel}"][href], link[rel~="${rel}"][href]`)].map(
      (node) => node.href,
    );
  return {
    title: document.title,
    ids: [...document.querySelectorAll('[data-event-id]')].map((node) =>
      node.getAttribute('data-event-id'),
    ),
    next: [...new Set(links('next'))],
    prev: [...new Set(links('prev'))],
  };
}

async function axe(page) {
  // axe runs in an isolated evaluation: it works with the page's scripts switched off,
  // and the page's Content-Security-Policy is bypassed for the injection only
  await page.evaluate(AXE_SOURCE);
  const results = await page.evaluate(
    (tags) => window.axe.run(document, { runOnly: { type: 'tag', values: tags } }),
    AXE_TAGS,
  );
  return results.violations.map((violation) => ({
    id: violation.id,
    impact: violation.impact,
    help: violation.help,
    targets: violation.nodes.map((node) => node.target.join(' ')),
  }));
}

async function overflowsAt(page, width) {
  const viewport = page.viewport();
  await page.setViewport({ ...viewport, width });
  const sizes = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
  }));
  await page.setViewport(viewport);
  return sizes.scrollWidth > sizes.clientWidth ? sizes : null;
}

async function open(browser, url, width, javascript) {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  await page.setBypassCSP(true);
  await page.setJavaScriptEnabled(javascript);
  await page.setViewport({ width, height: 900 });
  const errors = { pageErrors: [], consoleErrors: [] };
  page.on('pageerror', (error) => errors.pageErrors.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.consoleErrors.push(message.text());
  });
  const response = await page.goto(url, { waitUntil: 'load' });
  if (!javascript) {
    // DevTools cannot evaluate while scripts are off: switch them back on for the probes
    // below without reloading, so the DOM stays the one built with scripts off (a script
    // skipped while parsing does not run later)
    await page.setJavaScriptEnabled(true);
  }
  return { context, page, errors, status: response ? response.status() : null };
}

async function load(browser, plan, entry, width, javascript) {
  const { context, page, errors, status } = await open(browser, entry.url, width, javascript);
  try {
    const seen = { name: entry.name, url: entry.url, width, javascript, status, ...errors };
    Object.assign(seen, await page.evaluate(shown));
    seen.axe = await axe(page);
    seen.overflow320 = await overflowsAt(page, REFLOW_WIDTH);
    const file = `${entry.name}-${width}-js-${javascript ? 'on' : 'off'}.png`;
    seen.screenshot = path.join(plan.screenshots, file);
    await page.screenshot({ path: seen.screenshot, fullPage: true });
    return seen;
  } finally {
    await context.close();
  }
}

async function follow(browser, width, links) {
  const followed = [];
  for (const [rel, url] of links) {
    const { context, page, status } = await open(browser, url, width, true);
    try {
      followed.push({ rel, url, status, ...(await page.evaluate(shown)) });
    } finally {
      await context.close();
    }
  }
  return followed;
}

async function main() {
  const plan = JSON.parse(process.argv[2]);
  fs.mkdirSync(plan.screenshots, { recursive: true });
  const browser = await puppeteer.launch({
    executablePath: plan.chromium,
    headless: true,
    // root in a container: no sandbox; no GPU; /dev/shm may be small
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
    timeout: TIMEOUT,
    protocolTimeout: TIMEOUT * 2,
  });
  try {
    const loads = [];
    for (const entry of plan.pages) {
      for (const width of plan.widths) {
        for (const javascript of [true, false]) {
          const seen = await load(browser, plan, entry, width, javascript);
          if (javascript && width === plan.widths[0]) {
            const links = [
              ...seen.next.map((url) => ['next', url]),
              ...seen.prev.map((url) => ['prev', url]),
            ];
            seen.followed = await follow(browser, width, links);
          }
          loads.push(seen);
        }
      }
    }
    process.stdout.write(JSON.stringify({ loads }) + '\n');
  } finally {
    await browser.close();
  }
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error) + '\n');
  process.exit(1);
});
