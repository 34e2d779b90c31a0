import { z } from "zod";
import type { AuditEntry } from "../../guards/audit.js";
import { StateUnavailableError } from "../../state/types.js";
import type { ToolContext } from "../context.js";
import { defineTool, MANAGER_ROLES, UserInputError } from "../define.js";
import { cursor, date, limit, page, refParam } from "../discovery/params.js";
import { decodeCursor, pageFacts, queryHash } from "../support/cursor.js";
import { checkRange, toInstant } from "../support/dates.js";
import { READ_ONLY } from "../support/hints.js";
import { budgetNote, withinBudget } from "../support/paging.js";
import { clip, lines, pageNote, plural } from "../support/text.js";

/**
 * What was changed through the assistant: the audit trail (guards/audit.ts), newest first. A person sees
 * their own entries; managers and administrators see everyone's (the service's own rule for its event
 * history is similar: a manager oversees the repository). Each entry carries the id `undo_metadata_change`
 * takes, so an undo no longer depends on the conversation still holding it.
 *
 * Paging is by offset under a fixed upper bound: the first page pins `until` to the moment it was asked, and
 * the cursor carries it, so entries written meanwhile do not shift later pages.
 */

const input = z.object({
  person: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe("Whose entries (managers and administrators may name anyone)"),
  target: refParam("Only entries that touched this ref").optional(),
  since: date("Written on or after"),
  until: date("Written on or before (inclusive)"),
  limit: limit(20, 50),
  cursor,
});

const target = z.object({ ref: z.string(), title: z.string() });
const entry = z.object({
  id: z.string(),
  time: z.string(),
  user: z.string(),
  tool: z.string(),
  outcome: z.enum(["done", "started", "refused", "failed", "declined"]),
  targets: z.array(target),
  message: z.string().optional(),
  job: z.string().optional(),
  undoable: z.boolean(),
});

const output = z.object({
  entries: z.array(entry),
  /** "own": limited to the caller's entries (not a manager or administrator). */
  scope: z.enum(["own", "everyone"]),
  ...page,
});

/** Targets named on an entry's line: the first few, then a count of the rest. */
const SHOWN_TARGETS = 3;

function undoable(e: AuditEntry): boolean {
  return e.outcome === "done" && !!e.previous && (!!e.previous.fragment || e.previous.title !== undefined);
}

function entryLine(e: AuditEntry): string {
  const targets = e.targets.slice(0, SHOWN_TARGETS).map((t) => `“${clip(t.title, 80)}” ${t.ref}`);
  if (e.targets.length > SHOWN_TARGETS) targets.push(`and ${e.targets.length - SHOWN_TARGETS} more`);
  return lines(
    `- ${e.time} ${e.user}: ${e.tool} ${e.outcome}${targets.length ? ` on ${targets.join(", ")}` : ""}${e.job ? `; job ${e.job}` : ""}`,
    e.message && e.outcome !== "done" && e.outcome !== "started"
      ? `  why: ${clip(e.message, 200)}`
      : undefined,
    `  audit entry ${e.id}${undoable(e) ? " (`undo_metadata_change` with this id puts back what was there before)" : ""}`,
  );
}

/** The cursor's hash carries the pinned upper bound: `<question>@<ms>`. */
function pinnedUntil(cursorText: string | undefined): number | undefined {
  if (!cursorText) return undefined;
  try {
    const body = JSON.parse(Buffer.from(cursorText, "base64url").toString("utf8")) as { h?: unknown };
    const ms = typeof body.h === "string" ? Number(body.h.split("@")[1]) : Number.NaN;
    return Number.isSafeInteger(ms) ? ms : undefined;
  } catch {
    return undefined;
  }
}

export default defineTool({
  name: "audit_log",
  title: "What was changed through the assistant",
  description:
    "What was changed through this server, newest first (who, tool, targets, when, outcome, job) by person, target, dates; each entry's id is what `undo_metadata_change` takes. Managers and administrators see all, others their own.",
  toolset: "operations",
  // Only where the trail outlives the process: PRESERVATION_AUDIT_LOG or the shared store.
  requires: "audit-log",
  inputSchema: input,
  outputSchema: output,
  annotations: READ_ONLY,
  async handler(args, ctx: ToolContext) {
    const me = ctx.session.username;
    const { roles } = await ctx.session.whoAmI(ctx.signal);
    const everyone = roles.some((r) => (MANAGER_ROLES as readonly string[]).includes(r));
    if (!everyone && args.person !== undefined && args.person !== me) {
      throw new UserInputError(
        `You may list only your own entries (${me}); managers and administrators see everyone's. Leave out \`person\`.`,
      );
    }
    const since = args.since ? toInstant(args.since, "start", "since") : undefined;
    const asked = args.until ? toInstant(args.until, "end", "until") : undefined;
    checkRange(since, asked, ["since", "until"]);
    const question = queryHash("audit_log", args);
    const pinned = pinnedUntil(args.cursor) ?? Date.now();
    const hash = `${question}@${pinned}`;
    const offset = decodeCursor(args.cursor, hash);
    const until = asked && Date.parse(asked) < pinned ? asked : new Date(pinned).toISOString();
    const user = everyone ? args.person : me;

    let listed: { entries: AuditEntry[]; total: number };
    try {
      listed = await ctx.audit.list({
        ...(user !== undefined ? { user } : {}),
        ...(args.target ? { target: args.target } : {}),
        ...(since ? { since } : {}),
        until,
        limit: args.limit,
        offset,
      });
    } catch (err) {
      if (err instanceof StateUnavailableError) {
        throw new UserInputError(
          "The audit trail is kept in the team server's shared store (PRESERVATION_STATE_URL), which cannot be reached now; try again once it is back.",
        );
      }
      throw err;
    }
    const { kept, cut } = withinBudget(listed.entries);
    const paging = pageFacts(offset, kept.length, listed.total, hash);
    const filters = [
      user !== undefined ? `by ${user}` : undefined,
      args.target ? `on ${args.target}` : undefined,
      since ? `from ${since}` : undefined,
      args.until ? `until ${until}` : undefined,
    ].filter(Boolean);
    const which = filters.length ? ` ${filters.join(", ")}` : "";
    const scopeNote = everyone ? "" : " (only your own: managers and administrators see everyone's)";
    const text = lines(
      listed.total === 0
        ? `No entry in the audit trail${which}${scopeNote}.`
        : `${plural(listed.total, "entry", "entries")} in the audit trail${which}${scopeNote}, newest first:`,
      ...kept.map(entryLine),
      budgetNote(cut),
      pageNote(offset, kept.length, listed.total, paging.nextCursor),
    );
    return {
      structured: {
        entries: kept.map((e) => ({
          id: e.id,
          time: e.time,
          user: e.user,
          tool: e.tool,
          outcome: e.outcome,
          targets: e.targets.map(({ ref, title }) => ({ ref, title })),
          ...(e.message ? { message: clip(e.message, 500) } : {}),
          ...(e.job ? { job: e.job } : {}),
          undoable: undoable(e),
        })),
        scope: everyone ? ("everyone" as const) : ("own" as const),
        ...paging,
      },
      text,
    };
  },
});
