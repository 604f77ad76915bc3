#!/usr/bin/env node
/* Reads the service with Node's own fetch (undici, the runtime's HTTP client) for
 * tests/test_clients_node_fetch.py.
 *
 * Argument: JSON {requests: [{kind, url, method, headers, body, repeat}]}. Each request
 * is sent `repeat` times in a row on the runtime's shared keep-alive pool, so the second
 * and later answers come from the service's response cache; an If-None-Match of "@etag"
 * is replaced by the ETag of the request's previous answer, and an If-Match of
 * "@last-etag" by the ETag of the previous request's last answer (a write protected by
 * the tag a read got). fetch asks for gzip itself (`accept-encoding: gzip, deflate`) and
 * decodes it: `bodyBytes` and `bodySha256` are of the decoded body, `contentLength` is
 * what was sent. undici's parser refuses a malformed answer (a second Content-Length,
 * say) with an error whose cause names it.
 * Prints one line of JSON: [{kind, url, method, answers: [{status, cache, contentLength,
 * contentEncoding, vary, etag, bodyBytes, bodySha256} | {error, cause}]}].
 */
'use strict';

const crypto = require('node:crypto');

async function send(request, previousTag, lastTag) {
  const headers = { ...(request.headers || {}) };
  if (headers['If-None-Match'] === '@etag') {
    headers['If-None-Match'] = previousTag || '"none"';
  }
  if (headers['If-Match'] === '@last-etag') {
    headers['If-Match'] = lastTag || '"none"';
  }
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    });
    const body = Buffer.from(await response.arrayBuffer());
    return {
      status: response.status,
      cache: response.headers.get('x-calendar-cache'),
      contentLength: response.headers.get('content-length'),
      contentEncoding: response.headers.get('content-encoding'),
      vary: response.headers.get('vary'),
      etag: response.headers.get('etag'),
      bodyBytes: body.length,
      bodySha256: crypto.createHash('sha256').update(body).digest('hex'),
    };
  } catch (error) {
    const cause = error.cause || {};
    return { error: String(error), cause: cause.code || String(cause.message || cause) };
  }
}

async function main() {
  const plan = JSON.parse(process.argv[2]);
  const results = [];
  let lastTag = null;
  for (const request of plan.requests) {
    const answers = [];
    let tag = null;
    for (let round = 0; round < (request.repeat || 1); round += 1) {
      const answer = await send(request, tag, lastTag);
      tag = answer.etag || tag;
      answers.push(answer);
    }
    lastTag = tag;
    results.push({ kind: request.kind, url: request.url, method: request.method, answers });
  }
  process.stdout.write(`${JSON.stringify(results)}\n`);
}

main().catch((error) => {
  process.stdout.write(`${JSON.stringify({ fatal: String(error) })}\n`);
  process.exitCode = 1;
});
