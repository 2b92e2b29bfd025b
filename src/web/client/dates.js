// Message times and dates as the client shows them, in English: "3:04 PM" (or "15:04" with
// the 24-hour setting), "Thu, Nov 26, 2026", and in full "Thursday, November 26, 2026 at
// 3:04:05 PM GMT+1". In the browser's own zone they are made from Date's getters; only a
// time zone the user set (setting `timezone`) goes through Intl, whose first use in a page
// costs 20-30 ms (loading its locale data) that the first view would otherwise wait for.
// Pure: no DOM.

const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
  "September", "October", "November", "December"];

const zoneFormatters = new Map();
/** The Intl formatter that splits a time into numeric parts in `tz`; null for an unknown zone. */
function zoneFormatter(tz) {
  if (!zoneFormatters.has(tz)) {
    let f = null;
    try {
      f = new Intl.DateTimeFormat("en-US", {
        timeZone: tz, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric",
        hour: "numeric", minute: "numeric", second: "numeric", timeZoneName: "shortOffset",
      });
    } catch {
      f = null; // a zone this browser does not know: the browser's own is used
    }
    zoneFormatters.set(tz, f);
  }
  return zoneFormatters.get(tz);
}

/** "GMT", "GMT+1", "GMT-5:30": an offset east of UTC in minutes, as Intl's "shortOffset". */
export function offsetName(minutesEast) {
  if (!minutesEast) return "GMT";
  const sign = minutesEast > 0 ? "+" : "-";
  const abs = Math.abs(minutesEast);
  const m = abs % 60;
  return `GMT${sign}${Math.floor(abs / 60)}${m ? `:${String(m).padStart(2, "0")}` : ""}`;
}

/**
 * The calendar parts of Unix time `ts` (seconds) in the user's zone (`settings.timezone`
 * when set and known, else the browser's): {year, month (0-11), day, weekday (0 = Sunday),
 * hour (0-23), minute, second, zone}.
 */
export function timeParts(ts, settings) {
  const date = new Date(ts * 1000);
  const tz = settings && settings.timezone;
  const f = tz ? zoneFormatter(tz) : null;
  if (f) {
    const p = {};
    for (const { type, value } of f.formatToParts(date)) p[type] = value;
    const year = Number(p.year);
    const month = Number(p.month) - 1;
    const day = Number(p.day);
    return {
      year, month, day, weekday: new Date(Date.UTC(year, month, day)).getUTCDay(),
      hour: Number(p.hour) % 24, minute: Number(p.minute), second: Number(p.second),
      zone: /^(GMT|UTC)([+-]0)?$/.test(p.timeZoneName || "") ? "GMT" : p.timeZoneName,
    };
  }
  return {
    year: date.getFullYear(), month: date.getMonth(), day: date.getDate(), weekday: date.getDay(),
    hour: date.getHours(), minute: date.getMinutes(), second: date.getSeconds(),
    zone: offsetName(-date.getTimezoneOffset()),
  };
}

const two = (n) => String(n).padStart(2, "0");

function clock(p, twentyFour, withSeconds) {
  const secs = withSeconds ? `:${two(p.second)}` : "";
  if (twentyFour) return `${two(p.hour)}:${two(p.minute)}${secs}`;
  return `${p.hour % 12 || 12}:${two(p.minute)}${secs} ${p.hour < 12 ? "AM" : "PM"}`;
}

/** "3:04 PM", or "15:04" with the 24-hour setting. */
export function formatTime(ts, settings) {
  return clock(timeParts(ts, settings), !!(settings && settings.twenty_four_hour_time), false);
}

/** "Thu, Nov 26, 2026". */
export function formatDate(ts, settings) {
  const p = timeParts(ts, settings);
  return `${DAYS[p.weekday].slice(0, 3)}, ${MONTHS[p.month].slice(0, 3)} ${p.day}, ${p.year}`;
}

/** "Thursday, November 26, 2026 at 3:04:05 PM GMT+1" (a message time's tooltip). */
export function formatFull(ts, settings) {
  const p = timeParts(ts, settings);
  const time = clock(p, !!(settings && settings.twenty_four_hour_time), true);
  return `${DAYS[p.weekday]}, ${MONTHS[p.month]} ${p.day}, ${p.year} at ${time} ${p.zone}`;
}
