import { completable } from "@modelcontextprotocol/server";
import { z } from "zod";
import { GROUND_RULES, readingToolsOf, renderSteps, type Step } from "./steps.js";
import { definePrompt } from "./types.js";

/**
 * A weekly operations report: what came in, what changed, what is waiting for someone, what failed. The
 * week is computed here (seven days ending on `weekEnding`, today by default) so every step asks about the
 * same dates. Processes and workflows come from the operations toolset when it is on; the prompt names
 * whatever tools that toolset lists today, or says they were not checked.
 */

const DAY_MS = 86_400_000;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Today and the last four Sundays: the week endings a person most likely means. */
export function recentWeekEndings(now = Date.now()): string[] {
  const today = new Date(now);
  const lastSunday = now - today.getUTCDay() * DAY_MS;
  const sundays = [0, 1, 2, 3].map((i) => isoDay(lastSunday - i * 7 * DAY_MS));
  return [...new Set([isoDay(now), ...sundays])];
}

/** The seven days ending on `end` (inclusive), as the dates the tools take. */
export function weekOf(end: string): { from: string; to: string } {
  const endMs = Date.parse(`${end}T00:00:00Z`);
  return { from: isoDay(endMs - 6 * DAY_MS), to: end };
}

export default definePrompt({
  name: "weekly_operations_report",
  title: "Weekly operations report",
  description:
    "A week of the repository for the person who runs it: ingests by day, what changed, deletions awaiting approval, jobs, and failed processes where the operations tools are on.",
  args: () =>
    z.object({
      weekEnding: completable(
        z
          .string()
          .trim()
          .refine((s) => ISO_DATE.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`)), {
            error: (issue) =>
              `"${String(issue.input)}" is not a date; use YYYY-MM-DD, e.g. ${isoDay(Date.now())}`,
          })
          .describe("Last day of the week, YYYY-MM-DD (default today)"),
        (typed) => recentWeekEndings().filter((d) => d.startsWith(typed ?? "")),
      ).optional(),
    }),
  async messages(args, deps) {
    const { from, to } = weekOf(args.weekEnding ?? isoDay(Date.now()));
    const steps: Step[] = [
      {
        tool: "list_events",
        args: { types: ["Ingest"], from, to, newestFirst: false, limit: 100 },
        text: "Ingests of the week: count them by day and by user; page with the cursor if there are more.",
        covers: "ingests",
      },
      {
        tool: "list_changes",
        args: { since: from, until: to, limit: 200 },
        text: "Everything created or changed in the week: the total, and the folders most of it happened in.",
        covers: "changes",
      },
      {
        tool: "list_events",
        args: { from, to, limit: 100 },
        text: "All events of the week: counts by type (moves, modifications, deletions, integrity checks) and anything unusual.",
        covers: "activity by type",
      },
      {
        tool: "recycle_bin",
        args: { pending: true },
        text: "Deletions waiting for a manager's approval: who asked, what, since when.",
        covers: "deletions awaiting approval",
      },
      {
        tool: "job_status",
        text: "For any job handles the person has from this week (ingests, exports, moves), the state of each.",
        covers: "jobs",
      },
    ];
    const operations = readingToolsOf("operations", deps.audience);
    const admin = readingToolsOf("admin", deps.audience);
    const ops = operations.length
      ? `Processes and workflows: use ${operations.map((n) => `\`${n}\``).join(", ")} for what ran and what failed this week, with the failure messages.`
      : "Processes and workflows: the operations tools are not on in this session; say that running and failed processes were not checked.";
    const text = [
      `Write the weekly operations report for ${from} to ${to} (inclusive).`,
      "",
      "Steps:",
      renderSteps(steps, deps.audience),
      ops,
      admin.length
        ? `Storage, limits or configuration, if the person wants them in the report: the admin tools here are ${admin.map((n) => `\`${n}\``).join(", ")}.`
        : "",
      "",
      "Then write the report: headline numbers (ingests, changes, events), ingests by day, what needs someone's attention (pending deletions, failed jobs or processes), and notable activity. Numbers as the tools gave them; say where a list was cut short.",
      GROUND_RULES,
    ]
      .filter((line, i, all) => line !== "" || all[i - 1] !== "")
      .join("\n");
    return {
      description: `Weekly operations report, ${from} to ${to}`,
      messages: [{ role: "user", content: { type: "text", text } }],
    };
  },
});
