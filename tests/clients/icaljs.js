#!/usr/bin/env node
/* Reads an iCalendar feed with ical.js (Mozilla's parser, used by Thunderbird and
 * FullCalendar) for tests/test_feeds_clients.py.
 *
 * Argument: JSON {ics, until}, or {file} naming a file that holds that JSON (a feed
 * too long for a command line). Expands every series (a master with its
 * RECURRENCE-ID exceptions, ical.js's `relateException`) up to `until` (an ISO UTC
 * instant, exclusive) and lists each instance. Times are read with the feed's own
 * VTIMEZONEs only: nothing is registered in ical.js's TimezoneService (which holds
 * UTC alone), and each instance says which zone its times were read in. Prints one
 * line of JSON: {calendar: {name, timezone}, zones: [TZID of each VTIMEZONE],
 * instances: [{uid, summary, description, url, status, conference, allDay, start, end,
 * startDate, endDate, recurrenceId, zones}]}; UTC instants as ISO strings, dates of all-day instances as
 * YYYY-MM-DD (the end exclusive, as in the feed); `zones` is, for the start and the
 * end, "feed:<TZID>" for a VTIMEZONE of this feed, else what ical.js used instead.
 */
'use strict';

const fs = require('fs');
const ICAL = require('ical.js');

function utc(time) {
  return time.toJSDate().toISOString().replace('.000Z', 'Z');
}

function zoneOf(time, own) {
  if (time.isDate) {
    return 'date';
  }
  const zone = time.zone;
  if (zone && own.has(zone.component)) {
    return `feed:${zone.tzid}`;
  }
  return zone ? `other:${zone.tzid}` : 'floating';
}

function instance(event, start, end, own) {
  const allDay = start.isDate;
  return {
    uid: event.uid,
    summary: event.summary,
    description: event.description,
    url: event.component.getFirstPropertyValue('url'),
    status: event.component.getFirstPropertyValue('status'),
    conference: event.component.getFirstPropertyValue('conference'),
    allDay,
    start: allDay ? null : utc(start),
    end: allDay ? null : utc(end),
    startDate: allDay ? start.toString() : null,
    endDate: allDay ? end.toString() : null,
    recurrenceId: event.recurrenceId ? event.recurrenceId.toString() : null,
    zones: [zoneOf(start, own), zoneOf(end, own)],
  };
}

function main() {
  let plan = JSON.parse(process.argv[2]);
  if (plan.file) {
    plan = JSON.parse(fs.readFileSync(plan.file, 'utf8'));
  }
  const calendar = new ICAL.Component(ICAL.parse(plan.ics));
  const vtimezones = calendar.getAllSubcomponents('vtimezone');
  const own = new Set(vtimezones);
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
      instances.push(instance(event, event.startDate, event.endDate, own));
      continue;
    }
    const iterator = event.iterator();
    for (let next = iterator.next(); next && next.compare(until) < 0; next = iterator.next()) {
      const details = event.getOccurrenceDetails(next);
      instances.push(instance(details.item, details.startDate, details.endDate, own));
    }
  }
  for (const event of lone) {
    instances.push(instance(event, event.startDate, event.endDate, own));
  }
  const report = {
    calendar: {
      name: calendar.getFirstPropertyValue('x-wr-calname'),
      timezone: calendar.getFirstPropertyValue('x-wr-timezone'),
    },
    zones: vtimezones.map((zone) => zone.getFirstPropertyValue('tzid')),
    instances,
  };
  process.stdout.write(JSON.stringify(report) + '\n');
}

main();
