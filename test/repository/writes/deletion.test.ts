import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import type { Db } from "../../../repository/store/db.js";
import {
  addBitstream,
  addFragment,
  addGeneration,
  addIdentifier,
  addLink,
  addRepresentation,
  insertEntity,
} from "../../../repository/store/entities/write.js";
import { authed, login, startTestRepository } from "../../helpers/repository.js";
import { arr, ENTITY_NS, getXml, text, XIP_NS } from "../entity-xml.js";
import { storeHash } from "./store-hash.js";
import {
  accepted,
  childrenOf,
  E,
  eventActions,
  eventsOn,
  type Fetcher,
  progress,
  refused,
  sendXml,
  settled,
  updatedSince,
} from "./structure-helpers.js";

/**
 * Deletion over real HTTP, as pyPreservica does it (submit, PENDING, a manager approves), then the
 * recycle bin: deleted entities vanish from every read, recovery brings them back exactly, final
 * deletion removes them and the files nothing else uses.
 */

const OLD = "2020-01-01T00:00:00.000Z";
const SINCE = "2021-01-01T00:00:00Z";
const NS = ENTITY_NS("7.7");
const XIP = XIP_NS("7.7");
const DC = `<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Estate survey</dc:title></oai_dc:dc>`;

// As pyPreservica builds them with ElementTree.tostring(encoding="utf-8"): declaration in single quotes.
const DECLARATION = "<?xml version='1.0' encoding='utf-8'?>\n";
const submission = (comment: string) =>
  `${DECLARATION}<DeletionAction xmlns:xip="${XIP}" xmlns="${NS}"><Submission><Comment>${comment}</Comment></Submission></DeletionAction>`;
// pyPreservica names the approval element "DeletionAction " (a stray space), giving `</DeletionAction >`.
const approval = (approved: string, comment = "checked") =>
  `${DECLARATION}<DeletionAction  xmlns:xip="${XIP}" xmlns="${NS}"><Approval><Approved>${approved}</Approved><Comment>${comment}</Comment></Approval></DeletionAction >`;
const recovery = (inner: string) => `<RecoveryAction xmlns="${NS}">${inner}</RecoveryAction>`;
const finalDeletion = (inner: string) => `<FinalDeletionAction xmlns="${NS}">${inner}</FinalDeletionAction>`;

let repo: RunningRepository;
let db: Db;
let manager: Fetcher;
let curator: Fetcher;
let reader: Fetcher;
const f = {} as Record<
  | "estate"
  | "map"
  | "mapCo"
  | "sub"
  | "plan"
  | "planCo"
  | "keep"
  | "keeper"
  | "keeperCo"
  | "spare"
  | "late"
  | "retained"
  | "retainedAsset",
  string
>;
const blob = {} as Record<"shared" | "own", string>;

/** Adds an asset with one content object holding `bytes` (one generation, one bitstream). */
function assetWithFile(
  key: keyof typeof f,
  coKey: keyof typeof f,
  title: string,
  parent: string,
  bytes: string,
) {
  f[key] = insertEntity(db, { type: "IO", title, securityTag: "open", parentRef: parent, created: OLD }).ref;
  f[coKey] = insertEntity(db, {
    type: "CO",
    title: `${title}.txt`,
    securityTag: "open",
    parentRef: f[key],
    created: OLD,
  }).ref;
  addRepresentation(db, f[key], "Preservation", null, [f[coKey]]);
  const stored = repo.svc.content.put(Buffer.from(bytes));
  const gen = addGeneration(db, f[coKey], { label: title });
  addBitstream(db, gen, { filename: `${title}.txt`, mimeType: "text/plain", blob: stored });
  return stored.sha256;
}

