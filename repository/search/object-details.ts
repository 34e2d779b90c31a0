import type { Permissions } from "../store/auth.js";
import { Permission } from "../store/auth.js";
import type { Db } from "../store/db.js";
import type { EntityRow } from "../store/entities/types.js";
import { prepared } from "../store/statements.js";
import { cmisFields } from "../store/system/read.js";
import { DC_ELEMENTS_NS, dublinCoreValues, OAI_DC_SCHEMA } from "./dublin-core.js";
import { fileOf, thumbnailOf } from "./files.js";
import { walkXml } from "./xml.js";

/**
 * The Content API's `object-details` view of one entity: CMIS-style properties (every value a string,
 * dates as epoch seconds, as the real service sends them), the descriptive metadata as groups of
 * name/value items ("Dublin Core Metadata" for oai_dc, one group per other schema), and links.
 */

export interface NameValue {
  name: string;
  value: string;
}
export interface MetadataItem {
  name: string;
  value: string;
  type: string;
}
export interface MetadataGroup {
  title: string;
  groupOrItem: MetadataItem[];
}
export interface ObjectDetails {
  id: string;
  name: string;
  properties: NameValue[];
  metadata: { title: string; description: string; groupOrItem: MetadataGroup[] };
  links: { rel: string; href: string; type: string }[];
}

export const DUBLIN_CORE_GROUP = "Dublin Core Metadata";

function epochSeconds(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? "" : String(Math.floor(ms / 1000));
}

/** Who created and last changed the entity, from its event actions (oldest and newest). */
function history(db: Db, ref: string): { createdBy?: string; modifiedBy?: string } {
  const rows = prepared(
    db,
    `SELECT ev.username AS username FROM event_actions ea JOIN events ev ON ev.id = ea.event_id
     WHERE ea.entity_ref = ? ORDER BY ea.date, ea.id`,
  ).all(ref) as { username: string }[];
  return { createdBy: rows[0]?.username, modifiedBy: rows.at(-1)?.username };
}

interface Fragment {
  schema_uri: string;
  content: string;
}

function fragmentsOf(db: Db, ref: string): Fragment[] {
  return prepared(
    db,
    "SELECT schema_uri, content FROM metadata_fragments WHERE entity_ref = ? ORDER BY id",
  ).all(ref) as Fragment[];
}

/**
 * The value of a field the CMIS transform names for Title or Description (Administration API,
 * `/api/admin/cmis-transform`): `xip.*` is the entity's own, `oai_dc.<element>` the first Dublin Core value,
 * `{namespace}localName` the first element of that name with text in any fragment. Undefined when the
 * entity has none, so the caller shows the entity's own.
 */
