#!/usr/bin/env node
/* Reads an iCalendar feed with ical.js (Mozilla's parser, used by Thunderbird and
 * FullCalendar) for tests/test_feeds_clients.py.
 *
 * Argument: JSON {ics, until}. Registers the feed's VTIMEZONEs, then expands every
 * series (a master with its RECURRENCE-ID exceptions, ical.js's `relateException`)
 * up to `until` (an ISO UTC instant) and lists each instance. Prints one line of
 * JSON: {calendar: {name, timezone}, instances: [{uid, summary, description, allDay,
 * start, end, startDate, endDate, recurrenceId}]}; UTC instants as ISO strings, dates of
 * all-day instances as YYYY-MM-DD (the end exclusive, as in the feed).
 */
'use strict';

const ICAL = require('ical.js');

function utc(time) {
  return time.toJSDate().toISOString().replace('.000Z', 'Z');
}

function instance(event, start, end) {
  const allDay = start.isDate;
  return {
    uid: event.uid,
    summary: event.summary,
    description: event.description,
    allDay,
    start: allDay ? null : utc(start),
    end: allDay ? null : utc(end),
    startDate: allDay ? start.toString() : null,
    endDate: allDay ? end.toString() : null,
    recurrenceId: event.recurrenceId ? event.recurrenceId.toString() : null,
  };
}

function main() {
  const plan = JSON.parse(process.argv[2]);
  const calendar = new ICAL.Component(ICAL.parse(plan.ics));
  for (const zone of calendar.getAllSubcomponents('vtimezone')) {
    ICAL.TimezoneService.register(new ICAL.Timezone(zone));
  }
  const until = ICAL.Time.fromJSDate(new Date(plan.until), true);
  const masters = new Map();
  const exceptions = [];
  const instances = [];
  for (const component of calendar.getAllSubcomponents('vevent')) {
    const event = new ICAL.Event(component);
    if (event.isRecurrenceException()) {
      exceptions.push(event);
    } else {
      masters.set(event.uid, event);
    }
  }
  const lone = [];
  for (const exception of exceptions) {
    const master = masters.get(exception.uid);
    if (master) {
      master.relateException(exception);
    } else {
      lone.push(exception); // a single instance published alone (RFC 5546)
    }
  }
  for (const event of masters.values()) {
    if (!event.isRecurring()) {
      instances.push(instance(event, event.startDate, event.endDate));
      continue;
    }
    const iterator = event.iterator();
    for (let next = iterator.next(); next && next.compare(until) <= 0; next = iterator.next()) {
      const details = event.getOccurrenceDetails(next);
      instances.push(instance(details.item, details.startDate, details.endDate));
    }
  }
  for (const event of lone) {
    instances.push(instance(event, event.startDate, event.endDate));
  }
  const report = {
    calendar: {
      name: calendar.getFirstPropertyValue('x-wr-calname'),
      timezone: calendar.getFirstPropertyValue('x-wr-timezone'),
    },
    instances,
  };
  process.stdout.write(JSON.stringify(report) + '\n');
}

main();