beforeAll(async () => {
  repo = await startTestRepository();
  db = repo.svc.db;
  db.transaction(() => {
    const folder = (title: string, parent?: string) =>
      insertEntity(db, { type: "SO", title, securityTag: "open", parentRef: parent ?? null, created: OLD })
        .ref;
    f.estate = folder("Estate papers");
    blob.shared = assetWithFile("map", "mapCo", "Estate map", f.estate, "the same bytes in two assets");
    addIdentifier(db, f.map, "code", "EST-1");
    addFragment(db, f.map, "http://www.openarchives.org/OAI/2.0/oai_dc/", DC, { date: OLD });
    f.sub = folder("Estate plans", f.estate);
    blob.own = assetWithFile("plan", "planCo", "Estate plan", f.sub, "bytes only the plan has");
    f.keep = folder("Kept series");
    assetWithFile("keeper", "keeperCo", "Keeper copy", f.keep, "the same bytes in two assets");
    addLink(db, "RELATED", f.keeper, f.map);
    f.spare = insertEntity(db, {
      type: "IO",
      title: "Spare letter",
      securityTag: "open",
      parentRef: f.keep,
      created: OLD,
    }).ref;
    f.late = insertEntity(db, {
      type: "IO",
      title: "Late lease",
      securityTag: "open",
      parentRef: f.keep,
      created: OLD,
    }).ref;
    // A folder whose asset is under retention until ten years from now.
    f.retained = folder("Retained series");
    f.retainedAsset = insertEntity(db, {
      type: "IO",
      title: "Lease 1901",
      securityTag: "open",
      parentRef: f.retained,
      created: OLD,
    }).ref;
    const now = new Date().toISOString();
    db.prepare(
      `INSERT INTO retention_policies (ref, name, description, security_tag, period, period_unit, assignable, created, modified)
       VALUES ('policy-1', 'Leases: 10 years', 'Keep leases', 'open', 10, 'YEARS', 1, ?, ?)`,
    ).run(now, now);
    db.prepare(
      "INSERT INTO retention_assignments (api_id, entity_ref, policy_ref, start_date, created) VALUES ('ra-1', ?, 'policy-1', ?, ?)",
    ).run(f.retainedAsset, now, now);
  })();
  manager = authed(repo.url, (await login(repo.url, "manager")).token);
  curator = authed(repo.url, (await login(repo.url, "curator")).token);
  reader = authed(repo.url, (await login(repo.url, "reader")).token);
});

afterAll(async () => {
  await repo?.close();
});

async function refusedUnchanged(send: () => Promise<Response>, status: number): Promise<string> {
  const before = storeHash(db);
  const message = await refused(await send(), status);
  await repo.svc.actions.idle();
  expect(storeHash(db)).toBe(before);
  return message;
}

/** Entity rows of the estate subtree, every column but `modified` (recovery stamps it anew). */
function estateRows(): string {
  return JSON.stringify(
    db
      .prepare(
        `SELECT id, ref, type, title, description, security_tag, custom_type, parent_ref, created, deleted, deletion_id, deleted_at
           FROM entities WHERE ref IN (SELECT value FROM json_each(?)) ORDER BY id`,
      )
      .all(JSON.stringify([f.estate, f.map, f.mapCo, f.sub, f.plan, f.planCo])),
  );
}

/** Everything hanging off the estate entities (not entities, actions, events): must survive the bin. */
function estateAttachments(): string {
  const refs = JSON.stringify([f.estate, f.map, f.mapCo, f.sub, f.plan, f.planCo]);
  const q = (sql: string) => db.prepare(sql).all(refs);
  return JSON.stringify([
    q("SELECT * FROM identifiers WHERE entity_ref IN (SELECT value FROM json_each(?)) ORDER BY id"),
    q("SELECT * FROM metadata_fragments WHERE entity_ref IN (SELECT value FROM json_each(?)) ORDER BY id"),
    q("SELECT * FROM links WHERE to_ref IN (SELECT value FROM json_each(?)) ORDER BY id"),
    q("SELECT * FROM generations WHERE co_ref IN (SELECT value FROM json_each(?)) ORDER BY id"),
    q("SELECT * FROM entity_dc_values WHERE entity_ref IN (SELECT value FROM json_each(?)) ORDER BY rowid"),
  ]);
}

