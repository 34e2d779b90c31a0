import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { addSecurityTag, grant, Permission, Role } from "../../../repository/store/auth.js";
import { insertEntity } from "../../../repository/store/entities/write.js";
import { authed, login, startTestRepository } from "../../helpers/repository.js";
import { arr, getXml } from "../entity-xml.js";
import { storeHash } from "./store-hash.js";
import {
  accepted,
  childrenOf,
  E,
  eventActions,
  eventsOn,
  type Fetcher,
  parentOf,
  putText,
  refused,
  settled,
  tagOf,
  updatedSince,
} from "./structure-helpers.js";

/**
 * Structure changes over real HTTP: move (PUT …/parent-ref) and security tag
 * (PUT …/security-descriptor), both long-running actions polled at /progress/{id}.
 */

const OLD = "2020-01-01T00:00:00.000Z";
const SINCE = "2021-01-01T00:00:00Z";

let repo: RunningRepository;
let manager: Fetcher;
let curator: Fetcher;
let reader: Fetcher;
const f = {} as Record<
  "top" | "sub" | "subAsset" | "co1" | "asset" | "co2" | "other" | "locked" | "mixed" | "lockedInside",
  string
>;

beforeAll(async () => {
  repo = await startTestRepository();
  const db = repo.svc.db;
  db.transaction(() => {
    // "locked": managers may do everything but change its security tag; curators may only read it.
    addSecurityTag(db, "locked");
    grant(db, Role.MANAGER, "locked", [Permission.READ_METADATA, Permission.MOVE, Permission.DELETE]);
    grant(db, Role.DATA_MANAGEMENT, "locked", [Permission.READ_METADATA]);
    const add = (
      key: keyof typeof f,
      type: "SO" | "IO" | "CO",
      title: string,
      parent?: string,
      tag = "open",
    ) => {
      f[key] = insertEntity(db, {
        type,
        title,
        securityTag: tag,
        parentRef: parent ? f[parent as keyof typeof f] : null,
        created: OLD,
      }).ref;
    };
    add("top", "SO", "Parish records");
    add("sub", "SO", "Vestry minutes", "top");
    add("subAsset", "IO", "Vestry minute book 1820", "sub");
    add("co1", "CO", "vestry-1820.pdf", "subAsset");
    add("asset", "IO", "Churchwardens accounts", "top");
    add("co2", "CO", "accounts.pdf", "asset");
    add("other", "SO", "Transferred series");
    add("locked", "SO", "Sealed deposit", undefined, "locked");
    add("mixed", "SO", "Mixed deposit");
    add("lockedInside", "IO", "Sealed letter", "mixed", "locked");
  })();
  manager = authed(repo.url, (await login(repo.url, "manager")).token);
  curator = authed(repo.url, (await login(repo.url, "curator")).token);
  reader = authed(repo.url, (await login(repo.url, "reader")).token);
});

afterAll(async () => {
  await repo?.close();
});

/** Expects the request to be refused with `status` and the store to be exactly as it was. */
async function refusedUnchanged(send: () => Promise<Response>, status: number): Promise<string> {
  const before = storeHash(repo.svc.db);
  const message = await refused(await send(), status);
  await repo.svc.actions.idle();
  expect(storeHash(repo.svc.db)).toBe(before);
  return message;
}

