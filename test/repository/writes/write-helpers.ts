import { expect } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { authed, login } from "../../helpers/repository.js";
import { arr, getXml, jsonError, text } from "../entity-xml.js";
import { storeHash } from "./store-hash.js";

/** Shared plumbing of the entity-write tests: signed-in users, refusals that change nothing, traces. */

export type Fetcher = ReturnType<typeof authed>;

export interface Users {
  manager: Fetcher;
  curator: Fetcher;
  reader: Fetcher;
}

export async function signIn(repo: RunningRepository): Promise<Users> {
  const [m, c, r] = await Promise.all([
    login(repo.url, "manager"),
    login(repo.url, "curator"),
    login(repo.url, "reader"),
  ]);
  return {
    manager: authed(repo.url, m.token),
    curator: authed(repo.url, c.token),
    reader: authed(repo.url, r.token),
  };
}

/** A request with an XML body, as clients send it. */
export function sendXml(who: Fetcher, method: string, path: string, body: string): Promise<Response> {
  return who(path, { method, headers: { "Content-Type": "application/xml;charset=UTF-8" }, body });
}

/**
 * Makes a request that must be refused with `status` and a message matching `message`, and checks
 * that the store is exactly as it was.
 */
export async function expectRefused(
  repo: RunningRepository,
  request: () => Promise<Response>,
  status: number,
  message: RegExp,
): Promise<string> {
  const before = storeHash(repo.svc.db);
  const res = await request();
  const body = await jsonError(res);
  expect(res.status, body.message).toBe(status);
  expect(body.success).toBe(false);
  expect(body.message).toMatch(message);
  expect(storeHash(repo.svc.db), "a refused request changed the store").toBe(before);
  return body.message;
}

export interface TracedAction {
  commandType: string;
  eventType: string;
  user: string;
  serialised: string;
}

/** The most recent event action of an entity, as its event-actions list shows it. */
export async function lastAction(who: Fetcher, path: string, ref: string): Promise<TracedAction | undefined> {
  const r = await getXml(who, `/api/entity/${path}/${ref}/event-actions?max=1000`);
  const last = arr(r.root.EventActions?.EventAction).at(-1);
  if (!last) return undefined;
  return {
    commandType: last["@commandType"],
    eventType: last.Event["@type"],
    user: text(last.Event.User),
    serialised: text(last.SerialisedCommand),
  };
}

/** Number of event actions recorded on an entity. */
export async function actionCount(who: Fetcher, path: string, ref: string): Promise<number> {
  const r = await getXml(who, `/api/entity/${path}/${ref}/event-actions?max=0`);
  return Number(text(r.root.Paging.TotalResults));
}

/** Refs that /entities/updated-since lists for `since`. */
export async function updatedSince(who: Fetcher, since: string): Promise<string[]> {
  const r = await getXml(
    who,
    `/api/entity/entities/updated-since?date=${encodeURIComponent(since)}&max=1000`,
  );
  return arr(r.root.Entities?.Entity).map((e: { "@ref": string }) => e["@ref"]);
}

/** Checks the trace a write leaves: the event action and the entity among the recently updated. */
export async function expectTrace(
  who: Fetcher,
  path: string,
  ref: string,
  since: string,
  expected: { commandType: string; eventType: string; user: string },
): Promise<TracedAction> {
  const action = await lastAction(who, path, ref);
  expect(action).toMatchObject(expected);
  expect(await updatedSince(who, since)).toContain(ref);
  return action as TracedAction;
}

export interface SearchValue {
  objectIds: string[];
  totalHits: number;
  facets: { name: string; terms: { value: string; count: number }[] }[];
}

/** A Content API search (the JSON `q` form clients send). */
export async function contentSearch(
  who: Fetcher,
  query: Record<string, unknown>,
  extra: Record<string, string> = {},
): Promise<SearchValue> {
  const form = new URLSearchParams({ q: JSON.stringify(query), max: "100", ...extra });
  const res = await who("/api/content/search", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: form,
  });
  const body = (await res.json()) as { value: SearchValue };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.value;
}

/** The current instant, taken just before a write, for updated-since. */
export function instantNow(): string {
  return new Date().toISOString();
}

/** Fixtures are dated long ago, so only the writes under test show up in updated-since. */
export const LONG_AGO = "2020-01-01T00:00:00.000Z";