async function search(who: Fetcher, q: string): Promise<string[]> {
  const res = await who(`/api/content/search?q=${encodeURIComponent(q)}&max=100`);
  const body = (await res.json()) as { value: { objectIds: string[] } };
  expect(res.status).toBe(200);
  return body.value.objectIds;
}

async function byIdentifier(who: Fetcher, value: string): Promise<string[]> {
  const reply = await getXml(who, `${E}/entities/by-identifier?type=code&value=${value}`);
  return arr(reply.root.Entities?.Entity).map((e) => e["@ref"]);
}

async function linksOf(who: Fetcher, ref: string): Promise<string[]> {
  const reply = await getXml(who, `${E}/information-objects/${ref}/links`);
  return arr(reply.root.Links?.Link).map((l) => l["@ref"]);
}

/** Submits a deletion and has the manager approve it; returns the action id once COMPLETED. */
async function deleteApproved(path: string, ref: string): Promise<string> {
  const id = await accepted(await sendXml(manager, "DELETE", `${E}/${path}/${ref}`, submission("tidy up")));
  expect((await progress(manager, id)).status).toBe("PENDING");
  await accepted(await sendXml(manager, "PUT", `${E}/actions/deletions/${id}`, approval("true")));
  expect((await settled(manager, id)).status).toBe("COMPLETED");
  return id;
}

const estateDeletion = { id: "", rowsBefore: "", attachmentsBefore: "" };

describe("deletion: submission", () => {
  it("refuses users without Delete (curator, reader) with 403 and changes nothing", async () => {
    const curatorSays = await refusedUnchanged(
      () => sendXml(curator, "DELETE", `${E}/information-objects/${f.map}`, submission("no")),
      403,
    );
    expect(curatorSays).toMatch(/Delete/);
    await refusedUnchanged(
      () => sendXml(reader, "DELETE", `${E}/structural-objects/${f.estate}`, submission("no")),
      403,
    );
  });

  it("refuses a missing or malformed body with 400 and an example", async () => {
    const del = (body: string) => () =>
      sendXml(manager, "DELETE", `${E}/structural-objects/${f.estate}`, body);
    expect(await refusedUnchanged(del(""), 400)).toMatch(/<DeletionAction.*<Submission>/);
    expect(await refusedUnchanged(del("<DeletionAction><Submission>"), 400)).toMatch(/well-formed/);
    expect(await refusedUnchanged(del(`<Deletion xmlns="${NS}"/>`), 400)).toMatch(
      /root element must be DeletionAction/,
    );
    expect(await refusedUnchanged(del(`<DeletionAction xmlns="${NS}"/>`), 400)).toMatch(/Submission/);
    await refusedUnchanged(
      () => sendXml(manager, "DELETE", `${E}/content-objects/${f.mapCo}`, submission("x")),
      409,
    );
  });

  it("refuses with 409 while an asset in the subtree is under retention, naming asset, policy and expiry", async () => {
    const message = await refusedUnchanged(
      () => sendXml(manager, "DELETE", `${E}/structural-objects/${f.retained}`, submission("too early")),
      409,
    );
    expect(message).toContain(f.retainedAsset);
    expect(message).toContain("Lease 1901");
    expect(message).toContain("Leases: 10 years");
    expect(message).toMatch(new RegExp(`until ${new Date().getUTCFullYear() + 10}-`));
  });
});

