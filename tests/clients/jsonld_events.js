#!/usr/bin/env node
/* Validates the schema.org Event JSON-LD of saved pages for tests/test_site_clients.py.
 *
 * Argument: JSON {pages: [{name, file}]}. Every `<script type="application/ld+json">`
 * block of a page is parsed and run, one block at a time, through
 * structured-data-testing-tool with its Google preset and the Event preset below
 * (Google's Event rich-result requirements: a missing required property is an error, a
 * missing recommended one a warning). One block at a time, so that each event is checked
 * on its own instead of "some Event of the page has a startDate".
 * Prints one line of JSON: {pages: [{name, blocks, types, errors, warnings}]}.
 */
'use strict';

const fs = require('fs');
const { structuredDataTest } = require('structured-data-testing-tool');
const { Google } = require('structured-data-testing-tool/presets');

const BLOCK = /<script\b[^>]*\btype=["']?application\/ld\+json["']?[^>]*>([\s\S]*?)<\/script>/gi;
// ISO 8601: a date, or a date and time; Google reads an offset-less time in the venue's zone
const DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const DATE_TIME_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2}))?$/;
const STATUS = /^(https?:\/\/schema\.org\/)?(EventScheduled|EventCancelled|EventMovedOnline|EventPostponed|EventRescheduled)$/;
const MODE = /^(https?:\/\/schema\.org\/)?(OfflineEventAttendanceMode|OnlineEventAttendanceMode|MixedEventAttendanceMode)$/;
const AVAILABILITY = /^(https?:\/\/schema\.org\/)?(InStock|SoldOut|PreOrder|LimitedAvailability|OnlineOnly|InStoreOnly|OutOfStock|PreSale|BackOrder|Discontinued|SoldOut)$/;
const EVENT_TYPES = /^(Event|BusinessEvent|ChildrensEvent|ComedyEvent|CourseInstance|DanceEvent|DeliveryEvent|EducationEvent|EventSeries|ExhibitionEvent|Festival|FoodEvent|Hackathon|LiteraryEvent|MusicEvent|PublicationEvent|SaleEvent|ScreeningEvent|SocialEvent|SportsEvent|TheaterEvent|VisualArtsEvent)$/;

/* Each place of the event: `location`, or each item of it when it is a list (a mixed
 * event: a Place and a VirtualLocation, as Google's mixed-event example writes it). */
function locationPaths(event) {
  const location = event && event.location;
  return Array.isArray(location) ? location.map((_, index) => `location[${index}]`) : ['location'];
}

/* Google's Event requirements for the event `type` found in one block, as sdtt tests;
 * `places` are the paths of its locations (`locationPaths`). */
function eventPreset(type, places = ['location']) {
  const at = (property) => `${type}[0].${property}`;
  const present = (property) => ({ test: at(property), type: 'jsonld' });
  const required = (property, description) => ({ ...present(property), description });
  const recommended = (property, description) => ({
    ...present(property),
    description,
    warning: true,
  });
  // sdtt passes a RegExp test only on a list value (on a string it keeps the match array,
  // which is not `true`): the value is wrapped in a one-item list
  const format = (property, expect, description, warning = false) => ({
    test: `[${at(property)}]`,
    type: 'jsonld',
    expect,
    description,
    warning,
    conditional: present(property),
  });
  return {
    name: 'Google Event rich result',
    description: "Google's required and recommended Event properties",
    tests: [
      required('name', 'name is required'),
      required('startDate', 'startDate is required'),
      format('startDate', DATE, 'startDate is an ISO 8601 date or date-time'),
      format('startDate', DATE_TIME_WITH_OFFSET, 'startDate has a time zone offset', true),
      required('location', 'location is required'),
      ...places.flatMap((place) => [
        required(`${place}."@type"`, 'location has a type (Place or VirtualLocation)'),
        format(`${place}."@type"`, /^(Place|VirtualLocation)$/, 'location is a Place or VirtualLocation'),
        {
          ...required(`${place}.address`, 'a Place location has an address'),
          conditional: { test: at(`${place}."@type"`), type: 'jsonld', expect: 'Place' },
        },
        {
          ...required(`${place}.url`, 'a VirtualLocation has a url'),
          conditional: { test: at(`${place}."@type"`), type: 'jsonld', expect: 'VirtualLocation' },
        },
      ]),
      recommended('description', 'description is recommended'),
      recommended('endDate', 'endDate is recommended'),
      format('endDate', DATE, 'endDate is an ISO 8601 date or date-time'),
      format('endDate', DATE_TIME_WITH_OFFSET, 'endDate has a time zone offset', true),
      recommended('eventStatus', 'eventStatus is recommended'),
      format('eventStatus', STATUS, 'eventStatus is an EventStatusType'),
      recommended('eventAttendanceMode', 'eventAttendanceMode is recommended'),
      format('eventAttendanceMode', MODE, 'eventAttendanceMode is an EventAttendanceModeEnumeration'),
      recommended('image', 'image is recommended'),
      recommended('organizer', 'organizer is recommended'),
      format('offers.availability', AVAILABILITY, 'offers.availability is an ItemAvailability'),
      {
        ...recommended('offers.priceCurrency', 'offers with a price have a priceCurrency'),
        conditional: present('offers.price'),
      },
    ],
  };
}

/* One line for a failed test: what it checks, and what was found. */
function describe(test) {
  const found = test.error ? test.error.message : `found ${JSON.stringify(test.value)}`;
  return `${test.description || test.test} (${test.test}): ${found}`;
}

async function checkBlock(text) {
  let data;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { types: [], errors: [`invalid JSON: ${error.message}`], warnings: [] };
  }
  const items = Array.isArray(data) ? data : data['@graph'] || [data];
  const types = items.flatMap((item) => [].concat(item['@type'] || []));
  const errors = [];
  const warnings = [];
  if (!items.some((item) => item['@context'] || data['@context'])) {
    errors.push('no @context');
  }
  const eventType = types.find((type) => EVENT_TYPES.test(type));
  const presets = [Google];
  if (eventType) {
    const event = items.find((item) => [].concat(item['@type'] || []).includes(eventType));
    presets.push(eventPreset(eventType, locationPaths(event)));
  }
  let result;
  try {
    result = await structuredDataTest(text, { presets });
  } catch (error) {
    // sdtt rejects with the result when a test failed
    if (!error.res) throw error;
    result = error.res;
  }
  for (const test of result.failed) errors.push(describe(test));
  for (const test of result.warnings) warnings.push(describe(test));
  return { types, errors, warnings };
}

async function main() {
  const plan = JSON.parse(process.argv[2]);
  const pages = [];
  for (const entry of plan.pages) {
    const html = fs.readFileSync(entry.file, 'utf8');
    const seen = { name: entry.name, blocks: 0, types: [], errors: [], warnings: [] };
    for (const match of html.matchAll(BLOCK)) {
      seen.blocks += 1;
      const checked = await checkBlock(match[1]);
      seen.types.push(...checked.types);
      seen.errors.push(...checked.errors.map((message) => `block ${seen.blocks}: ${message}`));
      seen.warnings.push(...checked.warnings.map((message) => `block ${seen.blocks}: ${message}`));
    }
    pages.push(seen);
  }
  process.stdout.write(JSON.stringify({ pages }) + '\n');
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error) + '\n');
  process.exit(1);
});
