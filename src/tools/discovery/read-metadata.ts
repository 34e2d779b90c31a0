import { z } from "zod";
import type { FragmentRef } from "../../api/entity.js";
import { XmlParseError } from "../../api/errors.js";
import { type MetadataField, metadataFields } from "../../api/metadata-fields.js";
import { metadataUri } from "../../resources/uris.js";
import type { ToolContext } from "../context.js";
import { defineTool, UserInputError } from "../define.js";
import { loadEntity } from "../support/entities.js";
import { READ_ONLY } from "../support/hints.js";
import { spoken } from "../support/kinds.js";
import { schemaFamilyMatches, schemaMatches, schemaName } from "../support/schemas.js";
import { clip, lines } from "../support/text.js";
import { entityRef, refParam } from "./params.js";

/** Verbatim XML beyond this many characters is cut (about 4k tokens). */
const MAX_XML_CHARS = 16_000;
const MAX_FIELDS = 200;
const MAX_FIELD_CHARS = 2_000;

const input = z.object({
  ref: entityRef,
  mref: refParam("Fragment ref, from `get_entity` (metadata)").optional(),
  schema: z
    .string()
    .trim()
    .min(1)
    .max(300)
    .optional()
    .describe("Instead of mref: schema short name (oai_dc) or URI, when the entity has one fragment of it"),
  format: z
    .enum(["fields", "xml"])
    .default("fields")
    .describe("fields: name/value list (default); xml: the document verbatim"),
});

const output = z.object({
  ref: z.string(),
  mref: z.string(),
  schema: z.string(),
  schemaName: z.string(),
  fields: z.array(z.object({ name: z.string(), value: z.string() })).optional(),
  xml: z.string().optional(),
  truncated: z.boolean(),
  /** Size of the whole document, in characters. */
  size: z.number(),
  uri: z.string(),
});

function listFragments(fragments: FragmentRef[]): string {
  return fragments.map((f) => `${schemaName(f.schema)} ${f.mref}`).join(", ");
}

/** The document's fields; a stored document that is not XML has none, and the model is told what to do. */
function fieldsOrExplain(document: string, what: string): MetadataField[] {
  try {
    return metadataFields(document).fields;
  } catch (err) {
    if (!(err instanceof XmlParseError)) throw err;
    throw new UserInputError(
      `${what} cannot be read as fields: ${err.message}. Read it verbatim with format "xml".`,
    );
  }
}

export default defineTool({
  name: "read_metadata",
  title: "Read a metadata fragment",
  description:
    "Read one descriptive metadata document of an entity (e.g. Dublin Core) as a field list or verbatim XML. Fragments are listed by `get_entity`; with one fragment no mref is needed.",
  toolset: "discovery",
  inputSchema: input,
  outputSchema: output,
  annotations: READ_ONLY,
  async handler(args, ctx: ToolContext) {
    const e = await loadEntity(ctx, args.ref);
    const where = `${spoken(e.type)} "${clip(e.title, 80)}"`;
    if (e.fragments.length === 0) {
      throw new UserInputError(
        `The ${where} has no metadata fragments; its title and description are in \`get_entity\`.`,
      );
    }
    let fragment: FragmentRef | undefined;
    if (args.mref) {
      fragment = e.fragments.find((f) => f.mref.toLowerCase() === args.mref?.toLowerCase());
      if (!fragment) {
        throw new UserInputError(
          `The ${where} has no fragment ${args.mref}; its fragments: ${listFragments(e.fragments)}.`,
        );
      }
    } else if (args.schema) {
      const wanted = args.schema;
      const exact = e.fragments.filter((f) => schemaMatches(f.schema, wanted));
      const matches = exact.length ? exact : e.fragments.filter((f) => schemaFamilyMatches(f.schema, wanted));
      if (matches.length !== 1) {
        throw new UserInputError(
          `The ${where} has ${matches.length === 0 ? "no" : matches.length} fragment${matches.length === 1 ? "" : "s"} of schema "${wanted}"; ${matches.length ? "pass mref" : "its fragments are"}: ${listFragments(matches.length ? matches : e.fragments)}.`,
        );
      }
      fragment = matches[0];
    } else if (e.fragments.length === 1) {
      fragment = e.fragments[0];
    } else {
      throw new UserInputError(
        `The ${where} has ${e.fragments.length} fragments; pass mref or schema: ${listFragments(e.fragments)}.`,
      );
    }
    const f = fragment as FragmentRef;
    const doc = await ctx.entity.metadata(f, ctx.signal);
    const schema = doc.schema || f.schema;
    const base = {
      ref: e.ref,
      mref: f.mref,
      schema,
      schemaName: schemaName(schema),
      size: doc.document.length,
      uri: metadataUri(e.ref, f.mref),
    };
    const head = `${base.schemaName} metadata (${schema}) of ${where} ${e.ref}, fragment ${f.mref} (${base.size.toLocaleString("en")} characters)`;

    if (args.format === "xml") {
      const truncated = doc.document.length > MAX_XML_CHARS;
      const xml = truncated ? doc.document.slice(0, MAX_XML_CHARS) : doc.document;
      const cut = truncated
        ? `[cut at ${MAX_XML_CHARS.toLocaleString("en")} of ${doc.document.length.toLocaleString("en")} characters; the whole document is the resource ${base.uri}]`
        : "";
      return { structured: { ...base, xml, truncated }, text: lines(`${head}:`, xml, cut) };
    }

    const all = fieldsOrExplain(doc.document, `Fragment ${f.mref} of the ${where}`);
    const fields = all.slice(0, MAX_FIELDS).map((x) => ({
      name: x.name,
      value: x.value.length > MAX_FIELD_CHARS ? `${x.value.slice(0, MAX_FIELD_CHARS)}… [cut]` : x.value,
    }));
    const truncated = all.length > fields.length || fields.some((x, i) => x.value !== all[i]?.value);
    const text = lines(
      `${head}:`,
      ...fields.map((x) => `${x.name}: ${x.value}`),
      all.length > fields.length &&
        `… and ${all.length - fields.length} more fields (format "xml" or the resource ${base.uri})`,
      all.length === 0 && "(the document holds no values)",
    );
    return { structured: { ...base, fields, truncated }, text };
  },
});