describe("deletion: approval, and the entities vanish", () => {
  it("waits PENDING for a manager; a curator may not approve; a second submission is refused", async () => {
    expect(await search(reader, "Estate")).toContain(`sdb:IO|${f.map}`);
    estateDeletion.rowsBefore = estateRows();
    estateDeletion.attachmentsBefore = estateAttachments();
    const id = await accepted(
      await sendXml(manager, "DELETE", `${E}/structural-objects/${f.estate}`, submission("duplicates")),
    );
    estateDeletion.id = id;
    const pending = await progress(manager, id);
    expect(pending).toMatchObject({ status: "PENDING", total: 6, done: 0 });
    expect(estateRows()).toBe(estateDeletion.rowsBefore);

    await refusedUnchanged(
      () => sendXml(manager, "DELETE", `${E}/structural-objects/${f.estate}`, submission("again")),
      409,
    );
    expect(
      await refusedUnchanged(
        () => sendXml(curator, "PUT", `${E}/actions/deletions/${id}`, approval("true")),
        403,
      ),
    ).toMatch(/Only managers/);
    await refusedUnchanged(
      () => sendXml(manager, "PUT", `${E}/actions/deletions/${id}`, approval("yes")),
      400,
    );
    await refusedUnchanged(
      () =>
        sendXml(
          manager,
          "PUT",
          `${E}/actions/deletions/00000000-0000-4000-8000-000000000000`,
          approval("true"),
        ),
      404,
    );
  });

  it("on approval moves the folder and its whole subtree to the recycle bin, with one Delete event", async () => {
    const { id } = estateDeletion;
    await accepted(await sendXml(manager, "PUT", `${E}/actions/deletions/${id}`, approval("true", "agreed")));
    const done = await settled(manager, id);
    expect(done).toMatchObject({ status: "COMPLETED", total: 6, done: 6 });
    const rows = db
      .prepare("SELECT ref, deleted, deletion_id, deleted_at FROM entities WHERE deletion_id = ?")
      .all(id) as { deleted: number; deleted_at: string }[];
    expect(rows).toHaveLength(6);
    expect(rows.every((r) => r.deleted === 1 && r.deleted_at)).toBe(true);
    const events = eventsOn(db, f.estate, "Delete");
    expect(events).toHaveLength(1);
    expect(events[0]?.username).toBe("manager");
    expect(eventActions(db, events[0]?.ref as string)).toHaveLength(6);
    // Approving again is refused: it is no longer PENDING.
    await refusedUnchanged(
      () => sendXml(manager, "PUT", `${E}/actions/deletions/${id}`, approval("true")),
      409,
    );
  });

  it("deleted entities vanish from GET, children, search, by-identifier, links and updated-since", async () => {
    for (const [path, ref] of [
      ["structural-objects", f.estate],
      ["information-objects", f.map],
      ["content-objects", f.mapCo],
      ["information-objects", f.plan],
    ] as const) {
      expect((await manager(`${E}/${path}/${ref}`)).status).toBe(404);
    }
    expect((await manager(`${E}/structural-objects/${f.estate}/children`)).status).toBe(404);
    expect(await childrenOf(manager, null)).not.toContain(f.estate);
    const found = await search(manager, "Estate");
    expect(found.filter((id) => [f.estate, f.map, f.sub, f.plan].some((r) => id.endsWith(r)))).toEqual([]);
    expect(await byIdentifier(manager, "EST-1")).toEqual([]);
    expect(await linksOf(manager, f.keeper)).toEqual([]);
    expect(await updatedSince(manager, "2000-01-01")).not.toContain(f.map);
    expect((await manager(`/api/content/object-details?id=sdb:IO|${f.map}`)).status).toBe(404);
  });

  it("lists the deletion in the recycle bin and among the deletion actions", async () => {
    const bin = await getXml(manager, `${E}/recycle-bin`);
    const items = arr(bin.root.DeletedEntities.DeletedEntity);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      "@ref": f.estate,
      DeletionAction: estateDeletion.id,
      Entities: "6",
      DeletedBy: "manager",
    });
    expect(bin.root.Paging.TotalResults).toBe("1");
    // The bin shows each caller what they may read (the estate is "open").
    expect(arr((await getXml(reader, `${E}/recycle-bin`)).root.DeletedEntities?.DeletedEntity)).toHaveLength(
      1,
    );
    const listed = await getXml(manager, `${E}/actions/deletions`);
    expect(arr(listed.root.Actions.Action).map((a) => a.Id)).toContain(estateDeletion.id);
  });
});

