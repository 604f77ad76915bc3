#!/usr/bin/env node
/* Runs Lighthouse (mobile emulation, its default) on pages for tests/test_site_clients.py.
 *
 * Argument: JSON {chromium, pages: [{name, url}], categories, reports}. Each page gets a
 * fresh headless Chromium (the Debian one, launched by Lighthouse's chrome-launcher);
 * the JSON report of each page is saved as `<reports>/<name>.lighthouse.json` when
 * `reports` is given. Prints one line of JSON: {lighthouse, pages: [{name, url, scores,
 * failing}]}: the category scores (0 to 100) and, per category, the audits that lost
 * points, so that a low score says why.
 */
'use strict';

const fs = require('fs');
const path = require('path');

const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'];

async function audit(lighthouse, launcher, plan, entry, categories) {
  const chrome = await launcher.launch({
    chromePath: plan.chromium,
    // root in a container: no sandbox; no GPU; /dev/shm may be small
    chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  try {
    const result = await lighthouse(entry.url, {
      port: chrome.port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: categories,
    });
    const { lhr } = result;
    if (plan.reports) {
      fs.mkdirSync(plan.reports, { recursive: true });
      fs.writeFileSync(path.join(plan.reports, `${entry.name}.lighthouse.json`), result.report);
    }
    const scores = {};
    const failing = {};
    for (const id of categories) {
      const category = lhr.categories[id];
      scores[id] = category.score === null ? null : Math.round(category.score * 100);
      failing[id] = category.auditRefs
        .filter((ref) => ref.weight > 0)
        .map((ref) => lhr.audits[ref.id])
        .filter((result) => result.score !== null && result.score < 1)
        .map((result) => `${result.id} (${result.score}): ${result.displayValue || result.title}`);
    }
    return {
      name: entry.name,
      url: entry.url,
      finalUrl: lhr.finalDisplayedUrl,
      runtimeError: lhr.runtimeError ? lhr.runtimeError.message : null,
      formFactor: lhr.configSettings.formFactor,
      scores,
      failing,
    };
  } finally {
    await chrome.kill();
  }
}

async function main() {
  const plan = JSON.parse(process.argv[2]);
  const { default: lighthouse } = await import('lighthouse');
  const launcher = await import('chrome-launcher');
  const { version } = JSON.parse(
    fs.readFileSync(require.resolve('lighthouse/package.json'), 'utf8'),
  );
  const pages = [];
  for (const entry of plan.pages) {
    pages.push(await audit(lighthouse, launcher, plan, entry, entry.categories || CATEGORIES));
  }
  process.stdout.write(JSON.stringify({ lighthouse: version, pages }) + '\n');
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error) + '\n');
  process.exit(1);
});
