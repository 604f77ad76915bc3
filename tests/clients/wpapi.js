#!/usr/bin/env node
/* Drives node-wpapi against the service for tests/test_clients_wpapi.py.
 *
 * Argument: JSON {root, namespace, username, password, perPage, event: {title,
 * start_date, end_date}, update: {title}}. Discovers the site from `root`
 * (WPAPI.discover: HEAD or GET, the Link rel="https://api.w.org/", then the REST
 * index), walks the events with `_paging.next` anonymously and authenticated, then
 * creates, reads, updates and deletes (twice) an event through the namespace's route
 * handlers. Prints one line of JSON; an error is reported, never thrown.
 */
'use strict';

const WPAPI = require('wpapi');

const MAX_PAGES = 200;

function describe(error) {
  if (error && error.code && error.data) {
    return { code: error.code, status: error.data.status, message: error.message };
  }
  return {
    error: String(error),
    status: error && error.status,
    body: error && error.response ? error.response.text : undefined,
  };
}

/* Every page of a collection request, following `_paging.next` (the Link header);
 * stops at the first error, reported with the page it happened on. */
async function walk(request) {
  const walked = { ids: [], totals: [], totalPages: [], bodyTotals: [], links: [], pages: 0 };
  let next = request;
  while (next && walked.pages < MAX_PAGES) {
    let page;
    try {
      page = await next.get();
    } catch (error) {
      walked.error = { page: walked.pages + 1, url: next.toString(), ...describe(error) };
      return walked;
    }
    walked.pages += 1;
    walked.ids.push(...page.events.map((event) => event.id));
    walked.bodyTotals.push(page.total);
    const paging = page._paging;
    if (!paging) {
      walked.noPaging = true;
      return walked;
    }
    walked.totals.push(paging.total);
    walked.totalPages.push(paging.totalPages);
    walked.links.push(paging.links.next || null);
    next = paging.next;
  }
  return walked;
}

async function step(report, name, action) {
  try {
    report[name] = { ok: true, value: await action() };
  } catch (error) {
    report[name] = { ok: false, ...describe(error) };
  }
  return report[name];
}

/* The namespace's route handlers: from discovery, or else (discovery failed or fell back
 * to WordPress's default routes) from the namespace index bound by hand, so that paging
 * and writes are exercised either way; `report.bootstrap` tells which. */
async function routeHandlers(plan, report) {
  let site = null;
  await step(report, 'discover', async () => {
    site = await WPAPI.discover(plan.root);
    return { endpoint: site._options.endpoint, namespaces: Object.keys(site._ns) };
  });
  report.bootstrap = 'discovery';
  if (!report.discover.ok || report.logged.length) {
    report.bootstrap = 'namespace index';
    const index = await WPAPI.site(plan.root).root(plan.namespace).get();
    site = new WPAPI({ endpoint: plan.root, routes: index.routes });
  }
  let handlers = null;
  await step(report, 'namespace', async () => {
    handlers = site.namespace(plan.namespace);
    return Object.keys(handlers).sort();
  });
  return handlers;
}

async function main() {
  const plan = JSON.parse(process.argv[2]);
  const report = { logged: [] };
  // WPAPI.discover logs (and falls back to default WordPress routes) when the REST
  // index cannot be read: record that, it is a failure here.
  for (const level of ['error', 'warn']) {
    console[level] = (...args) => report.logged.push(`${level}: ${args.map(String).join(' ')}`);
  }
  const credentials = { username: plan.username, password: plan.password };
  const calendar = await routeHandlers(plan, report);
  if (!calendar) {
    return report;
  }

  await step(report, 'anonymous', () => walk(calendar.events().param('per_page', plan.perPage)));
  await step(report, 'authenticated', () =>
    walk(calendar.events().auth(credentials).param('per_page', plan.perPage)),
  );

  const created = await step(report, 'create', () =>
    calendar.events().auth(credentials).create(plan.event),
  );
  if (!created.ok) {
    return report;
  }
  const id = created.value.id;
  await step(report, 'read', () => calendar.events().id(id).get());
  await step(report, 'update', () => calendar.events().id(id).auth(credentials).update(plan.update));
  await step(report, 'reread', () => calendar.events().id(id).auth(credentials).get());
  await step(report, 'delete', () => calendar.events().id(id).auth(credentials).delete());
  await step(report, 'deleteAgain', () => calendar.events().id(id).auth(credentials).delete());
  return report;
}

main().then(
  (report) => process.stdout.write(JSON.stringify(report) + '\n'),
  (error) => {
    process.stderr.write(String(error && error.stack ? error.stack : error) + '\n');
    process.exit(1);
  },
);