describe("deletion: rejection and the pyPreservica flow", () => {
  it("a rejected deletion (Approved false) is CANCELLED and changes no entity", async () => {
    const rows = () => JSON.stringify(db.prepare("SELECT * FROM entities WHERE ref = ?").get(f.spare));
    const before = rows();
    const id = await accepted(
      await sendXml(manager, "DELETE", `${E}/information-objects/${f.spare}`, submission("maybe")),
    );
    await accepted(
      await sendXml(manager, "PUT", `${E}/actions/deletions/${id}`, approval("false", "keep it")),
    );
    const p = await progress(manager, id);
    expect(p.status).toBe("CANCELLED");
    expect(p.message).toMatch(/Rejected by manager: keep it/);
    expect(rows()).toBe(before);
    expect((await manager(`${E}/information-objects/${f.spare}`)).status).toBe(200);
  });

  it("follows pyPreservica's loop: poll until PENDING, approve with a manager token, then COMPLETED", async () => {
    const id = await accepted(
      await sendXml(manager, "DELETE", `${E}/information-objects/${f.spare}`, submission("op")),
    );
    let approvedOnce = false;
    for (let i = 0; i < 200; i++) {
      const { status } = await progress(reader, id);
      if (status === "COMPLETED") break;
      if (status === "PENDING" && !approvedOnce) {
        await accepted(
          await sendXml(manager, "PUT", `${E}/actions/deletions/${id}`, approval("true", "sup")),
        );
        approvedOnce = true;
      }
      expect(["PENDING", "ACTIVE"]).toContain(status);
      await new Promise((r) => setTimeout(r, 10));
    }
    expect((await progress(reader, id)).status).toBe("COMPLETED");
    expect((await manager(`${E}/information-objects/${f.spare}`)).status).toBe(404);
  });
});

describe("deletion: checks again before it runs", () => {
  it("refuses the approval (409, still PENDING) when a retention was assigned meanwhile, and the run fails if it slips through", async () => {
    const id = await accepted(
      await sendXml(manager, "DELETE", `${E}/information-objects/${f.late}`, submission("late")),
    );
    db.prepare(
      "INSERT INTO retention_assignments (api_id, entity_ref, policy_ref, start_date, created) VALUES ('ra-late', ?, 'policy-1', ?, ?)",
    ).run(f.late, new Date().toISOString(), new Date().toISOString());
    const message = await refusedUnchanged(
      () => sendXml(manager, "PUT", `${E}/actions/deletions/${id}`, approval("true")),
      409,
    );
    expect(message).toMatch(/Leases: 10 years.*stays PENDING/);
    expect((await progress(manager, id)).status).toBe("PENDING");
    // An approval recorded before the assignment (as after a restart): the run itself refuses.
    db.prepare("UPDATE actions SET status = 'ACTIVE' WHERE id = ?").run(id);
    repo.svc.actions.submit(id);
    const failed = await settled(manager, id);
    expect(failed.status).toBe("FAILED");
    expect(failed.message).toMatch(/Late lease.*Leases: 10 years.*Nothing was deleted/);
    expect((await manager(`${E}/information-objects/${f.late}`)).status).toBe(200);
  });
});

