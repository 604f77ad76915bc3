/* What a page on another site (or on the service's own origin) does with the API:
 * every function resolves to a JSON-serialisable report, never rejects. */
'use strict';

async function report(url, init) {
  try {
    const response = await fetch(url, init);
    const text = await response.text();
    let body = null;
    try {
      body = JSON.parse(text);
    } catch (error) {
      body = text;
    }
    // Cross-origin, only CORS-safelisted and exposed headers are visible here.
    const headers = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    return { fetched: true, status: response.status, type: response.type, headers, body };
  } catch (error) {
    return { fetched: false, error: String(error) };
  }
}

window.calendarProbe = {
  /* GET, anonymous (credentials: 'omit' | 'same-origin' | 'include') */
  get(url, credentials) {
    return report(url, { credentials: credentials || 'same-origin' });
  },
  /* POST a JSON body with an explicit Authorization header (needs a preflight
   * cross-origin) */
  postJson(url, authorization, payload) {
    return report(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: authorization },
      body: JSON.stringify(payload),
    });
  },
  /* POST a form body with the browser's credentials: a CORS "simple" request, sent
   * without preflight */
  postForm(url, fields, credentials) {
    return report(url, {
      method: 'POST',
      body: new URLSearchParams(fields),
      credentials: credentials || 'include',
    });
  },
};
