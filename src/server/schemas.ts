import type { z } from "zod";

/**
 * The JSON Schemas a client lists, kept compact: every tool's schemas are sent to the model on every turn,
 * so bytes that tell it nothing are cut. Validation is untouched (the zod schema still does it); only the
 * advertised JSON Schema is pruned: the `$schema` URI everywhere; output schemas (which programs read, not the
 * model) are declared to one level: the answer's own properties, their types and which are always there, but
 * not what is inside each (about 4,000 tokens of the default list otherwise). The full zod schema still checks
 * every answer before it leaves the server.
 */

type JsonNode = unknown;
type JsonSchemaOptions = { target: string };
interface StandardWithJson {
  "~standard": {
    version: 1;
    vendor: string;
    validate: (value: unknown) => unknown;
    jsonSchema?: {
      input: (opts: JsonSchemaOptions) => Record<string, unknown>;
      output: (opts: JsonSchemaOptions) => Record<string, unknown>;
    };
  };
}

function prune(node: JsonNode, output: boolean): JsonNode {
  if (Array.isArray(node)) return node.map((n) => prune(n, output));
  if (!node || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if (key === "$schema") continue;
    if (output && key === "properties" && value && typeof value === "object") {
      out[key] = Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([name, schema]) => [name, typeOnly(schema)]),
      );
      continue;
    }
    // Keywords only: a property *named* description has an object as its value, a keyword a string.
    if (output && key === "description" && typeof value === "string") continue;
    if (output && key === "additionalProperties" && value === false) continue;
    out[key] = prune(value, output);
  }
  return out;
}

/** A property of an answer as listed: its type, or the types of its alternatives (optional values). */
function typeOnly(schema: unknown): Record<string, unknown> {
  if (!schema || typeof schema !== "object") return {};
  const s = schema as Record<string, unknown>;
  if (s.type !== undefined) return { type: s.type };
  for (const combinator of ["anyOf", "oneOf"]) {
    const options = s[combinator];
    if (Array.isArray(options)) {
      const types = [
        ...new Set(options.flatMap((o) => (o && typeof o === "object" && "type" in o ? [o.type] : []))),
      ];
      if (types.length === options.length) return { type: types.length === 1 ? types[0] : types };
    }
  }
  return {};
}

function compact<S extends z.ZodType>(schema: S, output: boolean): S {
  const std = (schema as unknown as StandardWithJson)["~standard"];
  const json = std.jsonSchema;
  if (!json) return schema;
  // Computed once per target and direction: the same schema is listed for every server instance.
  const cache = new Map<string, Record<string, unknown>>();
  const memo = (io: "input" | "output", opts: JsonSchemaOptions) => {
    const key = `${io} ${opts.target}`;
    let result = cache.get(key);
    if (!result) {
      result = prune(json[io](opts), output) as Record<string, unknown>;
      cache.set(key, result);
    }
    // A copy: the SDK may add to what it lists (e.g. `type: "object"`).
    return structuredClone(result);
  };
  const wrapped: StandardWithJson = {
    "~standard": {
      ...std,
      // zod's own validate, not a wrapper around it: every call's arguments and answer pass here.
      validate: std.validate,
      jsonSchema: {
        input: (opts) => memo("input", opts),
        output: (opts) => memo("output", opts),
      },
    },
  };
  // The SDK reads only `~standard` (validation and JSON Schema); it stays a zod schema to the type checker.
  return wrapped as unknown as S;
}

/** An input schema as listed: descriptions kept (they tell the model what to pass). */
export function listedInput<S extends z.ZodType>(schema: S): S {
  return compact(schema, false);
}

/** An output schema as listed: structure only. */
export function listedOutput<S extends z.ZodType>(schema: S): S {
  return compact(schema, true);
}

/**
 * A registered schema made on its first use (a call's validation, or a listing): every start registers
 * ~100 tools, and making each one's registered schemas (zod copies: strict, with `confirmation`, partial)
 * took ~5 ms of it, while a session lists the tools at most once and calls a few. Like `compact`, it offers
 * the SDK only `~standard` (zod >= 4.2 gives every schema its JSON Schema there).
 */
export function lazySchema<S extends z.ZodType>(make: () => S): S {
  const lazy = {} as StandardWithJson;
  let made: StandardWithJson["~standard"] | undefined;
  // Once made, the made schema's own `~standard` takes the lazy one's place: every later call's validation
  // goes straight to zod, with no step of ours in between.
  const std = () => {
    if (made === undefined) {
      made = (make() as unknown as StandardWithJson)["~standard"];
      lazy["~standard"] = made;
    }
    return made;
  };
  const json = (io: "input" | "output", opts: JsonSchemaOptions) => {
    const convert = std().jsonSchema;
    if (!convert) throw new Error("a registered schema needs zod >= 4.2 (its JSON Schema)");
    return convert[io](opts);
  };
  lazy["~standard"] = {
    version: 1,
    vendor: "zod",
    validate: (value) => std().validate(value),
    jsonSchema: { input: (opts) => json("input", opts), output: (opts) => json("output", opts) },
  };
  return lazy as unknown as S;
}
