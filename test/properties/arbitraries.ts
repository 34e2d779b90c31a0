import { randomUUID } from "node:crypto";
import fc from "fast-check";

/**
 * Arbitraries for the property tests: tool arguments derived from the JSON input schema a real client lists
 * (tools/list), valid-shaped values mixed with hostile ones. The derivation covers the JSON Schema subset
 * zod emits for our tools (string/enum/integer/number/boolean/array/object/anyOf, additionalProperties).
 */

export type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  description?: string;
};

/** What the hostile values point at: real refs, the local folders, a canary outside them. */
export interface Pools {
  /** Refs of real entities of every kind (folders, assets, content objects): right and wrong kinds. */
  refs: string[];
  /** Real folders (for arguments that want one: folder, parent, destination, within). */
  folders: string[];
  /** Real metadata fragment refs and event refs. */
  mrefs: string[];
  events: string[];
  /** Retention policy names and refs. */
  policies: string[];
  /** Header line of a metadata CSV for a group the service knows (the ref is the second column). */
  csvHeader: string;
  /** Paths inside the allowed folders (valid). */
  insidePaths: string[];
  /** Paths that lead outside the allowed folders (to the canary, /etc/passwd, a sibling folder...). */
  outsidePaths: string[];
  /** Confirmation tokens that must never be accepted for the arguments generated (other tools/args, damaged). */
  badTokens: string[];
  /** Real job handles (actions of the service) and made-up ones. */
  jobs: string[];
}

export const ENTITY_BOMB = `<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
<!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">]>
<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>&lol4;</dc:title></oai_dc:dc>`;

export const XXE = `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>&xxe;</dc:title></oai_dc:dc>`;

/** Strings that break naive code: traversal, NUL, markup, injection, odd unicode, odd sizes. */
export const HOSTILE_STRINGS: readonly string[] = [
  "",
  " ",
  "\t\r\n",
  "../../etc/passwd",
  "..\\..\\windows\\win.ini",
  "/etc/passwd",
  "/etc/shadow",
  "file:///etc/passwd",
  "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
  "a\u0000b",
  "\u0000",
  "x".repeat(4097),
  ENTITY_BOMB,
  XXE,
  "<?xml version='1.0'?><a/>",
  "<![CDATA[ ]]> ]]>",
  "</dc:title><dc:creator>injected</dc:creator><dc:title>",
  `"><script>alert(1)</script>`,
  "&amp;&lt;&gt;&quot;&apos;&#0;&#xFFFE;",
  "' OR 1=1 --",
  '"; DROP TABLE entities; --',
  "%s%s%s%n",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log4j-style lookup, meant literally.
  "${jndi:ldap://x/a}",
  "{{7*7}}",
  "\u202eevil\u202c",
  "\ud800",
  "\uffff\ufffe",
  "é\u0301 ﬁ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 🏴‍☠️ 中文 עברית",
  "NaN",
  "-1",
  "1e999",
  "null",
  "undefined",
  "__proto__",
  "constructor",
  "top",
  "not-a-uuid",
  "00000000-0000-0000-0000-000000000000",
  "ffffffff-ffff-ffff-ffff-ffffffffffff",
  "DROP",
  "pc1.",
  "pc1.AAAA",
];

/** Values of the wrong JSON type for any field. */
export const wrongType = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, 2 ** 53, -(2 ** 63), [], {}, [null], {
      $ne: null,
    }),
    fc.anything({ maxDepth: 2, maxKeys: 3 }),
  );

/** Random text of every kind, short: ascii, full unicode, graphemes. */
const randomText = (max = 40): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ maxLength: max }),
    fc.string({ maxLength: max, unit: "binary" }),
    fc.string({ maxLength: max, unit: "grapheme" }),
  );

const huge = (): fc.Arbitrary<string> =>
  fc
    .constantFrom(300, 70_000, 250_000, 1_100_000)
    .chain((n) =>
      fc.constantFrom("A", "<", "é", "\u0000", "../").map((c) => c.repeat(Math.ceil(n / c.length))),
    );

const REF_NAMES = /^(ref|folder|parent|destination|within|from|to|event|mref)$/i;
const FOLDER_NAMES = /^(folder|parent|destination|within)$/i;

