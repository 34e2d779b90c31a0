import { EventType } from "../events/write.js";

/**
 * Webhook trigger types and which recorded repository events fire them.
 *
 * The first five are the values pyPreservica's `TriggerType` sends (wire-formats.md §4.5); the rest are
 * this service's own, for the other changes a receiver may want to hear of. One webhook event is sent per
 * event action of a matching event (the entity the action names), so a security change applied to a
 * folder and its descendants reports every entity whose tag changed.
 */
export const TRIGGER_TYPES = [
  "MOVED",
  "FULL_TEXT_INDEXED",
  "CHANGED_SECURITY_DESCRIPTOR",
  "INGEST_FAILED",
  "CHANGE_ASSET_VISIBILITY",
  "CHANGED_METADATA",
  "CHANGED_CONTENT",
  "DELETED",
] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

/** Ingest's event type (ingest/commit.ts INGEST_EVENT_TYPE), spelt here so the store imports no ingest code. */
const INGEST_EVENT = "Ingest";

/**
 * The trigger type an event of `eventType` recorded with `commandType` fires, or undefined when no
 * trigger reports it (recoveries, retention changes). INGEST_FAILED and CHANGE_ASSET_VISIBILITY are
 * accepted for pyPreservica's sake but never fire: a failed ingest changes no entity, and this service
 * has no asset visibility setting.
 */
export function triggerOf(eventType: string, commandType: string): TriggerType | undefined {
  switch (eventType) {
    case EventType.MOVED:
      return "MOVED";
    case EventType.SECURITY_CHANGED:
      return "CHANGED_SECURITY_DESCRIPTOR";
    case EventType.CONTENT_REPLACED:
      return "CHANGED_CONTENT";
    case EventType.MODIFIED:
      // A new representation changes what the asset holds, not what describes it.
      return commandType === "AddRepresentation" ? "CHANGED_CONTENT" : "CHANGED_METADATA";
    // An ingested (or API-created) entity is in the search index in the transaction that adds it, so
    // "indexed" is "ingest finished" here.
    case INGEST_EVENT:
    case EventType.CREATED:
      return "FULL_TEXT_INDEXED";
    case EventType.DELETED:
    case EventType.FINAL_DELETED:
      return "DELETED";
    default:
      return undefined;
  }
}

export function isTriggerType(v: string): v is TriggerType {
  return (TRIGGER_TYPES as readonly string[]).includes(v);
}
