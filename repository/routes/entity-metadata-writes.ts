import type { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { nowIso } from "../context.js";
import { standaloneXml, type XmlNode } from "../http/xml-body.js";
import { Permission } from "../store/auth.js";
import { findFragment } from "../store/entities/read.js";
import type { EntityRecord, FragmentRecord } from "../store/entities/types.js";
import { addFragment, deleteFragment, updateFragment } from "../store/metadata/write.js";
import { metadataDocument } from "../xml/entity-docs.js";
import {
  changeEntity,
  ENTITY_TYPE_PATHS,
  type EntityContext,
  type EntityEnv,
  noContent,
  refInPath,
  writableEntity,
  xml,
  xmlRequest,
} from "./entity-common.js";
import { fieldText, requiredChild, requireSameEntity, requireXipElement } from "./entity-write-input.js";

/**
 * Descriptive metadata fragments: add (POST …/metadata), replace (PUT …/metadata/{mref}) and remove
 * (DELETE …/metadata/{mref}). The request is an `xip:MetadataContainer` holding one document in
 * `xip:Content`; the document is stored standalone, keeping whatever prefixes the sender chose and the
 * namespaces they stand for. Needs Update Metadata on the entity's tag. The fragment functions
 * reindex the entity, so search, Dublin Core filters and facets follow at once.
 */

function containerExample(xipNs: string, withRef: boolean): string {
  const ref = withRef ? "<xip:Ref>{mref}</xip:Ref>" : "";
  return `<xip:MetadataContainer xmlns:xip="${xipNs}" schemaUri="http://purl.org/dc/elements/1.1/">${ref}<xip:Entity>{ref}</xip:Entity><xip:Content><dc xmlns="http://purl.org/dc/elements/1.1/"><title>Minutes</title></dc></xip:Content></xip:MetadataContainer>`;
}

interface Fragment {
  schemaUri: string;
  content: string;
}

/**
 * The document of a container and its schema: the `schemaUri` attribute, else the namespace of the
 * document's root element. Content must hold exactly one element and no other text.
 */
function readContainer(root: XmlNode, e: EntityRecord, example: string): Fragment {
  requireXipElement(root, "MetadataContainer", example);
  requireSameEntity(root, "Entity", e.ref);
  const content = requiredChild(root, "Content", example);
  const elements = content.children;
  const strayText = content.content.some((part) => !("qname" in part) && part.text.trim() !== "");
  if (elements.length !== 1 || strayText) {
    throw new HTTPException(400, {
      message: `<Content> must hold exactly one XML element, the metadata document (it holds ${elements.length}${strayText ? " and text" : ""}); send XML such as ${example}`,
    });
  }
  const doc = elements[0] as XmlNode;
  const schemaUri = root.attrs.schemaUri?.trim() || doc.ns;
  if (!schemaUri) {
    throw new HTTPException(400, {
      message: `The metadata document <${doc.name}> has no schema: give the container a schemaUri attribute or put the document in its schema's namespace (xmlns="…"), as in ${example}`,
    });
  }
  return { schemaUri, content: standaloneXml(doc) };
}

/** The fragment `mref` of entity `e`, or a 404 that says where the entity's fragments are listed. */
function fragmentOf(c: EntityContext, e: EntityRecord, rawMref: string | undefined): FragmentRecord {
  const mref = refInPath(rawMref, "Metadata fragment reference");
  const f = findFragment(c.get("svc").db, mref);
  if (!f || f.entity_ref !== e.ref) {
    throw new HTTPException(404, {
      message: `Metadata fragment ${mref} not found on entity ${e.ref}; the entity's Metadata/Fragment URLs list its fragments`,
    });
  }
  return f;
}

function reply(c: EntityContext, e: EntityRecord, mref: string): Response {
  return xml(c, metadataDocument(c.get("render"), e, findFragment(c.get("svc").db, mref) as FragmentRecord));
}

export function registerMetadataWriteRoutes(api: Hono<EntityEnv>): void {
  for (const [type, path] of ENTITY_TYPE_PATHS) {
    api.post(`/${path}/:ref/metadata`, async (c) => {
      const example = containerExample(c.get("render").version.xipNs, false);
      const root = await xmlRequest(c, example);
      const e = writableEntity(c, c.req.param("ref"), type, Permission.UPDATE_METADATA);
      const fragment = readContainer(root, e, example);
      const now = nowIso(c);
      const mref = changeEntity(
        c,
        e,
        "AddMetadata",
        (db) => addFragment(db, e.ref, fragment.schemaUri, fragment.content, { date: now }),
        (m) => `Added metadata fragment ${m} (${fragment.schemaUri})`,
      );
      return reply(c, e, mref);
    });

    api.put(`/${path}/:ref/metadata/:mref`, async (c) => {
      const example = containerExample(c.get("render").version.xipNs, true);
      const root = await xmlRequest(c, example);
      const e = writableEntity(c, c.req.param("ref"), type, Permission.UPDATE_METADATA);
      const old = fragmentOf(c, e, c.req.param("mref"));
      const fragment = readContainer(root, e, example);
      const sentRef = fieldText(root, "Ref");
      if (sentRef && sentRef.toLowerCase() !== old.mref) {
        throw new HTTPException(400, {
          message: `<Ref> ${sentRef} differs from the fragment in the request path (${old.mref}); send the container to that fragment's URL or correct <Ref>`,
        });
      }
      changeEntity(
        c,
        e,
        "UpdateMetadata",
        (db) => updateFragment(db, old.mref, fragment.schemaUri, fragment.content, nowIso(c)),
        `Replaced metadata fragment ${old.mref} (${fragment.schemaUri})`,
      );
      return reply(c, e, old.mref);
    });

    api.delete(`/${path}/:ref/metadata/:mref`, (c) => {
      const e = writableEntity(c, c.req.param("ref"), type, Permission.UPDATE_METADATA);
      const old = fragmentOf(c, e, c.req.param("mref"));
      changeEntity(
        c,
        e,
        "DeleteMetadata",
        (db) => deleteFragment(db, old.mref),
        `Removed metadata fragment ${old.mref} (${old.schema_uri})`,
      );
      return noContent(c);
    });
  }
}
