import { describe, expect, it } from "vitest";
import { z } from "zod";
import { lazySchema } from "../../src/server/schemas.js";

/**
 * lazySchema (src/server/schemas.ts): a registered tool's schema is made on its first use, once, and from then
 * on the SDK validates through zod's own `~standard`, with no step of ours in between on every call.
 */

interface Standard {
  "~standard": {
    validate: (v: unknown) => { value?: unknown; issues?: unknown[] };
    jsonSchema: { input: (o: { target: string }) => Record<string, unknown> };
  };
}

describe("lazySchema", () => {
  it("makes the schema on first use only, then hands out zod's own validate", () => {
    let made = 0;
    const real = z.object({ ref: z.string() }).strict();
    const lazy = lazySchema(() => {
      made++;
      return real;
    }) as unknown as Standard;
    expect(made).toBe(0);

    const before = lazy["~standard"];
    expect(before.validate({ ref: "a" })).toEqual({ value: { ref: "a" } });
    expect(made).toBe(1);
    // From now on the SDK reads zod's own `~standard`.
    const realStd = (real as unknown as Standard)["~standard"];
    expect(lazy["~standard"]).toBe(realStd);
    expect(lazy["~standard"].validate({ ref: 1 }).issues?.length).toBeGreaterThan(0);

    // Whoever kept the first `~standard` still gets the same schema, not a second one.
    expect(before.validate({ ref: "b" })).toEqual({ value: { ref: "b" } });
    expect(before.jsonSchema.input({ target: "draft-2020-12" })).toMatchObject({
      properties: { ref: { type: "string" } },
    });
    expect(made).toBe(1);
  });

  it("makes the schema when it is listed before any call", () => {
    let made = 0;
    const lazy = lazySchema(() => {
      made++;
      return z.object({ n: z.number() });
    }) as unknown as Standard;
    expect(lazy["~standard"].jsonSchema.input({ target: "draft-2020-12" })).toMatchObject({
      properties: { n: { type: "number" } },
    });
    expect(made).toBe(1);
    expect(lazy["~standard"].validate({ n: 2 })).toEqual({ value: { n: 2 } });
    expect(made).toBe(1);
  });
});
