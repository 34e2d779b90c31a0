import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { addEvent, addIdentifier, insertEntity } from "../../repository/store/entities/write.js";
import { authed, login, startTestRepository } from "../helpers/repository.js";
import { arr, getXml, jsonError, text } from "./entity-xml.js";

/** History and look-ups over real HTTP: event actions, events, updated-since, by-identifier. */

const E = "/api/entity";
let repo: RunningRepository;
let manager: ReturnType<typeof authed>;
let reader: ReturnType<typeof authed>;
const f = {} as {
  folder: string;
  asset: string;
  closedAsset: string;
  ingest: string;
  modify: string;
  secretOnly: string;
  mixed: string;
};

beforeAll(async () => {
  repo = await startTestRepository();
  const db = repo.svc.db;
  f.folder = insertEntity(db, {
    type: "SO",
    title: "Old folder",
    securityTag: "open",
    created: "2020-01-10T00:00:00.000Z",
  }).ref;
  f.asset = insertEntity(db, {
    type: "IO",
    title: "Asset & co",
    securityTag: "open",
    parentRef: f.folder,
    created: "2024-05-01T12:00:00.000Z",
  }).ref;
  f.closedAsset = insertEntity(db, {
    type: "IO",
    title: "Closed asset",
    securityTag: "closed",
    parentRef: f.folder,
    created: "2024-05-02T12:00:00.000Z",
  }).ref;
  f.ingest = addEvent(db, {
    type: "Ingest",
    date: "2024-05-01T12:00:00.000Z",
    username: "curator",
    workflowName: "Standard ingest",
    workflowInstanceId: "42",
    actions: [
      { entityRef: f.folder, commandType: "AddStructuralObject" },
      { entityRef: f.asset, commandType: "AddInformationObject" },
    ],
  });
  f.modify = addEvent(db, {
    type: "Modified",
    date: "2024-06-01T09:00:00.000Z",
    username: "manager",
    actions: [{ entityRef: f.asset, commandType: "UpdateInformationObject", serialisedCommand: "<cmd/>" }],
  });
  f.secretOnly = addEvent(db, {
    type: "Modified",
    date: "2024-06-02T09:00:00.000Z",
    username: "manager",
    actions: [{ entityRef: f.closedAsset, commandType: "UpdateInformationObject" }],
  });
  f.mixed = addEvent(db, {
    type: "Moved",
    date: "2024-07-01T09:00:00.000Z",
    username: "manager",
    actions: [
      { entityRef: f.closedAsset, commandType: "MoveInformationObject" },
      { entityRef: f.asset, commandType: "MoveInformationObject" },
    ],
  });
  addIdentifier(db, f.asset, "code", "X-1");
  addIdentifier(db, f.closedAsset, "code", "X-1");
  addIdentifier(db, f.folder, "other", "X-1");
  manager = authed(repo.url, (await login(repo.url, "manager")).token);
  reader = authed(repo.url, (await login(repo.url, "reader")).token);
});

afterAll(async () => {
  await repo?.close();
});

const refsOf = (reply: { root: { Events?: { Event?: unknown } } }) =>
  arr(reply.root.Events?.Event).map((e) => e.Ref);

describe("event actions of an entity", () => {
  it("lists xip:EventAction with its event, date and entity, paged", async () => {
    const reply = await getXml(reader, `${E}/information-objects/${f.asset}/event-actions?max=2`);
    expect(reply.rootName).toBe("EventActionsResponse");
    const actions = arr(reply.root.EventActions.EventAction);
    expect(actions).toHaveLength(2);
    const [first, second] = actions;
    expect(first["@commandType"]).toBe("AddInformationObject");
    expect(first.Event).toMatchObject({
      "@type": "Ingest",
      Ref: f.ingest,
      Date: "2024-05-01T12:00:00.000Z",
      User: "curator",
      WorkflowName: "Standard ingest",
      WorkflowInstanceId: "42",
    });
    expect(first.Date).toBe("2024-05-01T12:00:00.000Z");
    expect(first.Entity).toBe(f.asset);
    expect(second.Event.WorkflowName).toBeUndefined();
    expect(second.SerialisedCommand).toBeDefined();
    expect(reply.root.Paging.TotalResults).toBe("3");
    const next = new URL(text(reply.root.Paging.Next));
    expect(next.origin).toBe(repo.url);
    expect(next.searchParams.get("start")).toBe("2");
  });

  it("needs Read Metadata on the entity", async () => {
    const res = await reader(`${E}/information-objects/${f.closedAsset}/event-actions`);
    expect(res.status).toBe(403);
    await getXml(manager, `${E}/information-objects/${f.closedAsset}/event-actions`);
  });
});

