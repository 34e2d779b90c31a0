import { z } from "zod";

/**
 * Unknown argument names are refused, naming the valid ones: a misspelt `qeury` would otherwise be dropped
 * silently and a search would return the whole collection. Every registered input schema is made strict
 * (its JSON Schema says `additionalProperties: false`), and the message for the refusal is set once here,
 * because the SDK validates with the schema's own error messages.
 */

let installed = false;

/** Installs the refusal's message (once): by strictInput, and by the server as it registers tools. */
export function installUnknownArgumentMessage(): void {
  if (installed) return;
  installed = true;
  z.config({
    customError: (iss) => {
      if (iss.code !== "unrecognized_keys") return undefined;
      const shape = (iss.inst as { shape?: Record<string, unknown> } | undefined)?.shape;
      const valid = shape ? Object.keys(shape) : [];
      const names = iss.keys.map((k) => `"${k}"`).join(", ");
      const takes = valid.length ? `it takes ${valid.join(", ")}` : "it takes no arguments";
      return `Unknown argument${iss.keys.length > 1 ? "s" : ""} ${names}: ${takes}. Nothing was done.`;
    },
  });
}

/** The schema as registered: strict, with the unknown-argument message installed. */
export function strictInput<S extends z.ZodObject>(schema: S): S {
  installUnknownArgumentMessage();
  return schema.strict() as unknown as S;
}
