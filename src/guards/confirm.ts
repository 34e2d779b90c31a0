import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";
import {
  acceptedContent,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { MemoryState } from "../state/memory.js";
import type { Lease, SharedState } from "../state/types.js";
import type { AnyTool, ConfirmPlan } from "../tools/define.js";
import { digestArgs } from "./audit.js";

/**
 * Confirmation of destructive or wide acts, declared once on the tool (`confirm`, a plan function) and done
 * here once for every tool. The first call changes nothing: it plans, and either asks the person in a form
 * (clients that can show one: an input-required result, which the SDK turns into an elicitation for
 * 2025-era clients) or answers with the plan and a confirmation token. The token (and the state carried
 * through the person's answer) is sealed with AES-256-GCM under a key from PRESERVATION_CONFIRM_KEY (or a
 * random per-process key), so it cannot be forged or read, and any server with the same key accepts it. It
 * is bound to the tool, a digest of the exact arguments, the user, and each target's fingerprint; it expires
 * after a few minutes and is accepted once, on every instance: spent tokens are kept in the shared state
 * (state/, Valkey/Redis for a team server) until they expire. The confirmed call takes a short lease on each
 * target there, plans again and refuses, changing nothing, when any target changed since the preview; the
 * lease is held until the write is done (the caller releases it), so re-check and write are one step across
 * every instance: of N confirmations of one target, one is carried out and the others are refused.
 */

export const CONFIRM_TTL_MS = 5 * 60_000;
/**
 * How long a spent token is remembered past its expiry: instances' clocks may differ a little, and a token
 * one instance still takes for valid must stay spent there.
 */
const SPENT_MARGIN_MS = 60_000;
/** The lease on a confirmed call's targets lapses by itself after this, should the instance die mid-write. */
export const DEFAULT_LEASE_MS = 60_000;

/**
 * What the token carries of a digest: 128 bits, base64url. Plenty to notice a change (nobody chooses the
 * digests here, and the token is sealed), and it keeps the token a line a model repeats without mistakes.
 */
function short(value: string): string {
  return createHash("sha256").update(value).digest().subarray(0, 16).toString("base64url");
}
const TOKEN_PREFIX = "pc1.";
const ANSWER_KEY = "confirm_action";
const AnswerSchema = z.object({
  confirm: z
    .boolean()
    .meta({ title: "Go ahead?", description: "Tick to carry this out; leave unticked to change nothing" }),
});

interface Sealed {
  /** Tool name. */
  t: string;
  /** Digest of the arguments (without `confirmation`). */
  a: string;
  /** The signed-in user. */
  u: string;
  /** Targets: [ref, fingerprint]. */
  g: [string, string][];
  /** Expiry, ms since the epoch. */
  e: number;
  /** Nonce: single use. */
  n: string;
}

export type Decision =
  /**
   * Run the handler with these arguments (the confirmation stripped); `plan` when one was confirmed. Then
   * `release` (always, even when the handler fails): it frees the targets' lease for the next confirmation.
   */
  | {
      kind: "run";
      args: Record<string, unknown>;
      plan?: ConfirmPlan;
      confirmedBy?: "token" | "person";
      release?: () => Promise<void>;
    }
  /** Answer with the plan and a token; nothing changed. */
  | { kind: "preview"; plan: ConfirmPlan; token: string; expiresAt: string }
  /** Ask the person (input-required result); nothing changed. */
  | { kind: "ask"; plan: ConfirmPlan; result: InputRequiredResult }
  /** Refused; nothing changed. */
  | { kind: "refused"; message: string; plan?: ConfirmPlan; outcome: "refused" | "declined" };

export interface ConfirmCall<C> {
  ctx: C;
  mcp: ServerContext;
  /** The client can show a form (elicitation). */
  canAsk: boolean;
  user: string;
}

export class ConfirmationGuard {
  readonly #key: Buffer;

  constructor(
    keyText: string | undefined,
    readonly ttlMs: number = CONFIRM_TTL_MS,
    private readonly now: () => number = Date.now,
    /** Spent tokens and target leases: in-process, or shared by every instance of a team server. */
    readonly state: SharedState = new MemoryState(now),
    /** At least as long as a tool call may take (the lease must outlive the write it guards). */
    readonly leaseMs: number = DEFAULT_LEASE_MS,
  ) {
    this.#key = keyText
      ? Buffer.from(hkdfSync("sha256", keyText, "preservation-mcp", "confirmation tokens v1", 32))
      : randomBytes(32);
  }

  seal(payload: Sealed): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.#key, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(payload), "utf8"), cipher.final()]);
    return TOKEN_PREFIX + Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url");
  }

  open(token: string): Sealed | undefined {
    if (typeof token !== "string" || !token.startsWith(TOKEN_PREFIX) || token.length > 8192) return undefined;
    const raw = Buffer.from(token.slice(TOKEN_PREFIX.length), "base64url");
    if (raw.length < 12 + 16 + 2) return undefined;
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.#key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(raw.length - 16));
      const text = Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]);
      const p = JSON.parse(text.toString("utf8")) as Sealed;
      if (typeof p.t !== "string" || typeof p.a !== "string" || !Array.isArray(p.g)) return undefined;
      return p;
    } catch {
      return undefined;
    }
  }

  /** Decides what one call of a tool with a `confirm` plan does. */
  async decide<C>(tool: AnyTool, rawArgs: Record<string, unknown>, call: ConfirmCall<C>): Promise<Decision> {
    const { confirmation, ...args } = rawArgs;
    const plan = (): Promise<ConfirmPlan | undefined> =>
      tool.confirm?.(args, call.ctx) ?? Promise.resolve(undefined);

    // The person answered the form we showed (re-entry after an input-required result).
    const answered = inputResponse(call.mcp.mcpReq.inputResponses, ANSWER_KEY);
    if (answered.kind === "elicit") {
      const state = call.mcp.mcpReq.requestState<string>();
      const checked = this.check(tool, args, call.user, typeof state === "string" ? state : undefined);
      if (typeof checked === "string") return { kind: "refused", message: checked, outcome: "refused" };
      const answer = acceptedContent(call.mcp.mcpReq.inputResponses, ANSWER_KEY, AnswerSchema);
      if (!answer?.confirm) {
        return {
          kind: "refused",
          outcome: "declined",
          message: "The person did not confirm; nothing was changed.",
        };
      }
      return this.underLease(tool, args, checked, plan, "person");
    }

    if (confirmation !== undefined) {
      const checked = this.check(tool, args, call.user, String(confirmation));
      if (typeof checked === "string") return { kind: "refused", message: checked, outcome: "refused" };
      return this.underLease(tool, args, checked, plan, "token");
    }

    const p = await plan();
    if (!p) return { kind: "run", args };
    const { token: sealed, expiresAt } = this.issue(tool.name, args, p, call.user);
    if (call.canAsk) {
      return {
        kind: "ask",
        plan: p,
        result: inputRequired({
          inputRequests: {
            [ANSWER_KEY]: inputRequired.elicit({
              message: planText(p),
              requestedSchema: AnswerSchema,
            }),
          },
          requestState: sealed,
        }),
      };
    }
    return { kind: "preview", plan: p, token: sealed, expiresAt };
  }

  /**
   * A token for `args` of `toolName` bound to the plan's targets: what a preview answers with, and what a
   * tool whose own read-only step is the preview (a CSV edit's dry run) hands out for the call that acts.
   */
  issue(
    toolName: string,
    args: Record<string, unknown>,
    p: ConfirmPlan,
    user: string,
  ): { token: string; expiresAt: string } {
    const expires = this.now() + this.ttlMs;
    const token = this.seal({
      t: toolName,
      a: short(digestArgs(args)),
      u: user,
      g: p.targets.map((t) => [t.ref, short(t.fingerprint)]),
      e: expires,
      n: randomBytes(12).toString("base64url"),
    });
    return { token, expiresAt: new Date(expires).toISOString() };
  }

  /** Verifies a token against this call; a string is the refusal the model reads. */
  private check(
    tool: AnyTool,
    args: Record<string, unknown>,
    user: string,
    token: string | undefined,
  ): Sealed | string {
    const again = `Call \`${tool.name}\` without \`confirmation\` for a fresh preview.`;
    const sealed = token === undefined ? undefined : this.open(token);
    if (!sealed) {
      return `The confirmation token is not valid (damaged, made up, or from a server with a different PRESERVATION_CONFIRM_KEY); nothing was changed. ${again}`;
    }
    if (sealed.t !== tool.name) {
      return `The confirmation token was issued for \`${sealed.t}\`, not \`${tool.name}\`; nothing was changed. ${again}`;
    }
    if (sealed.u !== user) {
      return `The confirmation token was issued to another user; nothing was changed. ${again}`;
    }
    if (sealed.a !== short(digestArgs(args))) {
      return `The confirmation token was issued for different arguments; nothing was changed. Repeat exactly the previewed arguments, or ${again[0]?.toLowerCase()}${again.slice(1)}`;
    }
    if (this.now() > sealed.e) {
      return `The confirmation token expired (they last ${Math.round(this.ttlMs / 60_000) || 1} minutes); nothing was changed. ${again}`;
    }
    return sealed;
  }

  /**
   * Leases every target (in one order, all or none), then re-checks them and spends the token. The run
   * decision carries the release; every refusal has released already. A store that cannot be reached
   * throws StateUnavailableError: nothing was leased, spent or changed.
   */
  private async underLease(
    tool: AnyTool,
    args: Record<string, unknown>,
    sealed: Sealed,
    plan: () => Promise<ConfirmPlan | undefined>,
    by: "token" | "person",
  ): Promise<Decision> {
    const refs = [...new Set(sealed.g.map(([ref]) => ref))].sort();
    const held: Lease[] = [];
    const release = async () => {
      await Promise.all(held.splice(0).map((l) => l.release().catch(() => {})));
    };
    try {
      for (const ref of refs) {
        const lease = await this.state.lease(`target:${ref}`, this.leaseMs);
        if (!lease) {
          await release();
          return {
            kind: "refused",
            outcome: "refused",
            message: `${ref} is being changed by another confirmation right now; nothing was changed. Call \`${tool.name}\` without \`confirmation\` in a moment to see what it would do then.`,
          };
        }
        held.push(lease);
      }
      const decision = this.recheck(tool, args, sealed, await plan(), by);
      if (decision.kind !== "run") {
        await release();
        return decision;
      }
      const ttl = sealed.e - this.now() + SPENT_MARGIN_MS;
      if (!(await this.state.spendOnce(`confirm:${sealed.n}`, ttl))) {
        await release();
        return {
          kind: "refused",
          outcome: "refused",
          message: `The confirmation token was already used; nothing was changed. Call \`${tool.name}\` without \`confirmation\` for a fresh preview.`,
        };
      }
      return { ...decision, release };
    } catch (err) {
      await release();
      throw err;
    }
  }

  /** The targets must be exactly as they were previewed; only then is the token spent (by the caller). */
  private recheck(
    tool: AnyTool,
    args: Record<string, unknown>,
    sealed: Sealed,
    now: ConfirmPlan | undefined,
    by: "token" | "person",
  ): Decision {
    const before = new Map(sealed.g);
    const changed =
      !now ||
      now.targets.length !== before.size ||
      now.targets.some((t) => before.get(t.ref) !== short(t.fingerprint));
    if (changed) {
      const which = now?.targets.find((t) => before.get(t.ref) !== short(t.fingerprint));
      const what = which ? `“${which.title}” (${which.ref})` : "What the preview showed";
      return {
        kind: "refused",
        outcome: "refused",
        ...(now ? { plan: now } : {}),
        message: `${what} changed since the preview; nothing was changed. Call \`${tool.name}\` without \`confirmation\` to see what it would do now.`,
      };
    }
    return { kind: "run", args, plan: now, confirmedBy: by };
  }
}

/** The plan as the person reads it: the summary, then the details. */
export function planText(plan: ConfirmPlan): string {
  return [plan.summary, ...plan.details].join("\n");
}

/** What a preview adds to the tool's structured answer. */
export const ConfirmationRequiredSchema = z.object({
  summary: z.string(),
  details: z.array(z.string()),
  targets: z.array(z.object({ ref: z.string(), title: z.string() })),
  preview: z.record(z.string(), z.unknown()).optional(),
  token: z.string().describe("Pass back as `confirmation` once the person agreed"),
  expiresAt: z.string(),
});
