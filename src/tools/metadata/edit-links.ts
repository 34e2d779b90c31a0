import { z } from "zod";
import type { Link } from "../../api/entity.js";
import { fingerprint } from "../../guards/fingerprint.js";
import type { ToolContext } from "../context.js";
import { type ConfirmPlan, CURATOR_ROLES, defineTool, UserInputError } from "../define.js";
import { refParam } from "../discovery/params.js";
import { loadEntity } from "../support/entities.js";
import { OVERWRITE } from "../support/hints.js";
import { KIND_OF, KINDS } from "../support/kinds.js";
import { buildOrExplain, named } from "./params.js";

/** Dublin Core terms relations, the link types the service and its clients use. */
const RELATIONS = [
  "references",
  "isReferencedBy",
  "isPartOf",
  "hasPart",
  "isVersionOf",
  "hasVersion",
  "replaces",
  "isReplacedBy",
  "requires",
  "isRequiredBy",
  "isFormatOf",
  "hasFormat",
  "conformsTo",
  "relation",
  "source",
] as const;
const DC_TERMS = "http://purl.org/dc/terms/";
const MAX_LINKS = 500;

const input = z.object({
  action: z.enum(["add", "remove"]).describe("add or remove the link (removing asks the person first)"),
  from: refParam("The entity the link goes from; find it with `search` or `browse`"),
  to: refParam("The entity it points at"),
  relation: z
    .string()
    .trim()
    .min(1)
    .max(300)
    .optional()
    .describe(
      `Relation: ${RELATIONS.slice(0, 6).join(", ")}, … (Dublin Core terms) or a URI. Default references`,
    ),
});

type Args = z.infer<typeof input>;

const end = z.object({ ref: z.string(), type: z.enum(KINDS), title: z.string() });
const output = z.object({
  action: z.enum(["added", "removed", "already_linked"]),
  relation: z.string(),
  relationUri: z.string(),
  from: end,
  to: end,
});

/** A relation's URI: Dublin Core terms by name (any case), or a URI as given. */
function relationUri(relation: string): string {
  const known = RELATIONS.find((r) => r.toLowerCase() === relation.toLowerCase().replace(/^dcterms:/, ""));
  if (known) return DC_TERMS + known;
  if (/^[a-z][a-z0-9+.-]*:\S+$/i.test(relation)) return relation;
  throw new UserInputError(
    `Unknown relation "${relation}": use one of ${RELATIONS.join(", ")}, or a URI. Nothing was changed.`,
  );
}

const shortName = (uri: string) => (uri.startsWith(DC_TERMS) ? uri.slice(DC_TERMS.length) : uri);

/** Both ends, the links between them, and for a removal the one link it removes; changes nothing. */
async function resolve(args: Args, ctx: ToolContext) {
  if (args.from.toLowerCase() === args.to.toLowerCase())
    throw new UserInputError(
      "An entity cannot be linked to itself: give two different refs. Nothing was changed.",
    );
  const from = await loadEntity(ctx, args.from);
  const to = await loadEntity(ctx, args.to);
  const wanted = args.relation ? relationUri(args.relation) : undefined;
  const page = await ctx.entity.links(from.ref, from.type, { max: MAX_LINKS, signal: ctx.signal });
  const between = page.items.filter((l) => l.ref.toLowerCase() === to.ref.toLowerCase());
  const ends = {
    from: { ref: from.ref, type: KIND_OF[from.type], title: from.title },
    to: { ref: to.ref, type: KIND_OF[to.type], title: to.title },
  };
  const sentence = (uri: string, l?: Link) =>
    l && l.direction.toLowerCase() === "to"
      ? `${named(to)} —${shortName(uri)}→ ${named(from)}`
      : `${named(from)} —${shortName(uri)}→ ${named(to)}`;
  if (args.action === "add") return { from, to, wanted, between, ends, sentence };

  const candidates = wanted ? between.filter((l) => l.linkType === wanted) : between;
  // Prefer the link in the direction asked for; one pointing the other way is removed when it is the only one.
  const forward = candidates.filter((l) => l.direction.toLowerCase() === "from");
  const matches = forward.length ? forward : candidates;
  if (matches.length === 0)
    throw new UserInputError(
      `There is no ${wanted ? `${shortName(wanted)} ` : ""}link between the ${named(from)} and the ${named(to)}${between.length ? `; links between them: ${between.map((l) => sentence(l.linkType, l)).join("; ")}` : ""}. Nothing was changed.`,
    );
  if (matches.length > 1)
    throw new UserInputError(
      `The ${named(from)} has ${matches.length} links to the ${named(to)} (${matches.map((l) => shortName(l.linkType)).join(", ")}); pass \`relation\`. Nothing was changed.`,
    );
  const link = matches[0] as Link;
  if (!link.apiId)
    throw new UserInputError(
      "The service did not give this link's id, so it cannot be removed here. Nothing was changed.",
    );
  return { from, to, wanted, between, ends, sentence, link };
}

const targetsOf = (ends: { from: { ref: string; title: string }; to: { ref: string; title: string } }) =>
  [ends.from, ends.to].map(({ ref, title }) => ({ ref, title }));

export default defineTool({
  name: "edit_links",
  title: "Link or unlink two entities",
  description:
    "Add or remove a link (a relation such as references or isVersionOf) from one entity to another; the answer names both by title.",
  toolset: "metadata",
  requiredRoles: CURATOR_ROLES,
  inputSchema: input,
  outputSchema: output,
  annotations: OVERWRITE,
  async confirm(args, ctx: ToolContext): Promise<ConfirmPlan | undefined> {
    if (args.action !== "remove") return undefined;
    const r = await resolve(args, ctx);
    const link = r.link as Link;
    return {
      summary: `Remove the link ${r.sentence(link.linkType, link)}`,
      details: [],
      targets: targetsOf(r.ends).map((t) => ({
        ...t,
        fingerprint: fingerprint(link.apiId, link.linkType),
      })),
    };
  },
  async handler(args, ctx: ToolContext) {
    const r = await resolve(args, ctx);
    const { from, to, ends, sentence } = r;
    if (args.action === "add") {
      const uri = r.wanted ?? `${DC_TERMS}references`;
      const existing = r.between.find((l) => l.direction.toLowerCase() === "from" && l.linkType === uri);
      if (!existing) await buildOrExplain(() => ctx.api.entityWrite.addLink(from, uri, to.ref, ctx.signal));
      return {
        structured: {
          action: existing ? ("already_linked" as const) : ("added" as const),
          relation: shortName(uri),
          relationUri: uri,
          ...ends,
        },
        text: existing
          ? `Already linked: ${sentence(uri)}; nothing was changed.`
          : `Linked ${sentence(uri)}.`,
        ...(existing ? {} : { audit: { targets: targetsOf(ends) } }),
      };
    }
    const link = r.link as Link;
    await ctx.api.entityWrite.deleteLink(from.ref, from.type, link.apiId as string, ctx.signal);
    return {
      structured: {
        action: "removed" as const,
        relation: shortName(link.linkType),
        relationUri: link.linkType,
        ...ends,
      },
      text: `Removed the link ${sentence(link.linkType, link)}.`,
      audit: { targets: targetsOf(ends) },
    };
  },
});
