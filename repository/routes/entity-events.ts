import type { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { listValues } from "../http/params.js";
import {
  byIdentifierPage,
  entityActionsPage,
  eventActionsPage,
  eventsPage,
  findEvent,
  updatedSincePage,
} from "../store/entities/read.js";
import { entitiesDocument, eventActionsDocument, eventsDocument } from "../xml/event-docs.js";
import {
  ENTITY_TYPE_PATHS,
  type EntityEnv,
  isoParam,
  listMeta,
  pagedXml,
  paging,
  readableEntity,
  readableTags,
  refInPath,
  xml,
} from "./entity-common.js";

/**
 * History and look-ups: event actions of an entity, events (filtered), actions of one event, entities
 * updated since a date, entities by identifier. Only what acts on entities the caller may read is shown.
 */
export function registerEntityEventRoutes(api: Hono<EntityEnv>): void {
  for (const [type, path] of ENTITY_TYPE_PATHS) {
    api.get(`/${path}/:ref/event-actions`, (c) => {
      const e = readableEntity(c, c.req.param("ref"), type);
      return pagedXml(
        c,
        (start, max) => entityActionsPage(c.get("svc").db, e.ref, start, max),
        (items, meta) => eventActionsDocument(c.get("render"), items, meta),
      );
    });
  }

  api.get("/events", (c) => {
    const { start, max } = paging(c);
    const types = listValues(c.req.queries("types") ?? []);
    const filter = {
      types: types.length > 0 ? JSON.stringify(types) : null,
      from: isoParam(c, "from", false),
      to: isoParam(c, "to", false),
      username: c.req.query("username")?.trim() || null,
    };
    const page = eventsPage(c.get("svc").db, filter, readableTags(c), start, max);
    return xml(c, eventsDocument(c.get("render"), page.items, listMeta(c, start, max, page.total)));
  });

  api.get("/events/:eventRef/event-actions", (c) => {
    const ref = refInPath(c.req.param("eventRef"), "Event reference");
    const db = c.get("svc").db;
    const event = findEvent(db, ref);
    if (!event)
      throw new HTTPException(404, { message: `Event ${ref} not found; list events at /api/entity/events` });
    return pagedXml(
      c,
      (start, max) => eventActionsPage(db, event.id, readableTags(c), start, max),
      (items, meta) => eventActionsDocument(c.get("render"), items, meta),
    );
  });

  api.get("/entities/updated-since", (c) => {
    const since = isoParam(c, "date", true) as string;
    const until = isoParam(c, "endDate", false);
    return pagedXml(
      c,
      (start, max) => updatedSincePage(c.get("svc").db, since, until, readableTags(c), start, max),
      (items, meta) => entitiesDocument(c.get("render"), items, meta),
    );
  });

  api.get("/entities/by-identifier", (c) => {
    const value = c.req.query("value");
    if (value === undefined || value === "") {
      throw new HTTPException(400, {
        message:
          "Parameter value is required (and type usually): /api/entity/entities/by-identifier?type=…&value=…",
      });
    }
    const type = c.req.query("type") || null;
    return pagedXml(
      c,
      (start, max) => byIdentifierPage(c.get("svc").db, type, value, readableTags(c), start, max),
      (items, meta) => entitiesDocument(c.get("render"), items, meta),
    );
  });
}
