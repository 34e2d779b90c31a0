import { isUuid } from "../http/params.js";

/**
 * Reading an OAI-PMH request: which verb, which arguments, and whether they are legal (OAI-PMH 2.0 §3.1
 * and §4). Illegal requests throw an OaiError carrying the protocol's error code; the route answers it
 * inside a normal OAI-PMH document (HTTP 200), as harvesters expect.
 */

export type OaiErrorCode =
  | "badVerb"
  | "badArgument"
  | "badResumptionToken"
  | "cannotDisseminateFormat"
  | "idDoesNotExist"
  | "noRecordsMatch"
  | "noMetadataFormats"
  | "noSetHierarchy";

export class OaiError extends Error {
  constructor(
    readonly code: OaiErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export const VERBS = [
  "Identify",
  "ListMetadataFormats",
  "ListSets",
  "ListIdentifiers",
  "ListRecords",
  "GetRecord",
] as const;
export type Verb = (typeof VERBS)[number];

/** Arguments each verb takes: required, optional, and exclusive (resumptionToken, alone). */
const ARGUMENTS: Record<Verb, { required: string[]; optional: string[]; exclusive?: string }> = {
  Identify: { required: [], optional: [] },
  ListMetadataFormats: { required: [], optional: ["identifier"] },
  ListSets: { required: [], optional: [], exclusive: "resumptionToken" },
  ListIdentifiers: {
    required: ["metadataPrefix"],
    optional: ["from", "until", "set"],
    exclusive: "resumptionToken",
  },
  ListRecords: {
    required: ["metadataPrefix"],
    optional: ["from", "until", "set"],
    exclusive: "resumptionToken",
  },
  GetRecord: { required: ["identifier", "metadataPrefix"], optional: [] },
};

export interface OaiRequest {
  verb: Verb;
  args: Record<string, string>;
}

/** Longest argument value read; anything longer is junk (a token is far shorter). */
const MAX_VALUE = 4096;

/** Shortens a value for a message, so an error never echoes kilobytes of junk. */
export function shown(value: string): string {
  return value.length > 60 ? `${value.slice(0, 57)}...` : value;
}

/** The verb and arguments of a request, checked against the verb's argument list. */
export function readRequest(params: [string, string][]): OaiRequest {
  const verbs = params.filter(([k]) => k === "verb").map(([, v]) => v);
  if (verbs.length === 0) {
    throw new OaiError("badVerb", `No verb given; use one of ${VERBS.join(", ")}, e.g. ?verb=Identify`);
  }
  if (verbs.length > 1) throw new OaiError("badVerb", "The verb argument is repeated; give exactly one verb");
  const verb = verbs[0] as string;
  if (!(VERBS as readonly string[]).includes(verb)) {
    throw new OaiError("badVerb", `Unknown verb "${shown(verb)}"; use one of ${VERBS.join(", ")}`);
  }
  const spec = ARGUMENTS[verb as Verb];
  const allowed = new Set([...spec.required, ...spec.optional, ...(spec.exclusive ? [spec.exclusive] : [])]);
  const args: Record<string, string> = {};
  for (const [name, value] of params) {
    if (name === "verb") continue;
    if (!allowed.has(name)) {
      const takes = [...allowed].join(", ") || "no other arguments";
      throw new OaiError(
        "badArgument",
        `${verb} does not take the argument "${shown(name)}"; it takes ${takes}`,
      );
    }
    if (name in args) throw new OaiError("badArgument", `The argument ${name} is repeated; give it once`);
    if (value === "" || value.length > MAX_VALUE) {
      throw new OaiError(
        "badArgument",
        `The argument ${name} needs a value of at most ${MAX_VALUE} characters`,
      );
    }
    args[name] = value;
  }
  if (spec.exclusive && spec.exclusive in args) {
    const others = Object.keys(args).filter((k) => k !== spec.exclusive);
    if (others.length > 0) {
      throw new OaiError(
        "badArgument",
        `resumptionToken is an exclusive argument; send it alone with the verb (drop ${others.join(", ")})`,
      );
    }
    return { verb: verb as Verb, args };
  }
  for (const name of spec.required) {
    if (!(name in args)) throw new OaiError("badArgument", `${verb} needs the argument ${name}`);
  }
  return { verb: verb as Verb, args };
}

// --- dates -------------------------------------------------------------------------------------------

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const SECOND = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;

export interface DateArg {
  /** "day" for YYYY-MM-DD, "second" for YYYY-MM-DDThh:mm:ssZ. */
  granularity: "day" | "second";
  /** Start of the day or second, as a stored ISO instant (milliseconds). */
  start: string;
  /** Start of the next day or second: `until` selects datestamps before it. */
  next: string;
}

/** A from/until value in either granularity the repository supports; badArgument otherwise. */
export function readDate(name: string, value: string): DateArg {
  const day = DAY.exec(value);
  const second = day ? null : SECOND.exec(value);
  const m = day ?? second;
  if (m) {
    const [, y, mo, d, h = "00", mi = "00", s = "00"] = m;
    const t = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
    const date = new Date(t);
    // Round trip: 2024-02-30 or 25:00:00 would roll over into another date.
    if (Number.isFinite(t) && date.toISOString().slice(0, 19) === `${y}-${mo}-${d}T${h}:${mi}:${s}`) {
      const step = day ? 86_400_000 : 1000;
      return {
        granularity: day ? "day" : "second",
        start: date.toISOString(),
        next: new Date(t + step).toISOString(),
      };
    }
  }
  throw new OaiError(
    "badArgument",
    `${name}="${shown(value)}" is not a date this repository understands; use YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ (UTC)`,
  );
}

/** from and until together: same granularity, from not after until. */
export function readRange(from?: string, until?: string): { from?: DateArg; until?: DateArg } {
  const f = from === undefined ? undefined : readDate("from", from);
  const u = until === undefined ? undefined : readDate("until", until);
  if (f && u) {
    if (f.granularity !== u.granularity) {
      throw new OaiError(
        "badArgument",
        "from and until must have the same granularity (both days or both seconds)",
      );
    }
    if (f.start > u.start) throw new OaiError("badArgument", `from (${from}) is after until (${until})`);
  }
  return { from: f, until: u };
}

/** A datestamp at the repository's granularity: seconds, UTC. */
export function datestamp(iso: string): string {
  return `${iso.slice(0, 19)}Z`;
}

// --- identifiers and sets ----------------------------------------------------------------------------

/** `oai:so:<ref>` (a folder) or `oai:io:<ref>` (an asset). */
export function readIdentifier(value: string): { type: "SO" | "IO"; ref: string } | undefined {
  const m = /^oai:(so|io):(.+)$/.exec(value);
  if (!m || !isUuid(m[2] as string)) return undefined;
  return { type: m[1] === "so" ? "SO" : "IO", ref: m[2] as string };
}

export function identifierOf(type: "SO" | "IO", ref: string): string {
  return `oai:${type === "SO" ? "so" : "io"}:${ref}`;
}

/** The setSpec grammar of OAI-PMH 2.0 (unreserved URI characters, colon-separated). */
const SET_SPEC = /^[A-Za-z0-9\-_.!~*'()]+(?::[A-Za-z0-9\-_.!~*'()]+)*$/;

export function isSetSpec(value: string): boolean {
  return SET_SPEC.test(value);
}
