#!/usr/bin/env node
/* Reads the service with Node's own fetch (undici, the runtime's HTTP client) for
 * tests/test_clients_node_fetch.py.
 *
 * Argument: JSON {requests: [{kind, url, method, headers, repeat}]}. Each request is sent
 * `repeat` times in a row on the runtime's shared keep-alive pool, so the second and
 * later answers come from the service's response cache; an If-None-Match of "@etag"
 * is replaced by the ETag of the request's previous answer. undici's parser refuses a
 * malformed answer (a second Content-Length, say) with an error whose cause names it.
 * Prints one line of JSON: [{kind, url, method, answers: [{status, cache, contentLength,
 * etag, bodyBytes} | {error, cause}]}].
 */
'use strict';

async function send(request, previousTag) {
  const headers = { ...(request.headers || {}) };
  if (headers['If-None-Match'] === '@etag') {
    headers['If-None-Match'] = previousTag || '"none"';
  }
  try {
    const response = await fetch(request.url, { method: request.method, headers });
    const body = Buffer.from(await response.arrayBuffer());
    return {
      status: response.status,
      cache: response.headers.get('x-calendar-cache'),
      contentLength: response.headers.get('content-length'),
      etag: response.headers.get('etag'),
      bodyBytes: body.length,
    };
  } catch (error) {
    const cause = error.cause || {};
    return { error: String(error), cause: cause.code || String(cause.message || cause) };
  }
}

async function main() {
  const plan = JSON.parse(process.argv[2]);
  const results = [];
  for (const request of plan.requests) {
    const answers = [];
    let tag = null;
    for (let round = 0; round < (request.repeat || 1); round += 1) {
      const answer = await send(request, tag);
      tag = answer.etag || tag;
      answers.push(answer);
    }
    results.push({ kind: request.kind, url: request.url, method: request.method, answers });
  }
  process.stdout.write(`${JSON.stringify(results)}\n`);
}

main().catch((error) => {
  process.stdout.write(`${JSON.stringify({ fatal: String(error) })}\n`);
  process.exitCode = 1;
});
