/* A FullCalendar month view fed from GET <api>/events, as a site embedding the
 * calendar would write it. Query: ?api=<namespace URL>&initialDate=YYYY-MM-DD.
 * window.calendarReady resolves once the events are fetched and drawn. */
'use strict';

const query = new URLSearchParams(window.location.search);
const api = query.get('api');
const state = { requests: [], totals: [], errors: [], mapped: [] };
window.calendarState = state;

function decodeEntities(html) {
  const area = document.createElement('textarea');
  area.innerHTML = html;
  return area.value;
}

function nextDay(day) {
  const date = new Date(day + 'T00:00:00Z');
  date.setUTCDate(date.getUTCDate() + 1);
  return date.toISOString().slice(0, 10);
}

/* TEC fields -> FullCalendar: all-day events by local date (end exclusive), timed
 * ones at their UTC instants (the calendar shows UTC). */
function toFullCalendar(event) {
  const common = { id: String(event.id), title: decodeEntities(event.title), url: event.url };
  if (event.all_day) {
    return {
      ...common,
      allDay: true,
      start: event.start_date.slice(0, 10),
      end: nextDay(event.end_date.slice(0, 10)),
    };
  }
  return {
    ...common,
    allDay: false,
    start: event.utc_start_date.replace(' ', 'T') + 'Z',
    end: event.utc_end_date.replace(' ', 'T') + 'Z',
  };
}

async function fetchEvents(info) {
  const params = new URLSearchParams({
    start_date: info.startStr.slice(0, 10),
    end_date: info.endStr.slice(0, 10),
    per_page: '50',
  });
  let url = api + '/events?' + params.toString();
  const events = [];
  for (let pages = 0; url && pages < 20; pages += 1) {
    state.requests.push(url);
    const response = await fetch(url);
    if (!response.ok) {
      throw new Error('HTTP ' + response.status + ' from ' + url);
    }
    state.totals.push(response.headers.get('X-WP-Total'));
    const body = await response.json();
    events.push(...body.events);
    url = body.next_rest_url;
  }
  return events.map(toFullCalendar);
}

window.calendarReady = new Promise((resolve) => {
  document.getElementById('source').textContent = 'Events from ' + api;
  const calendar = new FullCalendar.Calendar(document.getElementById('calendar'), {
    initialView: 'dayGridMonth',
    initialDate: query.get('initialDate'),
    timeZone: 'UTC',
    height: 'auto',
    events(info, success, failure) {
      fetchEvents(info).then(
        (events) => {
          state.mapped = events;
          success(events);
        },
        (error) => {
          state.errors.push(String(error));
          failure(error);
        },
      );
    },
    loading(isLoading) {
      if (!isLoading) {
        // let FullCalendar draw what it just received
        requestAnimationFrame(() => requestAnimationFrame(() => resolve()));
      }
    },
  });
  calendar.render();
  window.calendar = calendar;
});
