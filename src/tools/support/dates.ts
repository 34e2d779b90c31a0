import { UserInputError } from "../define.js";

/**
 * Dates as a model writes them (`2025`, `2025-07`, `2025-07-15`, or a full ISO 8601 date-time) turned into
 * the instants the service compares. A bare period used as a lower bound starts at its first instant; as
 * an upper bound it covers the whole period (`to: 2025-07-15` includes that day), which is what a person
 * means and what a plain string comparison on the service would otherwise get wrong.
 */

const PERIOD = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?$/i;

export const DATE_HINT = "a date like 2025, 2025-07, 2025-07-15 or 2025-07-15T12:00:00Z";

/** The instant `value` starts (`"start"`) or the last millisecond it covers (`"end"`), ISO 8601 UTC. */
export function toInstant(value: string, edge: "start" | "end", name: string): string {
  const v = value.trim();
  const period = PERIOD.exec(v);
  if (period) {
    const year = Number(period[1]);
    const month = period[2] ? Number(period[2]) : undefined;
    const day = period[3] ? Number(period[3]) : undefined;
    const valid = (month === undefined || (month >= 1 && month <= 12)) && (day === undefined || day >= 1);
    const start = Date.UTC(year, (month ?? 1) - 1, day ?? 1);
    // The first instant after the period, minus one millisecond.
    const after =
      day !== undefined
        ? Date.UTC(year, (month ?? 1) - 1, day + 1)
        : month !== undefined
          ? Date.UTC(year, month, 1)
          : Date.UTC(year + 1, 0, 1);
    if (valid && day !== undefined && new Date(start).getUTCDate() !== day) {
      throw new UserInputError(`${name} "${value}" is not a real date; use ${DATE_HINT}.`);
    }
    if (valid) return new Date(edge === "start" ? start : after - 1).toISOString();
  } else if (DATE_TIME.test(v)) {
    // A date-time without a zone is read as UTC, the service's clock.
    const ms = Date.parse(/(?:Z|[+-]\d{2}:?\d{2})$/i.test(v) ? v : `${v}Z`);
    if (!Number.isNaN(ms)) return new Date(ms).toISOString();
  }
  // "last month" or "yesterday" is a date the model can work out once it knows what day it is.
  throw new UserInputError(
    `${name} "${value}" is not a date; use ${DATE_HINT} (today is ${new Date().toISOString().slice(0, 10)}).`,
  );
}

/** Checks that a range is not upside down. */
export function checkRange(from: string | undefined, to: string | undefined, names: [string, string]): void {
  if (from && to && from > to) {
    throw new UserInputError(`${names[0]} is after ${names[1]}; swap them or widen the range.`);
  }
}
