/**
 * The rows of the entity graph as the store hands them out (reads and writes alike): one file, so a
 * reader finds every shape in one place.
 */

export type EntityType = "SO" | "IO" | "CO";

export interface EntityRow {
  id: number;
  ref: string;
  type: EntityType;
  title: string;
  description: string | null;
  security_tag: string;
  custom_type: string | null;
  parent_ref: string | null;
  created: string;
  modified: string;
  deleted: number;
}

export interface EntitySummary {
  id: number;
  ref: string;
  type: EntityType;
  title: string;
  security_tag: string;
}

export interface EntityRecord extends EntitySummary {
  description: string | null;
  custom_type: string | null;
  parent_ref: string | null;
  modified: string;
}

export interface FragmentSummary {
  mref: string;
  schema_uri: string;
}

export interface FragmentRecord extends FragmentSummary {
  entity_ref: string;
  content: string;
}

/** An identifier of an entity, as listed and as addressed by its API id. */
export interface IdentifierRecord {
  api_id: string;
  entity_ref: string;
  type: string;
  value: string;
}

export interface LinkRecord {
  api_id: string;
  link_type: string;
  direction: "From" | "To";
  other_ref: string;
  other_type: EntityType;
  other_title: string;
}

export interface RepresentationSummary {
  type: string;
  name: string | null;
  idx: number;
}

export interface RepresentationRecord extends RepresentationSummary {
  id: number;
  io_ref: string;
}

export interface GenerationRecord {
  id: number;
  co_ref: string;
  idx: number;
  original: number;
  active: number;
  label: string | null;
  format_group: string | null;
  effective_date: string | null;
  format_puid: string | null;
  format_name: string | null;
  format_version: string | null;
}

export interface BitstreamRecord {
  id: number;
  generation_id: number;
  idx: number;
  filename: string;
  original_name: string | null;
  size: number;
  mime_type: string;
  content_sha256: string;
  /** Present only if a later schema adds the column. */
  physical_location?: string | null;
}

export interface FixityRecord {
  algorithm: string;
  value: string;
}

export interface EventRecord {
  id: number;
  ref: string;
  type: string;
  date: string;
  username: string;
  workflow_name: string | null;
  workflow_instance_id: string | null;
}

export interface EventActionRecord {
  command_type: string;
  action_date: string;
  entity_ref: string;
  serialised_command: string | null;
  event_ref: string;
  event_type: string;
  event_date: string;
  username: string;
  workflow_name: string | null;
  workflow_instance_id: string | null;
}

export type { Page } from "../statements.js";

export interface LinkRow {
  api_id: string;
  link_type: string;
  from_ref: string;
  to_ref: string;
}