function cmisValue(field: string, e: EntityRow, fragments: Fragment[]): string | undefined {
  if (field === "xip.title") return e.title;
  if (field === "xip.description") return e.description ?? "";
  const dc = /^oai_dc\.(\w+)$/.exec(field);
  const clark = /^\{(.+)\}([^}]+)$/.exec(field);
  for (const f of fragments) {
    if (dc) {
      const v = dublinCoreValues(f.content).find((x) => x.name === dc[1]);
      if (v) return v.value;
    } else if (clark) {
      let found: string | undefined;
      walkXml(f.content, (el) => {
        if (found === undefined && el.ns === clark[1] && el.localName === clark[2] && el.text.trim()) {
          found = el.text.trim();
        }
      });
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

function metadataGroups(fragments: Fragment[]): MetadataGroup[] {
  const groups: MetadataGroup[] = [];
  for (const f of fragments) {
    const dc = dublinCoreValues(f.content);
    if (f.schema_uri === OAI_DC_SCHEMA || f.schema_uri === DC_ELEMENTS_NS || dc.length > 0) {
      const items = dc.map((v) => ({ name: v.name, value: v.value, type: "string" }));
      if (items.length > 0) groups.push({ title: DUBLIN_CORE_GROUP, groupOrItem: items });
      continue;
    }
    // Any other schema: its leaf elements with text, named by local name.
    const items: MetadataItem[] = [];
    walkXml(f.content, (el) => {
      if (!el.hasChildren && el.text) items.push({ name: el.localName, value: el.text, type: "string" });
    });
    if (items.length > 0) groups.push({ title: f.schema_uri, groupOrItem: items });
  }
  return groups;
}

export interface DetailsOptions {
  /** Origin of this service (e.g. http://127.0.0.1:8080), for links. */
  baseUrl: string;
  permissions: Permissions;
  /** `excludeproperties=history`: leave out who/when created and modified. */
  excludeHistory: boolean;
}

export function objectDetails(db: Db, e: EntityRow, opts: DetailsOptions): ObjectDetails {
  const id = `sdb:${e.type}|${e.ref}`;
  const fragments = fragmentsOf(db, e.ref);
  const fields = cmisFields(db);
  const title = cmisValue(fields.titleField, e, fragments) ?? e.title;
  const description = cmisValue(fields.descriptionField, e, fragments) ?? e.description ?? "";
  const props: NameValue[] = [];
  const prop = (name: string, value: string | undefined) => {
    if (value !== undefined) props.push({ name, value });
  };
  prop("cmis:objectId", id);
  prop("cmis:name", title);
  prop("cmis:description", description);
  prop("cmis:objectTypeId", e.type === "SO" ? "cmis:folder" : "cmis:document");
  if (e.parent_ref) {
    const parent = prepared(
      db,
      "SELECT type, title, security_tag FROM entities WHERE ref = ? AND deleted = 0",
    ).get(e.parent_ref) as { type: string; title: string; security_tag: string } | undefined;
    prop("sdbcmis:parentId", `sdb:${parent?.type ?? "SO"}|${e.parent_ref}`);
    // The parent's title only when the caller could read it anyway.
    if (parent && opts.permissions.permits(parent.security_tag, Permission.READ_METADATA)) {
      prop("sdbcmis:parentName", parent.title);
    }
  }
  prop("sdbcmis:securityDescriptor", e.security_tag);
  if (!opts.excludeHistory) {
    const h = history(db, e.ref);
    prop("cmis:createdBy", h.createdBy);
    prop("cmis:creationDate", epochSeconds(e.created));
    prop("cmis:lastModifiedBy", h.modifiedBy);
    prop("cmis:lastModificationDate", epochSeconds(e.modified));
  }

  const links: ObjectDetails["links"] = [];
  const canDownload = opts.permissions.permits(e.security_tag, Permission.DOWNLOAD);
  if (e.type !== "SO") {
    const file = fileOf(db, e);
    if (file) {
      prop("cmis:contentStreamLength", String(file.size));
      prop("cmis:contentStreamMimeType", file.mimeType);
      prop("cmis:contentStreamFileName", file.filename);
    }
    prop("sdbcmis:downloadable", String(Boolean(file) && canDownload));
    if (file && canDownload) {
      const q = `id=${encodeURIComponent(id)}`;
      links.push({ rel: "render", href: `${opts.baseUrl}/api/content/download?${q}`, type: "View" });
      links.push({ rel: "download", href: `${opts.baseUrl}/api/content/download?${q}`, type: file.mimeType });
    }
  }
  // What the thumbnail route serves (and only to whoever it serves it to): a custom preview, which
  // folders may have too, else the entity's own file when that is an image.
  const thumbnail = canDownload ? thumbnailOf(db, e) : undefined;
  if (thumbnail) {
    links.push({
      rel: "thumbnail",
      href: `${opts.baseUrl}/api/content/thumbnail?id=${encodeURIComponent(id)}`,
      type: thumbnail.mimeType,
    });
  }

  return {
    id,
    name: title,
    properties: props,
    metadata: { title, description, groupOrItem: metadataGroups(fragments) },
    links,
  };
}