describe("move (PUT …/parent-ref)", () => {
  it("refuses a reader (no Move permission) with 403 and changes nothing", async () => {
    const message = await refusedUnchanged(
      () => putText(reader, `${E}/structural-objects/${f.sub}/parent-ref`, f.other),
      403,
    );
    expect(message).toMatch(/Move/);
  });

  it("moves a folder with its whole subtree for a curator, with one Moved event and new modified dates", async () => {
    const id = await accepted(await putText(curator, `${E}/structural-objects/${f.sub}/parent-ref`, f.other));
    const done = await settled(curator, id);
    expect(done).toMatchObject({ status: "COMPLETED", total: 3, done: 3, failed: 0 });
    const db = repo.svc.db;
    expect(parentOf(db, f.sub)).toBe(f.other);
    expect(parentOf(db, f.subAsset)).toBe(f.sub);
    expect(await childrenOf(curator, f.top)).toEqual([f.asset]);
    expect(await childrenOf(curator, f.other)).toEqual([f.sub]);
    const entity = await getXml(curator, `${E}/structural-objects/${f.sub}`);
    expect(entity.root.StructuralObject.Parent).toBe(f.other);

    // One event for the move; every entity that moved has exactly one action on it.
    const events = eventsOn(db, f.sub, "Moved");
    expect(events).toHaveLength(1);
    expect(events[0]?.username).toBe("curator");
    const actions = eventActions(db, events[0]?.ref as string);
    expect(actions.map((a) => a.entity_ref).sort()).toEqual([f.sub, f.subAsset, f.co1].sort());
    expect(new Set(actions.map((a) => a.command_type))).toEqual(new Set(["MoveEntity"]));
    const listed = await getXml(curator, `${E}/structural-objects/${f.sub}/event-actions`);
    expect(arr(listed.root.EventActions.EventAction).map((a) => a["@commandType"])).toContain("MoveEntity");

    // Harvesters see everything whose path changed, and nothing else.
    expect((await updatedSince(manager, SINCE)).sort()).toEqual([f.sub, f.subAsset, f.co1].sort());

    // The action's detail lists each entity once.
    const detail = await getXml(curator, `${E}/actions/moves/${id}`);
    const items = arr(detail.root.Items.Item);
    expect(items).toHaveLength(3);
    expect(new Set(items.map((i) => i["@entityRef"])).size).toBe(3);
  });

  it("refuses malformed and impossible moves with 4xx and changes nothing", async () => {
    const put = (path: string, ref: string, body: string) => () =>
      putText(curator, `${E}/${path}/${ref}/parent-ref`, body);
    expect(await refusedUnchanged(put("structural-objects", f.top, ""), 400)).toMatch(/@root@/);
    expect(await refusedUnchanged(put("structural-objects", f.top, "not a ref"), 400)).toMatch(
      /not a folder reference/,
    );
    expect(await refusedUnchanged(put("structural-objects", "nope", f.other), 404)).toMatch(/not a UUID/);
    await refusedUnchanged(put("structural-objects", "00000000-0000-4000-8000-000000000000", f.other), 404);
    expect(
      await refusedUnchanged(put("structural-objects", f.top, "00000000-0000-4000-8000-000000000000"), 404),
    ).toMatch(/Destination folder/);
    // Path of the wrong type.
    await refusedUnchanged(put("information-objects", f.top, f.other), 404);
    expect(await refusedUnchanged(put("structural-objects", f.other, f.other), 409)).toMatch(/into itself/);
    // other now holds sub: other cannot go under sub.
    expect(await refusedUnchanged(put("structural-objects", f.other, f.sub), 409)).toMatch(/own subtree/);
    expect(await refusedUnchanged(put("structural-objects", f.top, f.asset), 409)).toMatch(
      /only be moved into a folder/,
    );
    expect(await refusedUnchanged(put("structural-objects", f.top, f.co2), 409)).toMatch(/content object/);
    expect(await refusedUnchanged(put("information-objects", f.asset, "@root@"), 409)).toMatch(
      /Only folders/,
    );
    expect(await refusedUnchanged(put("content-objects", f.co2, f.other), 409)).toMatch(/move the asset/);
    // The curator may read "locked" but may not move anything into it.
    expect(await refusedUnchanged(put("information-objects", f.asset, f.locked), 403)).toMatch(
      /Move.*locked/,
    );
  });

  it("moves a folder to the top level with @root@, and completes without change when already there", async () => {
    const db = repo.svc.db;
    const again = await accepted(
      await putText(manager, `${E}/structural-objects/${f.sub}/parent-ref`, f.other),
    );
    const same = await settled(manager, again);
    expect(same.status).toBe("COMPLETED");
    expect(same.message).toMatch(/already in/);
    expect(eventsOn(db, f.sub, "Moved")).toHaveLength(1);

    const id = await accepted(
      await putText(manager, `${E}/structural-objects/${f.sub}/parent-ref`, "@root@"),
    );
    expect((await settled(manager, id)).status).toBe("COMPLETED");
    expect(parentOf(db, f.sub)).toBeNull();
    expect(await childrenOf(manager, null)).toContain(f.sub);
    expect(await childrenOf(manager, f.other)).toEqual([]);
    expect(eventsOn(db, f.co1, "Moved")).toHaveLength(2);
  });

  it("answers on a versioned path too", async () => {
    const id = await accepted(
      await putText(curator, `${E}/v7.0/information-objects/${f.subAsset}/parent-ref`, f.other),
    );
    expect((await settled(curator, id)).status).toBe("COMPLETED");
    expect(parentOf(repo.svc.db, f.subAsset)).toBe(f.other);
    expect(parentOf(repo.svc.db, f.co1)).toBe(f.subAsset);
  });
});

