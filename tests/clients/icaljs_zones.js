#!/usr/bin/env node
/* Reads VTIMEZONEs with ical.js (Mozilla's parser, Thunderbird's) for
 * tests/test_feeds_clients.py: the UTC instant of local wall clocks in each zone,
 * computed from that VTIMEZONE alone (an ICAL.Timezone of the component; ical.js has
 * no zone data of its own).
 *
 * Argument: JSON {file}, a file holding JSON {zones: [{tzid, vtimezone, walls}]}, the
 * walls as "YYYY-MM-DDTHH:MM:SS" (too many for a command line). Prints one line of
 * JSON: {tzid: [Unix seconds of each wall, in order]}.
 */
'use strict';

const fs = require('fs');
const ICAL = require('ical.js');

function instant(wall, zone) {
  const [date, time] = wall.split('T');
  const [year, month, day] = date.split('-').map(Number);
  const [hour, minute, second] = time.split(':').map(Number);
  return ICAL.Time.fromData({year, month, day, hour, minute, second}, zone).toUnixTime();
}

function main() {
  const plan = JSON.parse(fs.readFileSync(JSON.parse(process.argv[2]).file, 'utf8'));
  const report = {};
  for (const item of plan.zones) {
    const component = new ICAL.Component(ICAL.parse(item.vtimezone));
    const zone = new ICAL.Timezone(component);
    if (zone.tzid !== item.tzid) {
      throw new Error(`read ${zone.tzid}, expected ${item.tzid}`);
    }
    report[item.tzid] = item.walls.map((wall) => instant(wall, zone));
  }
  process.stdout.write(JSON.stringify(report) + '\n');
}

main();
