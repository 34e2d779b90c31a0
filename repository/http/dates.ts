/**
 * ISO 8601 dates and date-times as clients send them, read into the one form stored dates use (UTC,
 * `toISOString()`), so that SQL compares them as text in the right order. Shared by the Entity API's
 * date parameters and the Content API's `xip.created` ranges.
 */

const ISO = /^(\d{4}-\d{2}-\d{2})(?:(T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * `2024-01-31`, `2024-01-31T12:00`, `2024-01-31T12:00:00.5+01:00` … as a UTC ISO string, or undefined
 * when the text is not such a date. Dates and times without a zone are UTC (the service's clock), not
 * the server's local time.
 */
export function utcInstant(text: string): string | undefined {
  const m = ISO.exec(text.trim());
  if (!m?.[1]) return undefined;
  const zone = m[3] ? (m[3] === "Z" ? "Z" : `${m[3].slice(0, 3)}:${m[3].slice(-2)}`) : "Z";
  // Date.parse rolls a day the month lacks over (2026-02-30 is read as 2 March): not a date.
  const day = Date.parse(`${m[1]}T00:00:00Z`);
  if (Number.isNaN(day) || new Date(day).toISOString().slice(0, 10) !== m[1]) return undefined;
  const ms = Date.parse(`${m[1]}${m[2] ?? "T00:00:00"}${zone}`);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}
