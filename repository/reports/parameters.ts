import { HTTPException } from "hono/http-exception";
import { utcInstant } from "../http/dates.js";
import { isUuid, type Params } from "../http/params.js";
import type { ParameterDefinition, ReportDefinition, ReportParameters } from "./definitions.js";

/**
 * Checks the parameters of a report run against its definition and normalises them (dates to UTC
 * instants, a date-only `to` to the end of its day, references to lower case). Everything wrong is
 * reported at once, in one 400 that names each bad parameter and lists the ones the report accepts.
 * Whether a folder exists and may be read is the route's check (404/403), not this one's.
 */

const TYPE_NAMES: Record<ParameterDefinition["type"], string> = {
  folder: "folder reference",
  date: "date or date-time",
  username: "user name",
};

const USERNAME = /^[A-Za-z0-9._@+-]{1,100}$/;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

export function checkParameters(def: ReportDefinition, given: Params): ReportParameters {
  const problems: string[] = [];
  const out: Record<string, string> = {};
  const known = new Set(def.parameters.map((p) => p.name));
  const unknown = given.names().filter((n) => !known.has(n));
  if (unknown.length > 0) {
    problems.push(`unknown parameter${unknown.length === 1 ? "" : "s"} ${unknown.map(shown).join(", ")}`);
  }
  for (const p of def.parameters) {
    const values = [...new Set(given.getAll(p.name).map((v) => v.trim()))].filter((v) => v !== "");
    if (values.length > 1) {
      problems.push(`${p.name} was given different values (${values.map(shown).join(", ")}); give it once`);
      continue;
    }
    const raw = values[0];
    if (raw === undefined) {
      if (p.required) problems.push(`${p.name} is required (${p.description})`);
      continue;
    }
    const value = normalise(p, raw);
    if (value === undefined) problems.push(`${p.name} ${shown(raw)} ${expectation(p)}`);
    else out[p.name] = value;
  }
  if (out.from !== undefined && out.to !== undefined && out.from > out.to) {
    problems.push(`from (${out.from}) is after to (${out.to}); give a window whose start comes first`);
  }
  if (problems.length > 0) {
    throw new HTTPException(400, {
      message: `Report "${def.id}" cannot run with these parameters: ${problems.join("; ")}. ${acceptedText(def)}`,
    });
  }
  return out;
}

/** "It accepts: folder (folder reference, optional), ..." or that it takes none. */
export function acceptedText(def: ReportDefinition): string {
  if (def.parameters.length === 0) return "It takes no parameters: send an empty body.";
  const list = def.parameters.map(
    (p) => `${p.name} (${TYPE_NAMES[p.type]}, ${p.required ? "required" : "optional"})`,
  );
  return `It accepts: ${list.join(", ")}.`;
}

function normalise(p: ParameterDefinition, raw: string): string | undefined {
  switch (p.type) {
    case "folder":
      return isUuid(raw) ? raw.toLowerCase() : undefined;
    case "username":
      return USERNAME.test(raw) ? raw : undefined;
    case "date": {
      const instant = utcInstant(raw);
      if (instant === undefined) return undefined;
      // A date alone as the end of a window means the whole of that day.
      return p.bound === "end" && DATE_ONLY.test(raw) ? `${instant.slice(0, 10)}T23:59:59.999Z` : instant;
    }
  }
}

function expectation(p: ParameterDefinition): string {
  switch (p.type) {
    case "folder":
      return "is not a folder reference; references look like 7f3e2a10-1c2b-4d5e-8f90-0a1b2c3d4e5f";
    case "username":
      return "is not a user name (letters, digits and . _ @ + -, at most 100)";
    case "date":
      return "is not a date; send a date such as 2025-01-31 or a date-time such as 2025-01-31T12:00:00Z";
  }
}

/** A value as a message quotes it: shortened, so a huge parameter cannot make a huge message. */
function shown(raw: string): string {
  return JSON.stringify(raw.length > 60 ? `${raw.slice(0, 60)}…` : raw);
}