describe("recovery", () => {
  it("refuses a curator (no Delete), unknown and live entities, and a bad body, changing nothing", async () => {
    const post = (who: Fetcher, body: string) => () => sendXml(who, "POST", `${E}/actions/recoveries`, body);
    await refusedUnchanged(post(curator, recovery(`<Deletion>${estateDeletion.id}</Deletion>`)), 403);
    await refusedUnchanged(post(manager, recovery(`<Entity>${f.keeper}</Entity>`)), 409);
    await refusedUnchanged(
      post(manager, recovery("<Entity>00000000-0000-4000-8000-000000000000</Entity>")),
      404,
    );
    await refusedUnchanged(
      post(manager, recovery("<Deletion>00000000-0000-4000-8000-000000000000</Deletion>")),
      404,
    );
    expect(await refusedUnchanged(post(manager, recovery("")), 400)).toMatch(/names no Deletion/);
    await refusedUnchanged(post(manager, "<Recover/>"), 400);
  });

  it("brings the whole deletion back exactly (named by one deleted descendant), with a Recover event", async () => {
    const before = await updatedSince(manager, SINCE);
    const id = await accepted(
      await sendXml(manager, "POST", `${E}/actions/recoveries`, recovery(`<Entity>${f.plan}</Entity>`)),
    );
    expect(await settled(manager, id)).toMatchObject({ status: "COMPLETED", total: 6, done: 6 });
    expect(estateRows()).toBe(estateDeletion.rowsBefore);
    expect(estateAttachments()).toBe(estateDeletion.attachmentsBefore);
    expect((await manager(`${E}/information-objects/${f.map}`)).status).toBe(200);
    expect(await childrenOf(manager, null)).toContain(f.estate);
    expect(await search(reader, "Estate")).toContain(`sdb:IO|${f.map}`);
    expect(await byIdentifier(reader, "EST-1")).toEqual([f.map]);
    expect(await linksOf(manager, f.keeper)).toEqual([f.map]);
    const recoveredEvents = eventsOn(db, f.map, "Recover");
    expect(recoveredEvents).toHaveLength(1);
    expect(eventActions(db, recoveredEvents[0]?.ref as string)).toHaveLength(6);
    const after = await updatedSince(manager, SINCE);
    expect(after.filter((r) => !before.includes(r)).sort()).toEqual(
      [f.estate, f.map, f.mapCo, f.sub, f.plan, f.planCo].sort(),
    );
    // The bin no longer holds it; the deletion action says what became of it.
    expect(
      arr((await getXml(manager, `${E}/recycle-bin`)).root.DeletedEntities?.DeletedEntity).map(
        (d) => d["@ref"],
      ),
    ).not.toContain(f.estate);
    expect((await progress(manager, estateDeletion.id)).message).toMatch(/Recovered by action/);
    await refusedUnchanged(
      () =>
        sendXml(
          manager,
          "POST",
          `${E}/actions/recoveries`,
          recovery(`<Deletion>${estateDeletion.id}</Deletion>`),
        ),
      409,
    );
  });

  it("refuses to recover an entity whose parent folder is itself in the recycle bin", async () => {
    const subDeletion = await deleteApproved("structural-objects", f.sub);
    const estateAgain = await deleteApproved("structural-objects", f.estate);
    // The second deletion took only what was still live.
    expect(db.prepare("SELECT count(*) AS n FROM entities WHERE deletion_id = ?").get(estateAgain)).toEqual({
      n: 3,
    });
    const message = await refusedUnchanged(
      () =>
        sendXml(manager, "POST", `${E}/actions/recoveries`, recovery(`<Deletion>${subDeletion}</Deletion>`)),
      409,
    );
    expect(message).toMatch(new RegExp(`parent folder ${f.estate}.*recover its parent first`));
    estateDeletion.id = estateAgain;
  });
});

