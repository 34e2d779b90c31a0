import {
  type ListResourcesCallback,
  ResourceNotFoundError,
  ResourceTemplate,
} from "@modelcontextprotocol/server";
import type { Entity, EntityApi, EntitySummary, EntityType } from "../api/entity.js";
import { isNotFound } from "../api/errors.js";
import { KIND_OF, spoken, withArticle } from "../tools/support/kinds.js";
import { completeRefs } from "./complete.js";
import { asResourceError, requireRef } from "./errors.js";
import type { ResourceRegistrar } from "./types.js";
import {
  assetUri,
  bitstreamUri,
  contentObjectUri,
  entityUri,
  folderUri,
  metadataUri,
  ROOT_URI,
} from "./uris.js";

/**
 * Folders, assets and content objects as JSON resources, plus the root listing. Each answer is a bounded
 * summary in our own terms whose links are further `preservation://` URIs, so a client can walk the whole
 * tree by reading resources. Lists are capped and say how many were left out.
 */

export const JSON_MIME = "application/json";
/** Children shown in a folder resource; the rest through the `browse` tool. */
export const FOLDER_PAGE = 50;
const MAX_REPRESENTATIONS = 10;
const MAX_GENERATIONS = 10;
const MAX_BITSTREAMS = 20;

/** A child or link as the resources show it: what it is, its title, and where to read it. */
// `kind` uses the tools' words (folder, asset, content_object), so resources and tool answers agree.
function item(s: EntitySummary) {
  return { kind: KIND_OF[s.type], title: s.title, uri: entityUri(s.type, s.ref) };
}

function fragments(e: Entity) {
  return e.fragments.map((f) => ({ schema: f.schema, uri: metadataUri(e.ref, f.mref) }));
}

function base(e: Entity, uri: string) {
  const parentUri = e.parentRef
    ? e.type === "CO"
      ? assetUri(e.parentRef)
      : folderUri(e.parentRef)
    : undefined;
  return {
    uri,
    ref: e.ref,
    kind: KIND_OF[e.type],
    title: e.title,
    ...(e.description ? { description: e.description } : {}),
    ...(e.customType ? { customType: e.customType } : {}),
    securityTag: e.securityTag,
    ...(parentUri ? { [e.type === "CO" ? "asset" : "parent"]: parentUri } : {}),
    ...(e.fragments.length ? { metadata: fragments(e) } : {}),
  };
}

function json(uri: string, body: unknown) {
  return { contents: [{ uri, mimeType: JSON_MIME, text: JSON.stringify(body, null, 2) }] };
}

/**
 * The entity of the given type, or ResourceNotFoundError. When the ref names an entity of another type,
 * the message gives the URI that does read it (a model that guessed the type can correct itself).
 */
async function getAs(entity: EntityApi, type: EntityType, ref: string, uri: string, signal: AbortSignal) {
  try {
    return await entity.get(ref, type, signal);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    const other = await entity.get(ref, undefined, signal).catch(() => undefined);
    if (other) {
      throw new ResourceNotFoundError(
        uri,
        `${ref} is ${withArticle(other.type)}, not ${withArticle(type)}: read ${entityUri(other.type, ref)}`,
      );
    }
    throw new ResourceNotFoundError(
      uri,
      `No ${spoken(type)} ${ref} (or it is not visible to you); find one with the \`search\` or \`browse\` tools`,
    );
  }
}

async function topLevel(entity: EntityApi, signal?: AbortSignal) {
  return entity.children(null, { max: FOLDER_PAGE, signal });
}

