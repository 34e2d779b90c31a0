import { z } from "zod";
import type { ConfigEvent } from "../../api/admin.js";
import type { ToolContext } from "../context.js";
import { defineTool, MANAGER_ROLES } from "../define.js";
import { READ_ONLY } from "../support/hints.js";
import { clip, lines, pageNote } from "../support/text.js";

const CATEGORIES = [
  "USER",
  "SECURITY",
  "STORAGE",
  "SETTINGS",
  "AUTHENTICATION",
  "METADATA",
  "REGISTRY",
  "SYSTEM",
] as const;
const COMMANDS = ["CREATE", "UPDATE", "DELETE", "APPLY", "ENABLE", "DISABLE"] as const;
/** Characters of an event's details shown in the structured answer. */
const MAX_DETAILS = 600;

const isoDate = z
  .string()
  .trim()
  .regex(/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/, "an ISO 8601 date, e.g. 2025-03-01");

const input = z.object({
  category: z.enum(CATEGORIES).optional().describe("Only this kind of change"),
  commandType: z.enum(COMMANDS).optional().describe("Only this action"),
  username: z.string().trim().min(1).max(256).optional().describe("Only changes made by this user"),
  from: isoDate.optional().describe("From this date (ISO 8601, inclusive)"),
  to: isoDate.optional().describe("Up to this date (ISO 8601, inclusive)"),
  limit: z.number().int().min(1).max(100).default(20).describe("Events to show (default 20, at most 100)"),
  offset: z.number().int().min(0).default(0).describe("Skip this many (newest first); for the next page"),
});

const output = z.object({
  events: z.array(
    z.object({
      at: z.string(),
      username: z.string(),
      category: z.string(),
      commandType: z.string(),
      subject: z.string(),
      summary: z.string(),
      /** The event's details as JSON, cut to MAX_DETAILS characters. */
      details: z.string().optional(),
    }),
  ),
  total: z.number(),
  offset: z.number(),
  /** Counts by category among the events shown. */
  byCategory: z.record(z.string(), z.number()),
  authentication: z.object({ maxSessionLifetimeMins: z.number() }),
});

function eventOut(e: ConfigEvent) {
  const details = e.details === null || e.details === undefined ? undefined : JSON.stringify(e.details);
  return {
    at: e.at,
    username: e.username,
    category: e.category,
    commandType: e.commandType,
    subject: e.subject,
    summary: e.summary,
    ...(details
      ? { details: details.length > MAX_DETAILS ? `${details.slice(0, MAX_DETAILS - 1)}…` : details }
      : {}),
  };
}

function hours(mins: number): string {
  return mins % 60 === 0 ? `${mins / 60} h` : `${mins} min`;
}

export default defineTool({
  name: "configuration_history",
  title: "Configuration history and sign-in settings",
  description:
    "Who changed the repository's configuration, and when: user, security, storage, settings, authentication and registry changes, newest first, filtered by category, action, user or dates. Also the authentication configuration (session lifetime).",
  toolset: "admin",
  requiredRoles: MANAGER_ROLES,
  inputSchema: input,
  outputSchema: output,
  annotations: READ_ONLY,
  async handler(args, ctx: ToolContext) {
    const api = ctx.api.admin;
    const [page, auth] = await Promise.all([
      api.configEvents(
        {
          category: args.category,
          commandType: args.commandType,
          username: args.username,
          from: args.from,
          to: args.to,
          start: args.offset,
          max: args.limit,
        },
        ctx.signal,
      ),
      api.authConfiguration(ctx.signal),
    ]);
    const events = page.events.map(eventOut);
    const byCategory: Record<string, number> = {};
    for (const e of events) byCategory[e.category] = (byCategory[e.category] ?? 0) + 1;
    const filters = [
      args.category,
      args.commandType,
      args.username && `by ${args.username}`,
      args.from && `from ${args.from}`,
      args.to && `to ${args.to}`,
    ].filter(Boolean);
    const more = args.offset + events.length < page.total;
    const structured = {
      events,
      total: page.total,
      offset: args.offset,
      byCategory,
      authentication: { maxSessionLifetimeMins: auth.maxSessionLifetimeMins },
    };
    const text = lines(
      `Authentication: sessions last at most ${auth.maxSessionLifetimeMins} minutes (${hours(auth.maxSessionLifetimeMins)}).`,
      `${page.total.toLocaleString("en")} configuration ${page.total === 1 ? "event" : "events"}${filters.length ? ` (${filters.join(", ")})` : ""}, newest first:`,
      ...events.map(
        (e) =>
          `- ${e.at} ${e.username}: ${e.category} ${e.commandType} ${clip(e.subject, 80)} — ${clip(e.summary, 200)}`,
      ),
      pageNote(args.offset, events.length, page.total, more ? "x" : undefined).replace(
        /call again with cursor "x"/,
        `call again with offset ${args.offset + events.length}`,
      ),
    );
    return { structured, text };
  },
});
