/**
 * The two CMIS object types the endpoint serves: `cmis:folder` (a Preservica folder, or the synthetic
 * root above the top level) and `cmis:document` (an asset). Both are read-only: not creatable, every
 * property `readonly`, no versioning, no ACLs or policies. Besides the CMIS 1.1 base properties each
 * carries the `sdbcmis:` properties the Content API's object details name (search/object-details.ts).
 */

export type CmisPropertyType = "id" | "string" | "integer" | "boolean" | "datetime";
export type BaseTypeId = "cmis:folder" | "cmis:document";

export interface PropertyDefinition {
  id: string;
  type: CmisPropertyType;
  multi?: boolean;
  displayName: string;
  description: string;
  /** CMIS marks these required on every object of the type. */
  required?: boolean;
  queryable?: boolean;
}

export interface TypeDefinition {
  id: BaseTypeId;
  displayName: string;
  description: string;
  properties: PropertyDefinition[];
}

const p = (
  id: string,
  type: CmisPropertyType,
  displayName: string,
  description: string,
  extra: Partial<PropertyDefinition> = {},
): PropertyDefinition => ({ id, type, displayName, description, ...extra });

const COMMON: PropertyDefinition[] = [
  p(
    "cmis:objectId",
    "id",
    "Object Id",
    "The object's id: sdb:SO|<ref> or sdb:IO|<ref> (root: the root folder)",
    {
      required: true,
    },
  ),
  p("cmis:baseTypeId", "id", "Base Type Id", "cmis:folder or cmis:document", { required: true }),
  p("cmis:objectTypeId", "id", "Object Type Id", "cmis:folder or cmis:document", { required: true }),
  p("cmis:secondaryObjectTypeIds", "id", "Secondary Type Ids", "None: no secondary types", { multi: true }),
  // The one property a query's WHERE may compare (= and LIKE; cmis/query.ts).
  p("cmis:name", "string", "Name", "The title, from the configured CMIS transform", {
    required: true,
    queryable: true,
  }),
  p("cmis:description", "string", "Description", "The description, from the configured CMIS transform"),
  p("cmis:createdBy", "string", "Created by", "Who made the entity (its first event)"),
  p("cmis:creationDate", "datetime", "Creation Date", "When the entity was made"),
  p("cmis:lastModifiedBy", "string", "Last Modified by", "Who last changed the entity (its latest event)"),
  p("cmis:lastModificationDate", "datetime", "Last Modification Date", "When the entity last changed"),
  p("cmis:changeToken", "string", "Change Token", "Not used: the repository cannot be changed over CMIS"),
  p(
    "sdbcmis:parentId",
    "id",
    "Parent Id",
    "The Content API id of the parent folder (absent at the top level)",
  ),
  p("sdbcmis:parentName", "string", "Parent Name", "The parent folder's title, when you may read it"),
  p("sdbcmis:securityDescriptor", "string", "Security Tag", "The entity's security tag"),
];

const FOLDER: TypeDefinition = {
  id: "cmis:folder",
  displayName: "Folder",
  description: "A folder (structural object); the root folder stands above the top level",
  properties: [
    ...COMMON,
    p("cmis:parentId", "id", "Parent Id", "The parent folder (the root folder for top-level folders)"),
    p("cmis:path", "string", "Path", "The names of the folders from the root, joined with /"),
    p("cmis:allowedChildObjectTypeIds", "id", "Allowed Child Types", "Not set: any type may be a child", {
      multi: true,
    }),
  ],
};

const DOCUMENT: TypeDefinition = {
  id: "cmis:document",
  displayName: "Document",
  description: "An asset (information object); its content stream is the file the Content API downloads",
  properties: [
    ...COMMON,
    p("cmis:isImmutable", "boolean", "Is Immutable", "Always true: the repository is read-only over CMIS"),
    p("cmis:isLatestVersion", "boolean", "Is Latest Version", "Always true: no versions over CMIS"),
    p("cmis:isMajorVersion", "boolean", "Is Major Version", "Always true"),
    p("cmis:isLatestMajorVersion", "boolean", "Is Latest Major Version", "Always true"),
    p("cmis:isPrivateWorkingCopy", "boolean", "Is Private Working Copy", "Always false"),
    p("cmis:versionLabel", "string", "Version Label", "Not set: not versionable"),
    p("cmis:versionSeriesId", "id", "Version Series Id", "The object's own id"),
    p("cmis:isVersionSeriesCheckedOut", "boolean", "Is Checked Out", "Always false"),
    p("cmis:versionSeriesCheckedOutBy", "string", "Checked Out By", "Not set"),
    p("cmis:versionSeriesCheckedOutId", "id", "Checked Out Id", "Not set"),
    p("cmis:checkinComment", "string", "Check-in Comment", "Not set"),
    p("cmis:contentStreamLength", "integer", "Content Length", "Size in bytes of the asset's file"),
    p("cmis:contentStreamMimeType", "string", "MIME Type", "Media type of the asset's file"),
    p("cmis:contentStreamFileName", "string", "File Name", "Name of the asset's file"),
    p("cmis:contentStreamId", "id", "Content Stream Id", "Not set: one stream per document"),
    p("sdbcmis:downloadable", "boolean", "Downloadable", "Whether you may download the content stream"),
  ],
};

export const TYPES: readonly TypeDefinition[] = [DOCUMENT, FOLDER];

export function typeById(id: string): TypeDefinition | undefined {
  return TYPES.find((t) => t.id === id);
}