/** A value for one schema node; `name` is the property name (it steers strings towards refs, paths...). */
export function valueFor(
  schema: JsonSchema,
  name: string,
  pools: Pools,
  depth = 0,
  mix: Mix = CHAOS,
): fc.Arbitrary<unknown> {
  if (mix.hostile === 0) return validShaped(schema, name, pools, depth, mix);
  const hostile = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
    { weight: 2, arbitrary: wrongType() },
    { weight: 2, arbitrary: fc.constantFrom(...pools.refs) },
    { weight: 2, arbitrary: fc.constantFrom(...pools.outsidePaths) },
    { weight: 1, arbitrary: huge() },
  );
  return fc.oneof(
    { weight: 100 - mix.hostile, arbitrary: validShaped(schema, name, pools, depth, mix) },
    { weight: mix.hostile, arbitrary: hostile },
  );
}

/** How hostile generated arguments are: per cent of values hostile, and how often extras appear. */
export interface Mix {
  hostile: number;
  /** Chance (0..1) of an optional argument being present. */
  optional: number;
  /** Per cent of calls with an unknown argument added. */
  unknown: number;
}
/** Mostly well-formed arguments: the tool gets past validation and does its work, a field now and then odd. */
export const MOSTLY_VALID: Mix = { hostile: 4, optional: 0.35, unknown: 0 };
/** Everything goes. */
export const CHAOS: Mix = { hostile: 50, optional: 0.5, unknown: 20 };
const chaotic = (mix: Mix) => mix.hostile > 10;

function validShaped(
  schema: JsonSchema,
  name: string,
  pools: Pools,
  depth: number,
  mix: Mix,
): fc.Arbitrary<unknown> {
  const alts = schema.anyOf ?? schema.oneOf;
  if (alts?.length) return fc.oneof(...alts.map((s) => validShaped(s, name, pools, depth + 1, mix)));
  if (schema.enum?.length) return fc.constantFrom(...schema.enum);
  if (schema.const !== undefined) return fc.constant(schema.const);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "string":
      return stringFor(schema, name, pools);
    case "integer":
    case "number": {
      const min = schema.minimum ?? schema.exclusiveMinimum ?? -1_000_000;
      const limit = Math.min(schema.maximum ?? schema.exclusiveMaximum ?? 1_000_000, Number.MAX_SAFE_INTEGER);
      // Waits (job_status waitSeconds) stay short so a run stays fast; out-of-range ones still come below.
      const max = /^wait/i.test(name) ? Math.min(limit, 2) : limit;
      // Out-of-range neighbours and extremes next to values in range.
      // Mostly small values (page sizes, generation numbers), sometimes anywhere in the range.
      const near = Math.min(max, min + 20);
      const inRange =
        type === "integer"
          ? fc.oneof(
              { weight: 4, arbitrary: fc.integer({ min, max: Math.min(max, min + 2) }) },
              { weight: 2, arbitrary: fc.integer({ min, max: near }) },
              { weight: 1, arbitrary: fc.integer({ min, max }) },
            )
          : fc.double({ min, max, noNaN: true });
      return fc.oneof(
        { weight: 100 - mix.hostile, arbitrary: inRange },
        {
          weight: mix.hostile,
          arbitrary: fc.constantFrom(min - 1, limit + 1, min + 0.5, 1e308, -1e308, 2 ** 64, -0),
        },
      );
    }
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array": {
      const item = schema.items
        ? valueFor(schema.items, name, pools, depth + 1, mix)
        : fc.anything({ maxDepth: 1 });
      const maxLength = Math.min((schema.maxItems ?? 4) + (chaotic(mix) ? 2 : 0), 8);
      return fc.array(item, { minLength: 0, maxLength });
    }
    case "object": {
      if (depth > 3) return fc.constant({});
      if (schema.properties) return argsFor(schema, pools, mix, depth + 1);
      const extra = schema.additionalProperties;
      const value =
        typeof extra === "object"
          ? valueFor(extra, name, pools, depth + 1, mix)
          : fc.anything({ maxDepth: 1 });
      return fc.dictionary(
        fc.oneof(
          {
            weight: 100 - mix.hostile,
            arbitrary: fc.constantFrom("title", "creator", "subject", "rights", "date"),
          },
          {
            weight: mix.hostile,
            arbitrary: fc.constantFrom(...HOSTILE_STRINGS.filter((s) => s.length < 200)),
          },
          { weight: 10, arbitrary: randomText(20) },
        ),
        value,
        { maxKeys: 4 },
      );
    }
    default:
      return fc.anything({ maxDepth: 1 });
  }
}