describe("security tag (PUT …/security-descriptor)", () => {
  const tagPath = (path: string, ref: string, include?: string) =>
    `${E}/${path}/${ref}/security-descriptor${include === undefined ? "" : `?includeDescendants=${include}`}`;

  it("refuses a curator (no Change Security Tag) with 403 and changes nothing", async () => {
    const message = await refusedUnchanged(
      () => putText(curator, tagPath("information-objects", f.asset, "false"), "closed"),
      403,
    );
    expect(message).toMatch(/Change Security Tag/);
  });

  it("refuses an unknown tag (naming the tags that exist), a bad parameter and an empty body", async () => {
    const unknown = await refusedUnchanged(
      () => putText(manager, tagPath("information-objects", f.asset, "false"), "topsecret"),
      400,
    );
    expect(unknown).toMatch(/closed, locked, open, staff/);
    await refusedUnchanged(
      () => putText(manager, tagPath("information-objects", f.asset, "maybe"), "closed"),
      400,
    );
    await refusedUnchanged(() => putText(manager, tagPath("information-objects", f.asset), ""), 400);
  });

  it("changes an asset's tag with its content objects; readers lose it at once, in search too", async () => {
    const db = repo.svc.db;
    const title = "Churchwardens";
    const search = async (who: Fetcher) => {
      const res = await who(`/api/content/search?q=${title}`);
      const body = (await res.json()) as { value: { objectIds: string[] } };
      expect(res.status).toBe(200);
      return body.value.objectIds;
    };
    expect(await search(reader)).toContain(`sdb:IO|${f.asset}`);
    const before = await updatedSince(manager, SINCE);

    const id = await accepted(
      await putText(manager, tagPath("information-objects", f.asset, "false"), "closed"),
    );
    expect(await settled(manager, id)).toMatchObject({ status: "COMPLETED", total: 2, done: 2 });
    expect(tagOf(db, f.asset)).toBe("closed");
    expect(tagOf(db, f.co2)).toBe("closed");
    expect(tagOf(db, f.top)).toBe("open");
    expect((await reader(`${E}/information-objects/${f.asset}`)).status).toBe(403);
    expect(await search(reader)).not.toContain(`sdb:IO|${f.asset}`);
    expect(await search(manager)).toContain(`sdb:IO|${f.asset}`);
    const entity = await getXml(manager, `${E}/information-objects/${f.asset}`);
    expect(entity.root.InformationObject.SecurityTag).toBe("closed");

    const events = eventsOn(db, f.asset, "SecurityTagChanged");
    expect(events).toHaveLength(1);
    expect(
      eventActions(db, events[0]?.ref as string)
        .map((a) => a.entity_ref)
        .sort(),
    ).toEqual([f.asset, f.co2].sort());
    const after = await updatedSince(manager, SINCE);
    expect(after.filter((r) => !before.includes(r)).sort()).toEqual([f.asset, f.co2].sort());
  });

  it("with includeDescendants=true changes the whole subtree; tags already right are skipped", async () => {
    const db = repo.svc.db;
    const id = await accepted(await putText(manager, tagPath("structural-objects", f.top, "true"), "closed"));
    const done = await settled(manager, id);
    expect(done).toMatchObject({ status: "COMPLETED", total: 3, done: 3 });
    expect([f.top, f.asset, f.co2].map((r) => tagOf(db, r))).toEqual(["closed", "closed", "closed"]);
    const events = eventsOn(db, f.top, "SecurityTagChanged");
    // asset and co2 were closed already: only the folder changed.
    expect(eventActions(db, events[0]?.ref as string).map((a) => a.entity_ref)).toEqual([f.top]);
  });

  it("refuses includeDescendants when one descendant's tag does not allow the change (403 naming it)", async () => {
    const message = await refusedUnchanged(
      () => putText(manager, tagPath("structural-objects", f.mixed, "true"), "staff"),
      403,
    );
    expect(message).toContain(f.lockedInside);
    expect(message).toMatch(/Change Security Tag.*"locked"/);
    // The entity's own tag counts as well.
    await refusedUnchanged(
      () => putText(manager, tagPath("information-objects", f.lockedInside), "open"),
      403,
    );
    // Without descendants only the folder changes.
    const id = await accepted(await putText(manager, tagPath("structural-objects", f.mixed), "staff"));
    expect((await settled(manager, id)).status).toBe("COMPLETED");
    expect(tagOf(repo.svc.db, f.mixed)).toBe("staff");
    expect(tagOf(repo.svc.db, f.lockedInside)).toBe("locked");
  });
});
