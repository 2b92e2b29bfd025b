// Message times and dates (src/web/client/dates.js): the browser's own zone by hand, a set
// time zone through Intl, both in the same English forms, under node --test.
import { test } from "node:test";
import assert from "node:assert/strict";

process.env.TZ = "UTC"; // the "browser's own zone" of these tests
const { formatDate, formatFull, formatTime, offsetName, timeParts } = await import("../../../src/web/client/dates.js");

// 2026-11-26 18:04:05 UTC, a Thursday.
const TS = Date.UTC(2026, 10, 26, 18, 4, 5) / 1000;

test("without a time zone setting, the browser's zone is used, by hand", () => {
  assert.equal(formatTime(TS, {}), "6:04 PM");
  assert.equal(formatTime(TS, { twenty_four_hour_time: true }), "18:04");
  assert.equal(formatDate(TS, {}), "Thu, Nov 26, 2026");
  assert.equal(formatFull(TS, {}), "Thursday, November 26, 2026 at 6:04:05 PM GMT");
  assert.equal(formatTime(TS - 18 * 3600, {}), "12:04 AM");
  assert.equal(formatTime(TS - 6 * 3600, {}), "12:04 PM");
  assert.equal(formatTime(TS - 18 * 3600, { twenty_four_hour_time: true }), "00:04");
});

test("a set time zone moves the clock and the calendar day", () => {
  const kolkata = { timezone: "Asia/Kolkata" };
  assert.equal(formatTime(TS, kolkata), "11:34 PM");
  assert.equal(formatFull(TS, kolkata), "Thursday, November 26, 2026 at 11:34:05 PM GMT+5:30");
  const tokyo = { timezone: "Asia/Tokyo", twenty_four_hour_time: true };
  assert.equal(formatTime(TS, tokyo), "03:04");
  assert.equal(formatDate(TS, tokyo), "Fri, Nov 27, 2026");
  assert.equal(formatDate(TS, { timezone: "America/Los_Angeles" }), "Thu, Nov 26, 2026");
  assert.equal(formatTime(TS, { timezone: "America/Los_Angeles" }), "10:04 AM");
});

test("the hand-made parts agree with Intl's for the same zone", () => {
  for (let ts = TS - 400 * 86400; ts < TS; ts += 86400 * 7 + 3671) {
    const byHand = timeParts(ts, {});
    const byIntl = timeParts(ts, { timezone: "UTC" });
    assert.deepEqual(byHand, byIntl, `at ${ts}`);
  }
});

test("an unknown zone falls back to the browser's; offsets are named as Intl names them", () => {
  assert.equal(formatTime(TS, { timezone: "Mars/Olympus_Mons" }), "6:04 PM");
  assert.equal(offsetName(0), "GMT");
  assert.equal(offsetName(60), "GMT+1");
  assert.equal(offsetName(-330), "GMT-5:30");
  assert.equal(offsetName(345), "GMT+5:45");
});
