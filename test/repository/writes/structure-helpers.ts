import { expect } from "vitest";
import type { Db } from "../../../repository/store/db.js";
import { arr, parseXml, text } from "../entity-xml.js";

/** Helpers shared by the structure, deletion and move-crash tests: progress polling and store reads. */

export type Fetcher = (path: string, init?: RequestInit) => Promise<Response>;
export const E = "/api/entity";

export interface Progress {
  status: string;
  total: number;
  done: number;
  failed: number;
  message: string;
}

export async function progress(get: Fetcher, id: string): Promise<Progress> {
  const res = await get(`${E}/progress/${id}`);
  const body = await res.text();
  expect(res.status, body).toBe(200);
  const r = parseXml(body).root;
  return {
    status: text(r.Status),
    total: Number(text(r.Total)),
    done: Number(text(r.Done)),
    failed: Number(text(r.Failed)),
    message: text(r.Message),
  };
}

/** Polls progress until the action is no longer ACTIVE (as pyPreservica's sync helpers do). */
export async function settled(get: Fetcher, id: string, timeoutMs = 20_000): Promise<Progress> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const p = await progress(get, id);
    if (p.status !== "ACTIVE") return p;
    if (Date.now() > until) throw new Error(`action ${id} still ACTIVE after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Sends a request and expects a 202 whose whole text/plain body is the progress id. */
export async function accepted(res: Response): Promise<string> {
  const body = await res.text();
  expect(res.status, body).toBe(202);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
  expect(body).toMatch(/^[0-9a-f-]{36}$/);
  return body;
}

/** The JSON error of a refusal, after checking its status. */
export async function refused(res: Response, status: number): Promise<string> {
  const body = await res.text();
  expect(res.status, body).toBe(status);
  const json = JSON.parse(body) as { success: boolean; message: string };
  expect(json.success).toBe(false);
  return json.message;
}

export function putText(get: Fetcher, path: string, body: string): Promise<Response> {
  return get(path, { method: "PUT", body, headers: { "Content-Type": "text/plain" } });
}

export function sendXml(get: Fetcher, method: string, path: string, body: string): Promise<Response> {
  return get(path, { method, body, headers: { "Content-Type": "application/xml;charset=UTF-8" } });
}

export function parentOf(db: Db, ref: string): string | null {
  return (
    db.prepare("SELECT parent_ref FROM entities WHERE ref = ?").get(ref) as { parent_ref: string | null }
  ).parent_ref;
}

export function tagOf(db: Db, ref: string): string {
  return (db.prepare("SELECT security_tag FROM entities WHERE ref = ?").get(ref) as { security_tag: string })
    .security_tag;
}

/** The event actions recorded on one event, by entity. */
export function eventActions(db: Db, eventRef: string): { entity_ref: string; command_type: string }[] {
  return db
    .prepare(
      `SELECT ea.entity_ref, ea.command_type FROM event_actions ea JOIN events ev ON ev.id = ea.event_id
        WHERE ev.ref = ? ORDER BY ea.id`,
    )
    .all(eventRef) as { entity_ref: string; command_type: string }[];
}

/** Events of a type that acted on an entity, newest last. */
export function eventsOn(db: Db, ref: string, type: string): { ref: string; username: string }[] {
  return db
    .prepare(
      `SELECT DISTINCT ev.ref, ev.username, ev.id FROM events ev JOIN event_actions ea ON ea.event_id = ev.id
        WHERE ea.entity_ref = ? AND ev.type = ? ORDER BY ev.id`,
    )
    .all(ref, type) as { ref: string; username: string }[];
}

/** Refs listed by updated-since for `date`, as the caller sees them. */
export async function updatedSince(get: Fetcher, date: string): Promise<string[]> {
  const res = await get(`${E}/entities/updated-since?date=${encodeURIComponent(date)}&max=1000`);
  const body = await res.text();
  expect(res.status, body).toBe(200);
  return arr(parseXml(body).root.Entities?.Entity).map((e) => e["@ref"] as string);
}

/** Refs of the children listing of a folder (or the top level when `folder` is null). */
export async function childrenOf(get: Fetcher, folder: string | null): Promise<string[]> {
  const path = folder ? `${E}/structural-objects/${folder}/children?max=1000` : `${E}/root/children?max=1000`;
  const res = await get(path);
  const body = await res.text();
  expect(res.status, body).toBe(200);
  return arr(parseXml(body).root.Children?.Child).map((c) => c["@ref"] as string);
}
