import type { ServerContext } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ConfirmationGuard, type Decision } from "../../src/guards/confirm.js";
import { MemoryState } from "../../src/state/memory.js";
import { type AnyTool, defineTool } from "../../src/tools/define.js";

/**
 * The confirmation guard on its own (its end-to-end behaviour through real tools and a real service is in
 * test/guards/confirm-e2e.test.ts): what a token is bound to and every way it is refused.
 */

/** A stand-in for the world the plan reads: ref → state. */
const world = new Map<string, string>([
  ["a", "v1"],
  ["b", "v1"],
]);

const tool: AnyTool = defineTool({
  name: "wipe",
  title: "Wipe",
  description: "test",
  toolset: "lifecycle",
  inputSchema: z.object({ ref: z.string(), deep: z.boolean().optional() }),
  outputSchema: z.object({ ok: z.boolean() }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async confirm({ ref, deep }) {
    if (!deep) return undefined;
    return {
      summary: `Wipe ${ref}`,
      details: ["one line"],
      targets: [{ ref, title: `Title ${ref}`, fingerprint: world.get(ref) ?? "none" }],
    };
  },
  async handler() {
    return { structured: { ok: true } };
  },
});
const other: AnyTool = { ...tool, name: "other" };

const mcp = {
  mcpReq: { inputResponses: undefined, requestState: () => undefined },
} as unknown as ServerContext;
const call = (user = "curator") => ({ ctx: {}, mcp, canAsk: false, user });

async function preview(guard: ConfirmationGuard, args: Record<string, unknown>) {
  const d = await guard.decide(tool, args, call());
  if (d.kind !== "preview") throw new Error(`expected a preview, got ${d.kind}`);
  return d;
}

function refusal(d: Decision): string {
  if (d.kind !== "refused") throw new Error(`expected a refusal, got ${d.kind}`);
  return d.message;
}

describe("confirmation guard", () => {
  it("runs at once when the plan says no confirmation is needed", async () => {
    const d = await new ConfirmationGuard(undefined).decide(tool, { ref: "a" }, call());
    expect(d).toEqual({ kind: "run", args: { ref: "a" } });
  });

  it("previews, then runs once with the token, without the token in the handler's arguments", async () => {
    const guard = new ConfirmationGuard(undefined);
    const p = await preview(guard, { ref: "a", deep: true });
    expect(p.plan.summary).toBe("Wipe a");
    expect(p.token).toMatch(/^pc1\./);
    const d = await guard.decide(tool, { ref: "a", deep: true, confirmation: p.token }, call());
    expect(d).toMatchObject({ kind: "run", args: { ref: "a", deep: true }, confirmedBy: "token" });
    // Until the write is done (released), the target is leased: another confirmation must wait its turn.
    expect(
      refusal(await guard.decide(tool, { ref: "a", deep: true, confirmation: p.token }, call())),
    ).toMatch(/a is being changed by another confirmation right now; nothing was changed/);
    await (d.kind === "run" ? d.release?.() : undefined);
    expect(
      refusal(await guard.decide(tool, { ref: "a", deep: true, confirmation: p.token }, call())),
    ).toMatch(/already used; nothing was changed/);
  });

  it("of many confirmations of one target at once, one runs; the others are refused, and the lease is freed", async () => {
    const state = new MemoryState();
    const guards = [0, 1, 2].map(() => new ConfirmationGuard("k".repeat(40), undefined, undefined, state));
    const previews = await Promise.all(guards.map((g) => preview(g, { ref: "a", deep: true })));
    const decisions = await Promise.all(
      previews.map((p, i) =>
        (guards[i] as ConfirmationGuard).decide(
          tool,
          { ref: "a", deep: true, confirmation: p.token },
          call(),
        ),
      ),
    );
    const runs = decisions.filter((d) => d.kind === "run");
    expect(runs).toHaveLength(1);
    for (const d of decisions.filter((d) => d.kind !== "run")) {
      expect(refusal(d)).toMatch(/being changed by another confirmation.*nothing was changed/);
    }
    await (runs[0]?.kind === "run" ? runs[0].release?.() : undefined);
    expect(await state.lease("target:a", 1000)).toBeDefined();
  });

  it("a token spent through one instance is refused by another sharing the state", async () => {
    const state = new MemoryState();
    const [one, two] = [0, 1].map(() => new ConfirmationGuard("k".repeat(40), undefined, undefined, state));
    const p = await preview(one as ConfirmationGuard, { ref: "a", deep: true });
    const d = await (two as ConfirmationGuard).decide(
      tool,
      { ref: "a", deep: true, confirmation: p.token },
      call(),
    );
    expect(d.kind).toBe("run");
    await (d.kind === "run" ? d.release?.() : undefined);
    expect(
      refusal(
        await (one as ConfirmationGuard).decide(
          tool,
          { ref: "a", deep: true, confirmation: p.token },
          call(),
        ),
      ),
    ).toMatch(/already used/);
  });

  it("refuses a token for other arguments, another tool or another user", async () => {
    const guard = new ConfirmationGuard(undefined);
    const p = await preview(guard, { ref: "a", deep: true });
    expect(
      refusal(await guard.decide(tool, { ref: "b", deep: true, confirmation: p.token }, call())),
    ).toMatch(/different arguments; nothing was changed/);
    expect(
      refusal(await guard.decide(other, { ref: "a", deep: true, confirmation: p.token }, call())),
    ).toMatch(/issued for `wipe`, not `other`/);
    expect(
      refusal(await guard.decide(tool, { ref: "a", deep: true, confirmation: p.token }, call("reader"))),
    ).toMatch(/another user/);
    // Still good for what it was issued for: refusals do not spend it.
    expect((await guard.decide(tool, { ref: "a", deep: true, confirmation: p.token }, call())).kind).toBe(
      "run",
    );
  });

  it("refuses forged, altered and foreign-key tokens", async () => {
    const guard = new ConfirmationGuard("k".repeat(40));
    const p = await preview(guard, { ref: "a", deep: true });
    const body = p.token.slice(4);
    const flipped = `pc1.${body.slice(0, 10)}${body[10] === "A" ? "B" : "A"}${body.slice(11)}`;
    for (const bad of ["x", "pc1.", `pc1.${"A".repeat(80)}`, flipped, `${p.token}A`]) {
      expect(refusal(await guard.decide(tool, { ref: "a", deep: true, confirmation: bad }, call()))).toMatch(
        /not valid .*nothing was changed/,
      );
    }
    const foreign = new ConfirmationGuard("z".repeat(40));
    expect(
      refusal(await foreign.decide(tool, { ref: "a", deep: true, confirmation: p.token }, call())),
    ).toMatch(/PRESERVATION_CONFIRM_KEY/);
    // A token sealed by one instance is accepted by another with the same key.
    const twin = new ConfirmationGuard("k".repeat(40));
    expect((await twin.decide(tool, { ref: "a", deep: true, confirmation: p.token }, call())).kind).toBe(
      "run",
    );
  });

  it("refuses an expired token", async () => {
    let now = 1_000_000;
    const guard = new ConfirmationGuard(undefined, 60_000, () => now);
    const p = await preview(guard, { ref: "a", deep: true });
    now += 60_001;
    expect(
      refusal(await guard.decide(tool, { ref: "a", deep: true, confirmation: p.token }, call())),
    ).toMatch(/expired.*nothing was changed/);
  });

  it("refuses when the target changed since the preview, naming it", async () => {
    const guard = new ConfirmationGuard(undefined);
    const p = await preview(guard, { ref: "b", deep: true });
    world.set("b", "v2");
    const message = refusal(
      await guard.decide(tool, { ref: "b", deep: true, confirmation: p.token }, call()),
    );
    expect(message).toMatch(/“Title b” \(b\) changed since the preview; nothing was changed/);
  });
});