describe("final deletion", () => {
  it("is for managers only, and only for what is in the recycle bin", async () => {
    const post =
      (who: Fetcher, body: string, slash = "") =>
      () =>
        sendXml(who, "POST", `${E}/actions/final-deletions${slash}`, body);
    expect(
      await refusedUnchanged(post(curator, finalDeletion(`<Deletion>${estateDeletion.id}</Deletion>`)), 403),
    ).toMatch(/Only managers/);
    await refusedUnchanged(post(manager, finalDeletion(`<Entity>${f.keeper}</Entity>`), "/"), 409);
    await refusedUnchanged(post(manager, recovery(`<Deletion>${estateDeletion.id}</Deletion>`)), 400);
  });

  it("removes the entities, everything hanging off them, and the files nothing else uses", async () => {
    const refs = [f.estate, f.map, f.mapCo, f.sub, f.plan, f.planCo];
    const ids = (
      db
        .prepare("SELECT id FROM entities WHERE ref IN (SELECT value FROM json_each(?))")
        .all(JSON.stringify(refs)) as {
        id: number;
      }[]
    ).map((r) => r.id);
    expect(repo.svc.content.has(blob.shared)).toBe(true);
    expect(repo.svc.content.has(blob.own)).toBe(true);
    const deleteEventsBefore = db.prepare("SELECT count(*) AS n FROM events WHERE type = 'Delete'").get();

    const id = await accepted(
      await sendXml(
        manager,
        "POST",
        `${E}/actions/final-deletions/`,
        finalDeletion(`<Entity>${f.estate}</Entity>`),
      ),
    );
    const done = await settled(manager, id);
    // The estate deletion held 3; the sub-folder's earlier deletion below it (3 more) goes with it.
    expect(done).toMatchObject({ status: "COMPLETED", total: 6, done: 6 });
    expect(done.message).toMatch(/1 file from disk \(1 file is still used/);

    const list = JSON.stringify(refs);
    const count = (sql: string, a: string = list) => (db.prepare(sql).get({ a }) as { n: number }).n;
    const IN = "IN (SELECT value FROM json_each(@a))";
    expect(count(`SELECT count(*) AS n FROM entities WHERE ref ${IN}`)).toBe(0);
    expect(count(`SELECT count(*) AS n FROM identifiers WHERE entity_ref ${IN}`)).toBe(0);
    expect(count(`SELECT count(*) AS n FROM metadata_fragments WHERE entity_ref ${IN}`)).toBe(0);
    expect(count(`SELECT count(*) AS n FROM links WHERE to_ref ${IN} OR from_ref ${IN}`)).toBe(0);
    expect(count(`SELECT count(*) AS n FROM representations WHERE io_ref ${IN}`)).toBe(0);
    expect(count(`SELECT count(*) AS n FROM representation_objects WHERE co_ref ${IN}`)).toBe(0);
    expect(count(`SELECT count(*) AS n FROM generations WHERE co_ref ${IN}`)).toBe(0);
    expect(count(`SELECT count(*) AS n FROM entity_dc_values WHERE entity_ref ${IN}`)).toBe(0);
    expect(count(`SELECT count(*) AS n FROM entity_fts WHERE rowid ${IN}`, JSON.stringify(ids))).toBe(0);
    expect(count("SELECT count(*) AS n FROM bitstreams WHERE content_sha256 = @a", blob.own)).toBe(0);
    expect(
      count(
        "SELECT count(*) AS n FROM fixities WHERE bitstream_id NOT IN (SELECT id FROM bitstreams) AND @a = ''",
        "",
      ),
    ).toBe(0);
    // The file only the plan had is gone; the one the keeper shares stays and still downloads.
    expect(repo.svc.content.has(blob.own)).toBe(false);
    expect(repo.svc.content.has(blob.shared)).toBe(true);
    const download = await manager(`${E}/content-objects/${f.keeperCo}/generations/1/bitstreams/1/content`);
    expect(await download.text()).toBe("the same bytes in two assets");

    // History stays, plus a FinalDelete event.
    expect(db.prepare("SELECT count(*) AS n FROM events WHERE type = 'Delete'").get()).toEqual(
      deleteEventsBefore,
    );
    const finals = db.prepare("SELECT ref FROM events WHERE type = 'FinalDelete'").all() as { ref: string }[];
    expect(finals).toHaveLength(1);
    expect(eventActions(db, finals[0]?.ref as string)).toHaveLength(6);
    expect((await progress(manager, estateDeletion.id)).message).toMatch(/Finally deleted by action/);
    expect(
      arr((await getXml(manager, `${E}/recycle-bin`)).root.DeletedEntities?.DeletedEntity).map(
        (d) => d["@ref"],
      ),
    ).toEqual([f.spare]);
    await refusedUnchanged(
      () =>
        sendXml(
          manager,
          "POST",
          `${E}/actions/recoveries`,
          recovery(`<Deletion>${estateDeletion.id}</Deletion>`),
        ),
      409,
    );
    await refusedUnchanged(
      () =>
        sendXml(manager, "POST", `${E}/actions/final-deletions`, finalDeletion(`<Entity>${f.map}</Entity>`)),
      404,
    );
    expect(text((await getXml(manager, `${E}/actions/final-deletions/${id}`)).root.Action.Status)).toBe(
      "COMPLETED",
    );
  });
});