function stringFor(schema: JsonSchema, name: string, pools: Pools): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = Math.max(min, Math.min(schema.maxLength ?? 60, 60));
  const plain = randomText(max).filter((s) => s.length >= min);
  if (name === "path") {
    return fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...pools.insidePaths) },
      { weight: 3, arbitrary: fc.constantFrom(...pools.outsidePaths) },
      { weight: 1, arbitrary: plain },
    );
  }
  if (name === "job") {
    return fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...pools.jobs) },
      { weight: 1, arbitrary: plain },
    );
  }
  if (name === "confirmation") return fc.constantFrom(...pools.badTokens);
  if (/ISO 8601|2025-07/.test(schema.description ?? "")) {
    return fc.oneof(
      {
        weight: 3,
        arbitrary: fc.constantFrom("2025", "2025-07", "2025-07-15", "1850-01-01T00:00:00Z", "2024-02-29"),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom("9999-99-99", "2025-13", "yesterday", "-0001", "2025-07-15T25:61:00Z"),
      },
    );
  }
  if (REF_NAMES.test(name)) {
    const right =
      name === "mref" && pools.mrefs.length
        ? pools.mrefs
        : name === "event" && pools.events.length
          ? pools.events
          : FOLDER_NAMES.test(name)
            ? pools.folders
            : pools.refs;
    return fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...right) },
      { weight: 1, arbitrary: fc.constantFrom(...pools.refs) },
      { weight: 1, arbitrary: fc.uuid() },
      { weight: 1, arbitrary: plain },
    );
  }
  if (schema.pattern) {
    // Fields with a pattern (ids) get matching shapes and near misses.
    return fc.oneof(fc.uuid(), fc.constant(randomUUID().toUpperCase()), plain);
  }
  if (/tag/i.test(name)) {
    return fc.oneof(fc.constantFrom("open", "closed", "confidential", "no-such-tag"), plain);
  }
  if (/policy/i.test(name)) {
    return fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...(pools.policies.length ? pools.policies : ["Permanent"])) },
      { weight: 1, arbitrary: fc.uuid() },
      { weight: 1, arbitrary: plain },
    );
  }
  if (name === "schema")
    return fc.oneof(fc.constantFrom("oai_dc", "http://purl.org/dc/elements/1.1/"), plain);
  if (name === "csv") {
    const cell = (v: string) => `"${v.replaceAll('"', '""')}"`;
    return fc.oneof(
      fc
        .tuple(fc.constantFrom(...pools.refs), randomText(24), fc.constantFrom("open", "closed", "ajar"))
        .map(([ref, v, status]) => `${pools.csvHeader}\n"",${cell(ref)},${cell(v)},"","",${cell(status)}\n`),
      plain,
    );
  }
  return plain;
}

/**
 * Arguments for a tool: each listed property present or not (required ones mostly present), each value
 * valid-shaped or hostile; sometimes an unknown argument (a typo, a prototype key).
 */
export function argsFor(
  schema: JsonSchema,
  pools: Pools,
  mix: Mix = CHAOS,
  depth = 0,
): fc.Arbitrary<Record<string, unknown>> {
  const props = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const entries = Object.entries(props).map(([key, sub]) => {
    const value = key === "confirmation" ? stringFor(sub, key, pools) : valueFor(sub, key, pools, depth, mix);
    // No valid cursor can be made up: well-formed calls leave it out (chaos tries made-up ones).
    const optional = key === "confirmation" ? 0.4 : key === "cursor" && !chaotic(mix) ? 0.05 : mix.optional;
    const presence = required.has(key) ? (chaotic(mix) ? 0.9 : 1) : optional;
    return fc
      .tuple(fc.constant(key), fc.double({ min: 0, max: 1, noNaN: true }), value)
      .map(([k, roll, v]) => (roll < presence ? ([k, v] as const) : undefined));
  });
  const unknown = fc.oneof(
    { weight: 100 - mix.unknown, arbitrary: fc.constant(undefined) },
    {
      weight: mix.unknown,
      arbitrary: fc.tuple(
        fc.constantFrom("qeury", "confirm", "force", "dryRun", "__proto__", "constructor", "REF", "ref "),
        fc.anything({ maxDepth: 1 }),
      ),
    },
  );
  return fc.tuple(fc.tuple(...entries), unknown).map(([pairs, extra]) => {
    // JSON.parse keeps a "__proto__" key as an own property, as it would arrive over the wire.
    const out: Record<string, unknown> = JSON.parse("{}");
    for (const p of pairs) if (p) out[p[0]] = p[1];
    if (extra) Object.defineProperty(out, extra[0], { value: extra[1], enumerable: true, writable: true });
    return out;
  });
}
