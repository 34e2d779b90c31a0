import type { EntitySummary, EventActionRecord, EventRecord } from "../store/entities/types.js";
import { entityUrl, type ListMeta, openDocument, type RenderContext, writeListTail } from "./common.js";
import { type ApiVersion, isXip60 } from "./versions.js";
import { XmlWriter } from "./writer.js";

/** EntityAPI documents about history: event actions, events, changed entities, identifier look-ups. */

/**
 * An xip:Event. XIP v6.0 (API 6.0 and 6.1) defines only User and WorkflowName in it; Ref, Date and
 * WorkflowInstanceId came with 6.2.
 */
function writeEvent(
  w: XmlWriter,
  v: ApiVersion,
  e: {
    type: string;
    ref: string;
    date: string;
    username: string;
    workflow_name: string | null;
    workflow_instance_id: string | null;
  },
): void {
  w.open("xip:Event", { type: e.type });
  if (isXip60(v)) {
    w.leaf("xip:User", e.username).opt("xip:WorkflowName", e.workflow_name);
  } else {
    w.leaf("xip:Ref", e.ref)
      .leaf("xip:Date", e.date)
      .leaf("xip:User", e.username)
      .opt("xip:WorkflowName", e.workflow_name)
      .opt("xip:WorkflowInstanceId", e.workflow_instance_id);
  }
  w.close("xip:Event");
}

/**
 * EventActionsResponse: EventActions/xip:EventAction commandType=… (Event, Date, Entity,
 * SerialisedCommand?; no Date in XIP v6.0).
 */
export function eventActionsDocument(
  ctx: RenderContext,
  actions: EventActionRecord[],
  meta: ListMeta,
): string {
  const w = openDocument(ctx, "EventActionsResponse").open("EventActions");
  for (const a of actions) {
    w.open("xip:EventAction", { commandType: a.command_type });
    writeEvent(w, ctx.version, {
      type: a.event_type,
      ref: a.event_ref,
      date: a.event_date,
      username: a.username,
      workflow_name: a.workflow_name,
      workflow_instance_id: a.workflow_instance_id,
    });
    if (!isXip60(ctx.version)) w.leaf("xip:Date", a.action_date);
    w.leaf("xip:Entity", a.entity_ref)
      .opt("xip:SerialisedCommand", a.serialised_command)
      .close("xip:EventAction");
  }
  w.close("EventActions");
  return writeListTail(w, meta).close("EventActionsResponse").toString();
}

/** EventsResponse: Events/xip:Event type=… (Ref, Date, User, WorkflowName?, WorkflowInstanceId?). */
export function eventsDocument(ctx: RenderContext, events: EventRecord[], meta: ListMeta): string {
  const w = openDocument(ctx, "EventsResponse").open("Events");
  for (const e of events) writeEvent(w, ctx.version, e);
  w.close("Events");
  return writeListTail(w, meta).close("EventsResponse").toString();
}

/** EntitiesResponse: Entities/Entity type/ref/title with the entity's URL (updated-since, by-identifier). */
export function entitiesDocument(ctx: RenderContext, entities: EntitySummary[], meta: ListMeta): string {
  const w = openDocument(ctx, "EntitiesResponse").open("Entities");
  for (const e of entities) {
    w.leaf("Entity", entityUrl(ctx, e.type, e.ref), { type: e.type, ref: e.ref, title: e.title });
  }
  w.close("Entities");
  return writeListTail(w, meta).close("EntitiesResponse").toString();
}

/**
 * VersionDetails. Clients find `<CurrentVersion>` by plain substring search and split it into three
 * integers, so the element is unprefixed and the value always has three numeric parts.
 */
export function versionDetailsDocument(version: ApiVersion, current: string): string {
  return new XmlWriter()
    .open("VersionDetails", { xmlns: version.entityNs })
    .leaf("CurrentVersion", current)
    .close("VersionDetails")
    .toString();
}