export const registerEntityResources: ResourceRegistrar = (server, deps) => {
  const { entity, content, log } = deps;

  server.registerResource(
    "root",
    ROOT_URI,
    {
      title: "Top-level folders",
      description:
        "The top of the repository's tree: the top-level folders (fonds, collections) with their preservation:// URIs.",
      mimeType: JSON_MIME,
    },
    async (uri, ctx) => {
      try {
        const page = await topLevel(entity, ctx.mcpReq.signal);
        return json(uri.href, {
          uri: uri.href,
          total: page.total,
          folders: page.items.map(item),
          ...(page.total > page.items.length
            ? { more: `${page.total - page.items.length} more; list them with the \`browse\` tool` }
            : {}),
        });
      } catch (err) {
        throw asResourceError(err, uri.href, "The repository's root is not readable", log);
      }
    },
  );

  /**
   * An entity kind's resource, `preservation://<name>/{ref}`: refs completed by title, the ref checked, and
   * any failure turned into the resource error that says what to read instead.
   */
  const entityResource = (
    name: string,
    type: EntityType,
    meta: { title: string; description: string; list?: ListResourcesCallback },
    read: (ref: string, signal: AbortSignal, href: string) => Promise<ReturnType<typeof json>>,
  ) =>
    server.registerResource(
      name,
      new ResourceTemplate(`preservation://${name}/{ref}`, {
        list: meta.list,
        complete: { ref: (value) => completeRefs(content, [type], value, log) },
      }),
      { title: meta.title, description: meta.description, mimeType: JSON_MIME },
      async (uri, vars, ctx) => {
        const ref = requireRef(vars.ref, "ref", spoken(type));
        try {
          return await read(ref, ctx.mcpReq.signal, uri.href);
        } catch (err) {
          throw asResourceError(err, uri.href, `No ${spoken(type)} ${ref}`, log);
        }
      },
    );

  entityResource(
    "folder",
    "SO",
    {
      // Only the top-level folders: everything else is reachable from them, and a listing of every
      // folder of a large repository would be unbounded.
      list: async (ctx) => {
        const page = await topLevel(entity, ctx.mcpReq.signal);
        return {
          resources: page.items.map((s) => ({
            uri: folderUri(s.ref),
            name: s.title || s.ref,
            title: s.title || s.ref,
            description: "Top-level folder",
            mimeType: JSON_MIME,
          })),
        };
      },
      title: "Folder",
      description: `A folder: title, description, security tag, parent, metadata fragments, and its first ${FOLDER_PAGE} children as preservation:// URIs (more with the \`browse\` tool).`,
    },
    async (ref, signal, href) => {
      // Both at once, but the folder's answer first: for an asset's ref the children listing fails too,
      // and only getAs says which URI reads that ref instead.
      const childrenOrError = entity.children(ref, { max: FOLDER_PAGE, signal }).then(
        (page) => ({ page }),
        (error: unknown) => ({ error }),
      );
      const folder = await getAs(entity, "SO", ref, href, signal);
      const listed = await childrenOrError;
      if ("error" in listed) throw listed.error;
      const children = listed.page;
      return json(href, {
        ...base(folder, href),
        children: {
          total: children.total,
          items: children.items.map(item),
          ...(children.total > children.items.length
            ? {
                more: `${children.total - children.items.length} more; page through them with the \`browse\` tool (ref ${ref})`,
              }
            : {}),
        },
      });
    },
  );

  entityResource(
    "asset",
    "IO",
    {
      // Not listed: assets are reached through folders (or search); there can be millions.
      title: "Asset",
      description:
        "An asset (an intellectual entity): title, description, security tag, folder, identifiers, metadata fragments, and its representations (Preservation, Access) with their content objects as preservation:// URIs.",
    },
    async (ref, signal, href) => {
      const asset = await getAs(entity, "IO", ref, href, signal);
      const [reps, ids] = await Promise.all([
        entity.representations(ref, { max: MAX_REPRESENTATIONS, signal }),
        entity.identifiers(ref, "IO", { max: 50, signal }),
      ]);
      const representations = await Promise.all(
        reps.items.map(async (r) => {
          const rep = await entity.representation(ref, r.type, r.index, signal);
          return {
            type: r.type,
            ...(rep.name || r.name ? { name: rep.name ?? r.name } : {}),
            contentObjects: rep.contentObjects.map((c) => ({
              ...(c.title ? { title: c.title } : {}),
              uri: contentObjectUri(c.ref),
            })),
          };
        }),
      );
      return json(href, {
        ...base(asset, href),
        ...(ids.items.length
          ? { identifiers: ids.items.map((i) => ({ type: i.type, value: i.value })) }
          : {}),
        representations,
        ...(reps.total > reps.items.length ? { moreRepresentations: reps.total - reps.items.length } : {}),
      });
    },
  );

  entityResource(
    "content-object",
    "CO",
    {
      title: "Content object",
      description:
        "A content object (one component of an asset): its asset, metadata fragments, and its generations with file formats and files (size, fixity) as preservation://bitstream URIs.",
    },
    async (ref, signal, href) => {
      const co = await getAs(entity, "CO", ref, href, signal);
      const gens = await entity.generations(ref, { max: MAX_GENERATIONS, signal });
      const generations = await Promise.all(
        gens.items.map(async (g) => {
          const gen = await entity.generation(ref, g.index, signal);
          const shown = gen.bitstreams.slice(0, MAX_BITSTREAMS);
          const files = await Promise.all(
            shown.map(async (b) => {
              const bs = await entity.bitstream(ref, g.index, b.index, signal);
              return {
                filename: bs.filename || b.filename,
                size: bs.size,
                ...(bs.fixities.length ? { fixity: bs.fixities } : {}),
                uri: bitstreamUri(ref, g.index, b.index),
              };
            }),
          );
          const formats = gen.formats
            .map((f) => [f.name, f.version].filter(Boolean).join(" ") + (f.puid ? ` (${f.puid})` : ""))
            .filter(Boolean);
          return {
            index: g.index,
            active: gen.active,
            original: gen.original,
            ...(gen.label ? { label: gen.label } : {}),
            ...(gen.formatGroup ? { formatGroup: gen.formatGroup } : {}),
            ...(formats.length ? { formats } : {}),
            files,
            ...(gen.bitstreams.length > shown.length
              ? { moreFiles: gen.bitstreams.length - shown.length }
              : {}),
          };
        }),
      );
      return json(href, {
        ...base(co, href),
        generations,
        ...(gens.total > gens.items.length ? { moreGenerations: gens.total - gens.items.length } : {}),
      });
    },
  );
};
