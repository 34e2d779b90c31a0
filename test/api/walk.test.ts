import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../../repository/seed.js";
import type { RunningRepository } from "../../repository/server.js";
import { EntityApi, type EntitySummary, type Page, type PageRequest } from "../../src/api/entity.js";
import {
  collect,
  PathNotFoundError,
  paginate,
  resolveTitlePath,
  splitTitlePath,
  walkTree,
} from "../../src/api/walk.js";
import { Session } from "../../src/session/session.js";
import { DEMO_USERS, startTestRepository } from "../helpers/repository.js";

/** Counts folder listings in flight, to check the walk's bound. */
class CountingEntityApi extends EntityApi {
  inFlight = 0;
  maxInFlight = 0;
  listings = 0;
  pageSizes = new Set<number | undefined>();
  override async children(ref: string | null, page: PageRequest = {}): Promise<Page<EntitySummary>> {
    this.inFlight++;
    this.listings++;
    if (!page.next) this.pageSizes.add(page.max);
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      return await super.children(ref, page);
    } finally {
      this.inFlight--;
    }
  }
}

/** The title path of a demo entity, from the plan (a "/" inside a title is written "\/"). */
function titlePath(ref: string): string {
  const byRef = new Map(DEMO.entities.map((e) => [e.ref, e]));
  const titles: string[] = [];
  for (let e = byRef.get(ref); e; e = e.parentRef ? byRef.get(e.parentRef) : undefined) {
    titles.unshift(e.title.replaceAll("/", "\\/"));
  }
  return `/${titles.join("/")}`;
}

describe("walking the tree", () => {
  let repo: RunningRepository;
  let session: Session;
  let entity: EntityApi;

  beforeAll(async () => {
    repo = await startTestRepository({ seed: "demo", faults: true });
    session = new Session({ url: repo.url, ...DEMO_USERS.manager, keepAlive: false });
    entity = new EntityApi(session.http);
  });
  afterAll(async () => {
    await session.close();
    await repo.close();
  });

  it("splits title paths, honouring escaped slashes", () => {
    expect(splitTitlePath("/Archive/Maps\\/Plans/ 1850 /")).toEqual(["Archive", "Maps/Plans", "1850"]);
    expect(splitTitlePath("//")).toEqual([]);
  });

  it("walks the whole collection with bounded concurrency", async () => {
    const counting = new CountingEntityApi(session.http);
    repo.faults?.setLatency(20); // so listings overlap
    try {
      const items = await collect(walkTree(counting, null, { concurrency: 3, pageSize: 7 }));
      const expected = DEMO.entities.filter((e) => e.type !== "CO");
      expect(items.map((i) => i.ref).sort()).toEqual(expected.map((e) => e.ref).sort());
      expect(new Set(items.map((i) => i.ref)).size).toBe(items.length);
      expect(counting.maxInFlight).toBeLessThanOrEqual(3);
      expect(counting.maxInFlight).toBeGreaterThan(1);
      const deep = items.find((i) => i.ref === DEMO.refs.councilMinutes1851);
      expect(`/${deep?.titles.join("/")}`).toBe(titlePath(DEMO.refs.councilMinutes1851));
      expect(deep?.depth).toBe(deep?.titles.length);
    } finally {
      repo.faults?.setLatency(0);
    }
  });

  it("by default keeps the whole HTTP pool busy and asks for large pages", async () => {
    // Issue 9 §2: 4 listings in flight left half of the 8 connections idle, and pages of 100 took two
    // round trips for most folders.
    const counting = new CountingEntityApi(session.http);
    repo.faults?.setLatency(20);
    try {
      const items = await collect(walkTree(counting, null));
      expect(items).toHaveLength(DEMO.entities.filter((e) => e.type !== "CO").length);
      expect(counting.maxInFlight).toBeGreaterThan(4);
      expect(counting.maxInFlight).toBeLessThanOrEqual(8);
      expect([...counting.pageSizes]).toEqual([1000]);
      // One listing per folder (and the top level): no folder of the demo needs a second page.
      expect(counting.listings).toBe(DEMO.entities.filter((e) => e.type === "SO").length + 1);
    } finally {
      repo.faults?.setLatency(0);
    }
  });

  it("stops at a depth and at a limit", async () => {
    const top = await collect(walkTree(entity, null, { maxDepth: 1 }));
    expect(top.map((i) => i.ref).sort()).toEqual(DEMO.rootFolders.map((f) => f.ref).sort());
    const five = await collect(walkTree(entity, null, { limit: 5 }));
    expect(five).toHaveLength(5);
  });

  it("pages a list to the end and stops at a limit", async () => {
    const all = await collect(
      paginate((req) => entity.updatedSince("1900-01-01T00:00:00Z", req), { pageSize: 50 }),
    );
    expect(all.length).toBe(DEMO.counts.total);
    const some = await collect(
      paginate((req) => entity.updatedSince("1900-01-01T00:00:00Z", req), { limit: 7, pageSize: 3 }),
    );
    expect(some).toHaveLength(7);
  });

  it("resolves a title path to a reference, case-insensitively", async () => {
    const path = titlePath(DEMO.refs.councilMinutes1851);
    const found = await resolveTitlePath(entity, path);
    expect(found.ref).toBe(DEMO.refs.councilMinutes1851);
    expect(found.type).toBe("IO");
    const shouting = await resolveTitlePath(entity, path.toUpperCase());
    expect(shouting.ref).toBe(DEMO.refs.councilMinutes1851);
  });

  it("names the level that failed and what exists there", async () => {
    const top = DEMO.rootFolders[0]?.title as string;
    const err = (await resolveTitlePath(entity, `/${top}/No Such Series/1850`).catch(
      (e: unknown) => e,
    )) as PathNotFoundError;
    expect(err).toBeInstanceOf(PathNotFoundError);
    expect(err.level).toBe(2);
    expect(err.segment).toBe("No Such Series");
    expect(err.found).toEqual([top]);
    const children = DEMO.entities.filter((e) => e.parentRef === DEMO.rootFolders[0]?.ref);
    expect(err.availableTotal).toBe(children.length);
    expect(err.available.length).toBeGreaterThan(0);
    expect(err.message).toContain(`"${err.available[0]}"`);
    expect(err.message).toMatch(/level 2/);

    const atTop = (await resolveTitlePath(entity, "/Nowhere").catch((e: unknown) => e)) as PathNotFoundError;
    expect(atTop.level).toBe(1);
    expect(atTop.message).toMatch(/top level/);

    const asset = titlePath(DEMO.refs.councilMinutes1851);
    const below = (await resolveTitlePath(entity, `${asset}/deeper`).catch(
      (e: unknown) => e,
    )) as PathNotFoundError;
    expect(below.message).toMatch(/is an asset/);
  });
});