describe("events", () => {
  it("lists only events that acted on entities the caller may read, and counts only those", async () => {
    const theirs = await getXml(reader, `${E}/events`);
    expect(theirs.rootName).toBe("EventsResponse");
    expect(refsOf(theirs)).toEqual([f.ingest, f.modify, f.mixed]);
    expect(theirs.root.Paging.TotalResults).toBe("3");
    const mine = await getXml(manager, `${E}/events`);
    expect(refsOf(mine)).toEqual([f.ingest, f.modify, f.secretOnly, f.mixed]);
    const ingest = arr(mine.root.Events.Event)[0];
    expect(ingest).toMatchObject({ "@type": "Ingest", User: "curator", Date: "2024-05-01T12:00:00.000Z" });
  });

  it("filters by types (comma or repeated), username, from and to, keeping filters in Next", async () => {
    expect(refsOf(await getXml(manager, `${E}/events?types=Ingest,Moved`))).toEqual([f.ingest, f.mixed]);
    expect(refsOf(await getXml(manager, `${E}/events?types=Ingest&types=Moved`))).toEqual([
      f.ingest,
      f.mixed,
    ]);
    expect(refsOf(await getXml(manager, `${E}/events?username=curator`))).toEqual([f.ingest]);
    expect(refsOf(await getXml(manager, `${E}/events?from=2024-06-01&to=2024-06-30`))).toEqual([
      f.modify,
      f.secretOnly,
    ]);
    expect(refsOf(await getXml(manager, `${E}/events?from=2024-06-01T10:00:00%2B02:00`))).toEqual([
      f.modify,
      f.secretOnly,
      f.mixed,
    ]);
    const paged = await getXml(manager, `${E}/events?types=Modified&max=1`);
    expect(refsOf(paged)).toEqual([f.modify]);
    const next = new URL(text(paged.root.Paging.Next));
    expect(next.searchParams.get("types")).toBe("Modified");
    expect(next.searchParams.get("start")).toBe("1");
    const empty = await getXml(manager, `${E}/events?types=Deleted`);
    expect(refsOf(empty)).toEqual([]);
    expect(empty.root.Paging.TotalResults).toBe("0");
  });

  it("rejects a malformed date filter with 400", async () => {
    const res = await manager(`${E}/events?from=yesterday`);
    expect(res.status).toBe(400);
    expect((await jsonError(res)).message).toMatch(/ISO 8601/);
  });

  it("lists the actions of one event on readable entities only", async () => {
    const theirs = await getXml(reader, `${E}/events/${f.mixed}/event-actions`);
    expect(theirs.rootName).toBe("EventActionsResponse");
    expect(arr(theirs.root.EventActions.EventAction).map((a) => a.Entity)).toEqual([f.asset]);
    expect(theirs.root.Paging.TotalResults).toBe("1");
    const mine = await getXml(manager, `${E}/events/${f.mixed}/event-actions`);
    expect(arr(mine.root.EventActions.EventAction).map((a) => a.Entity)).toEqual([f.closedAsset, f.asset]);
    expect((await reader(`${E}/events/00000000-0000-4000-8000-000000000000/event-actions`)).status).toBe(404);
    expect((await reader(`${E}/events/42/event-actions`)).status).toBe(404);
  });
});

describe("entities updated since", () => {
  it("lists readable entities modified since the date (and until endDate)", async () => {
    const reply = await getXml(reader, `${E}/entities/updated-since?date=2024-01-01`);
    expect(reply.rootName).toBe("EntitiesResponse");
    const entities = arr(reply.root.Entities.Entity);
    expect(entities).toHaveLength(1);
    expect(entities[0]).toMatchObject({ "@type": "IO", "@ref": f.asset, "@title": "Asset & co" });
    expect(text(entities[0])).toBe(`${repo.url}${E}/information-objects/${f.asset}`);
    expect(reply.root.Paging.TotalResults).toBe("1");

    const all = await getXml(manager, `${E}/entities/updated-since?date=2019-12-31T00:00:00Z`);
    expect(arr(all.root.Entities.Entity).map((e) => e["@ref"])).toEqual([f.folder, f.asset, f.closedAsset]);
    // An unencoded `+` in the offset arrives as a space; it is read as `+`.
    const bounded = await getXml(
      manager,
      `${E}/entities/updated-since?date=2024-05-01T13:00:00+01:00&endDate=2024-05-01T23:59:59Z`,
    );
    expect(arr(bounded.root.Entities.Entity).map((e) => e["@ref"])).toEqual([f.asset]);
  });

  it("requires a valid date", async () => {
    expect((await reader(`${E}/entities/updated-since`)).status).toBe(400);
    expect((await reader(`${E}/entities/updated-since?date=2024-13-45`)).status).toBe(400);
    expect((await reader(`${E}/entities/updated-since?date=2024-01-01&endDate=soon`)).status).toBe(400);
  });
});

describe("entities by identifier", () => {
  it("finds readable entities by identifier type and value", async () => {
    const reply = await getXml(reader, `${E}/entities/by-identifier?type=code&value=X-1`);
    expect(reply.rootName).toBe("EntitiesResponse");
    expect(arr(reply.root.Entities.Entity).map((e) => e["@ref"])).toEqual([f.asset]);
    expect(reply.root.Paging.TotalResults).toBe("1");
    const mine = await getXml(manager, `${E}/entities/by-identifier?type=code&value=X-1`);
    expect(arr(mine.root.Entities.Entity).map((e) => e["@ref"])).toEqual([f.asset, f.closedAsset]);
    const anyType = await getXml(manager, `${E}/entities/by-identifier?value=X-1`);
    expect(anyType.root.Paging.TotalResults).toBe("3");
    const none = await getXml(manager, `${E}/entities/by-identifier?type=code&value=nothing`);
    expect(arr(none.root.Entities?.Entity)).toEqual([]);
    expect(none.root.Paging.TotalResults).toBe("0");
  });

  it("requires a value", async () => {
    const res = await reader(`${E}/entities/by-identifier?type=code`);
    expect(res.status).toBe(400);
  });
});
