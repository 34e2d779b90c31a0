import { z } from "zod";
import type { ParDocument } from "../../api/admin.js";
import { isNotFound } from "../../api/errors.js";
import type { ToolContext } from "../context.js";
import { defineTool, MANAGER_ROLES, UserInputError } from "../define.js";
import { READ_ONLY } from "../support/hints.js";
import { clip, lines, plural } from "../support/text.js";
import { listed, MAX_LINES } from "./params.js";

/** PUIDs listed per rule set in the text: short codes, so a whole registry's worth stays small. */
const MAX_PUIDS = 80;

const input = z.object({
  puid: z
    .string()
    .trim()
    .regex(/^(x-)?fmt\/\d{1,6}$/, "a PRONOM id like fmt/18 or x-fmt/111")
    .optional()
    .describe(
      "A format's PRONOM id (fmt/18, x-fmt/111): its record, the rule sets and migration profiles naming it",
    ),
});

const ref = z.object({ name: z.string() });
const output = z.object({
  format: z
    .object({
      puid: z.string(),
      name: z.string(),
      version: z.string().optional(),
      mimeTypes: z.array(z.string()),
      extensions: z.array(z.string()),
      families: z.array(z.string()),
      /** Rule sets with a rule for this format, and the business rule each applies. */
      ruleSets: z.array(z.object({ name: z.string(), businessRules: z.array(z.string()) })),
      /** Migration profiles (live) that name this format, and what they do. */
      migration: z.array(
        z.object({ profile: z.string(), action: z.string(), target: z.string().nullable() }),
      ),
    })
    .optional(),
  formatsTotal: z.number(),
  ruleSets: z.array(
    z.object({
      name: z.string(),
      description: z.string().optional(),
      rules: z.number(),
      formats: z.array(z.string()),
    }),
  ),
});

interface RuleSetDoc extends ParDocument {
  name?: string;
  description?: string;
  rules?: { format?: { name?: string; guid?: string }; businessRule?: { name?: string; guid?: string } }[];
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

export default defineTool({
  name: "format_registry",
  title: "Format registry",
  description:
    "The preservation registry (PAR): look a file format up by PUID (name, version, MIME types, families, the rule sets and migration profiles that name it); without puid, the rule sets with the formats they cover and how many formats are registered.",
  toolset: "admin",
  requiredRoles: MANAGER_ROLES,
  inputSchema: input,
  outputSchema: output,
  annotations: READ_ONLY,
  async handler(args, ctx: ToolContext) {
    const api = ctx.api.admin;
    const s = ctx.signal;
    const [formats, sets] = await Promise.all([
      api.registryList("file-formats", s),
      api.registryList("rulesets", s),
    ]);
    const ruleSets = (sets as RuleSetDoc[]).map((r) => ({
      name: r.name ?? r.id.name,
      ...(r.description ? { description: r.description } : {}),
      rules: r.rules?.length ?? 0,
      formats: [...new Set((r.rules ?? []).map((x) => x.format?.name ?? x.format?.guid ?? "?"))],
    }));
    let format: z.infer<typeof output>["format"];
    if (args.puid) {
      let doc: ParDocument;
      try {
        doc = await api.fileFormat(args.puid, s);
      } catch (err) {
        if (!isNotFound(err)) throw err;
        throw new UserInputError(
          `The registry has no format ${args.puid}; it holds ${plural(formats.length, "format")}: ${listed(
            formats.map((f) => f.id.name),
            30,
          )}.`,
        );
      }
      const profiles = await api.migrationProfiles(s);
      format = {
        puid: doc.id.name,
        name: String(doc.name ?? ""),
        ...(doc.version ? { version: String(doc.version) } : {}),
        mimeTypes: strings(doc.types),
        extensions: strings(doc.aliases),
        families: ((doc.families as z.infer<typeof ref>[] | undefined) ?? []).map((f) => f.name),
        ruleSets: (sets as RuleSetDoc[])
          .filter((r) =>
            (r.rules ?? []).some((x) => x.format?.name === doc.id.name || x.format?.guid === doc.id.guid),
          )
          .map((r) => ({
            name: r.name ?? r.id.name,
            businessRules: (r.rules ?? [])
              .filter((x) => x.format?.name === doc.id.name || x.format?.guid === doc.id.guid)
              .map((x) => x.businessRule?.name ?? x.businessRule?.guid ?? "?"),
          })),
        migration: profiles.flatMap((p) =>
          p.formats
            .filter((f) => f.puid === doc.id.name)
            .map((f) => ({ profile: p.name, action: f.action, target: f.targetPuid ?? null })),
        ),
      };
    }
    const structured = { ...(format ? { format } : {}), formatsTotal: formats.length, ruleSets };
    const overview = lines(
      `${plural(formats.length, "format")} registered; ${plural(ruleSets.length, "rule set")}:`,
      ...ruleSets
        .slice(0, MAX_LINES)
        .map(
          (r) =>
            `- ${r.name}: ${plural(r.rules, "rule")} for ${listed(r.formats, MAX_PUIDS)}${r.description ? ` — ${clip(r.description, 120)}` : ""}`,
        ),
      ruleSets.length > MAX_LINES && `… ${ruleSets.length - MAX_LINES} more in the structured answer.`,
    );
    // The registry's overview comes with a format too: the structured answer carries it either way.
    const text = format
      ? lines(
          `${format.puid}: ${format.name}${format.version ? ` (version ${format.version})` : ""}; MIME ${format.mimeTypes.join(", ") || "none"}; extensions ${format.extensions.join(", ") || "none"}; families ${format.families.join(", ") || "none"}.`,
          format.ruleSets.length
            ? `Rule sets: ${format.ruleSets.map((r) => `${r.name} (${r.businessRules.join(", ")})`).join("; ")}.`
            : "No rule set names it.",
          format.migration.length
            ? `Live migration profiles: ${format.migration.map((m) => `${m.profile}: ${m.action === "MIGRATE" ? `migrate to ${m.target}` : m.action.toLowerCase()}`).join("; ")}.`
            : "No live migration profile names it.",
          overview,
        )
      : overview;
    return { structured, text };
  },
});
