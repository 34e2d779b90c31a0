import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../../../repository/seed.js";
import type { RunningRepository } from "../../../repository/server.js";
import type { Db } from "../../../repository/store/db.js";
import { startTestRepository } from "../../helpers/repository.js";
import { arr, parseXml, text } from "../entity-xml.js";
import { E, progress } from "../writes/structure-helpers.js";
import { signIn, type Users } from "../writes/write-helpers.js";
import {
  ALL_TAGS,
  activeFiles,
  ancestry,
  asCsvRecords,
  countsFile,
  type Ent,
  entityMap,
  R,
  type ResultJson,
  resultCsv,
  runToResult,
  settle,
  startRun,
  value,
} from "./report-helpers.js";
import { type Changed, changeTheDemo } from "./report-setup.js";

/**
 * Every report over real HTTP, as a manager (who reads every tag), on the demo collection after a
 * content replacement, a deletion and some retention assignments. Each report's figures are compared
 * with the same figures computed independently from the store's tables (SQL for the rows, JavaScript
 * for the grouping), and each CSV result with its JSON result. The runs are actions: the Entity API's
 * progress and listings show them too.
 */

let repo: RunningRepository;
let db: Db;
let u: Users;
let changed: Changed;
const seen: { token: string; result: ResultJson }[] = [];

beforeAll(async () => {
  repo = await startTestRepository({ seed: "demo" });
  db = repo.svc.db;
  u = await signIn(repo);
  changed = await changeTheDemo(repo, u);
});
afterAll(async () => {
  await repo?.close();
});

/** Runs a report as the manager, keeping the token so the CSV can be compared later. */
async function managerRun(report: string, parameters: Record<string, string> = {}): Promise<ResultJson> {
  const result = await runToResult(u.manager, report, parameters);
  expect(result.runBy).toBe("manager");
  expect(result.securityTags).toEqual(ALL_TAGS);
  expect(result.parameters).toEqual(parameters.folder ? { folder: parameters.folder } : result.parameters);
  seen.push({ token: result.progressToken, result });
  return result;
}

const byKey = <T>(rows: T[], key: (r: T) => string) => [...rows].sort((a, b) => (key(a) < key(b) ? -1 : 1));

describe("assets-by-format", () => {
  it("counts assets, files and bytes per format over active generations of live assets", async () => {
    const result = await managerRun("assets-by-format");
    const ents = entityMap(db);
    const groups = new Map<
      string,
      { assets: Set<string>; files: number; bytes: number; puid: string; name: string }
    >();
    for (const f of activeFiles(db)) {
      if (!countsFile(ents, f.coRef, ALL_TAGS)) continue;
      const key = `${f.puid}|${f.name}`;
      const g = groups.get(key) ?? { assets: new Set(), files: 0, bytes: 0, puid: f.puid, name: f.name };
      g.assets.add(ents.get(f.coRef)?.parent_ref as string);
      g.files++;
      g.bytes += f.size;
      groups.set(key, g);
    }
    const expected = [...groups.values()].map((g) => ({
      formatPuid: g.puid,
      formatName: g.name,
      assets: g.assets.size,
      files: g.files,
      bytes: g.bytes,
    }));
    const key = (r: Record<string, unknown>) => `${r.formatPuid}|${r.formatName}`;
    expect(byKey(result.rows, key)).toEqual(byKey(expected, key));
    // Largest first.
    const bytes = result.rows.map((r) => r.bytes as number);
    expect(bytes).toEqual([...bytes].sort((a, b) => b - a));
    // The replaced content's new text generation counts; the deleted asset's files do not.
    const files = result.rows.reduce((n, r) => n + (r.files as number), 0);
    const deletedFiles = db
      .prepare("SELECT count(*) AS n FROM entities WHERE parent_ref = ? AND type = 'CO'")
      .get(changed.deletedAsset) as { n: number };
    expect(deletedFiles.n).toBeGreaterThan(0);
    expect(files).toBe(DEMO.counts.bitstreams - deletedFiles.n);
    expect(
      result.rows.find((r) => r.formatName === "Plain Text File" || r.formatPuid === "x-fmt/111"),
    ).toBeDefined();
  });
});

describe("storage-by-folder", () => {
  /** What lies beneath `folder` for the manager: live entities whose ancestry passes through it. */
  function beneath(ents: Map<string, Ent>, folder: string) {
    let folders = 0;
    let assets = 0;
    for (const e of ents.values()) {
      if (e.deleted || e.ref === folder || !ancestry(ents, e.ref).includes(folder)) continue;
      if (e.type === "SO") folders++;
      if (e.type === "IO") assets++;
    }
    let files = 0;
    let bytes = 0;
    for (const f of activeFiles(db)) {
      if (countsFile(ents, f.coRef, ALL_TAGS) && ancestry(ents, f.coRef).includes(folder)) {
        files++;
        bytes += f.size;
      }
    }
    return { folders, assets, files, bytes };
  }

  it("reports each top-level folder with everything beneath it", async () => {
    const result = await managerRun("storage-by-folder");
    const ents = entityMap(db);
    expect(result.rows.map((r) => r.folderRef)).toEqual(DEMO.rootFolders.map((f) => f.ref));
    for (const row of result.rows) {
      const root = ents.get(row.folderRef as string) as Ent;
      expect(row, root.title).toEqual({
        folderRef: root.ref,
        folderTitle: root.title,
        securityTag: root.security_tag,
        ...beneath(ents, root.ref),
      });
    }
    // Everything live is under some fonds: the bytes add up to all the files counted.
    const all = activeFiles(db).filter((f) => countsFile(ents, f.coRef, ALL_TAGS));
    expect(result.rows.reduce((n, r) => n + (r.bytes as number), 0)).toBe(
      all.reduce((n, f) => n + f.size, 0),
    );
  });

  it("reports the sub-folders of a folder given, and the assets lying directly in it", async () => {
    const ents = entityMap(db);
    const council = DEMO.rootFolders[0]?.ref as string;
    const result = await managerRun("storage-by-folder", { folder: council });
    const children = [...ents.values()].filter(
      (e) => e.parent_ref === council && e.type === "SO" && !e.deleted,
    );
    expect(result.rows.map((r) => r.folderRef)).toEqual(children.map((c) => c.ref));
    for (const row of result.rows) expect(row).toMatchObject(beneath(ents, row.folderRef as string));

    // A folder holding assets directly gets a row for them.
    const series = DEMO.refs.councilMinutesSeries;
    const inSeries = await managerRun("storage-by-folder", { folder: series });
    const direct = [...ents.values()].filter((e) => e.parent_ref === series && e.type === "IO" && !e.deleted);
    const last = inSeries.rows[inSeries.rows.length - 1];
    if (direct.length > 0) {
      expect(last?.folderTitle).toMatch(/^\(assets directly in /);
      expect(last?.assets).toBe(direct.length);
    } else {
      expect(inSeries.rows.every((r) => !String(r.folderTitle).startsWith("("))).toBe(true);
    }
  });
});

describe("fixity-inventory", () => {
  it("lists every active file beneath a folder with its path, size, MD5 and SHA-256", async () => {
    const ents = entityMap(db);
    const maps = DEMO.rootFolders.find((f) => f.title === "Maps and Plans")?.ref as string;
    const result = await managerRun("fixity-inventory", { folder: maps });
    const expected = activeFiles(db)
      .filter((f) => countsFile(ents, f.coRef, ALL_TAGS) && ancestry(ents, f.coRef).includes(maps))
      .map((f) => {
        const asset = ents.get(ents.get(f.coRef)?.parent_ref as string) as Ent;
        const folders = ancestry(ents, asset.ref).slice(1).reverse();
        return {
          path: folders.map((r) => ents.get(r)?.title).join("/"),
          assetRef: asset.ref,
          assetTitle: asset.title,
          contentObjectRef: f.coRef,
          generation: f.generation,
          filename: f.filename,
          size: f.size,
          md5: f.md5,
          sha256: f.sha256,
        };
      });
    const key = (r: Record<string, unknown>) => `${r.contentObjectRef}|${r.generation}|${r.filename}`;
    expect(result.rows.length).toBeGreaterThan(10);
    expect(byKey(result.rows, key)).toEqual(byKey(expected, key));
    expect(result.rows.every((r) => String(r.path).startsWith("Maps and Plans/"))).toBe(true);

    // The recorded fixities are those of the bytes the service serves.
    for (const row of result.rows.slice(0, 3)) {
      const res = await u.manager(
        `/api/content/download?id=${encodeURIComponent(`sdb:CO|${row.contentObjectRef}`)}`,
      );
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(res.status).toBe(200);
      expect(bytes.length).toBe(row.size);
      expect(createHash("md5").update(bytes).digest("hex")).toBe(row.md5);
      expect(createHash("sha256").update(bytes).digest("hex")).toBe(row.sha256);
    }
  });

  it("covers the whole store without a folder: the replaced file's new generation, not the deleted asset", async () => {
    const ents = entityMap(db);
    const result = await managerRun("fixity-inventory");
    const expected = activeFiles(db).filter((f) => countsFile(ents, f.coRef, ALL_TAGS));
    expect(result.rows.length).toBe(expected.length);
    const replaced = result.rows.filter((r) => r.contentObjectRef === changed.replacedCo);
    expect(replaced.map((r) => [r.generation, r.filename])).toEqual([[2, "minutes-1851-rescan.txt"]]);
    expect(result.rows.some((r) => r.assetRef === changed.deletedAsset)).toBe(false);
    // Depth first: every folder's files come together.
    const paths = result.rows.map((r) => r.path as string);
    const firstSeen = new Map<string, number>();
    paths.forEach((p, i) => {
      if (!firstSeen.has(p)) firstSeen.set(p, i);
    });
    paths.forEach((p, i) => {
      expect(paths.slice(firstSeen.get(p), i + 1).every((q) => q === p)).toBe(true);
    });
  });
});

describe("ingest-history", () => {
  function expectedDays(from: string, to: string) {
    const ents = entityMap(db);
    const rows = db
      .prepare(
        `SELECT ev.id, ev.date, ea.entity_ref FROM events ev JOIN event_actions ea ON ea.event_id = ev.id
          WHERE ev.type = 'Ingest' AND ev.date >= ? AND ev.date <= ?`,
      )
      .all(from, to) as { id: number; date: string; entity_ref: string }[];
    const originalBytes = new Map<string, number>();
    for (const f of db
      .prepare(
        "SELECT g.co_ref, sum(b.size) AS bytes FROM generations g JOIN bitstreams b ON b.generation_id = g.id WHERE g.original = 1 GROUP BY g.co_ref",
      )
      .all() as { co_ref: string; bytes: number }[]) {
      originalBytes.set(f.co_ref, f.bytes);
    }
    const days = new Map<
      string,
      { events: Set<number>; folders: number; assets: number; contentObjects: number; bytes: number }
    >();
    for (const r of rows) {
      const e = ents.get(r.entity_ref);
      if (!e) continue; // every tag is readable here; only entities gone from the store drop out
      const day = r.date.slice(0, 10);
      const d = days.get(day) ?? { events: new Set(), folders: 0, assets: 0, contentObjects: 0, bytes: 0 };
      d.events.add(r.id);
      if (e.type === "SO") d.folders++;
      if (e.type === "IO") d.assets++;
      if (e.type === "CO") {
        d.contentObjects++;
        d.bytes += originalBytes.get(e.ref) ?? 0;
      }
      days.set(day, d);
    }
    return [...days.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([day, d]) => ({
        day,
        ingests: d.events.size,
        folders: d.folders,
        assets: d.assets,
        contentObjects: d.contentObjects,
        bytes: d.bytes,
      }));
  }

  it("counts the ingests day by day, in a window given by dates", async () => {
    const result = await managerRun("ingest-history", { from: "2023-06-01", to: "2024-12-31" });
    expect(result.parameters).toEqual({ from: "2023-06-01T00:00:00.000Z", to: "2024-12-31T23:59:59.999Z" });
    const expected = expectedDays("2023-06-01T00:00:00.000Z", "2024-12-31T23:59:59.999Z");
    expect(expected.length).toBeGreaterThan(3);
    expect(result.rows).toEqual(expected);
  });

  it("covers the whole history without a window, the deleted asset included", async () => {
    const result = await managerRun("ingest-history");
    const expected = expectedDays("", "\uffff");
    expect(result.rows).toEqual(expected);
    const created = result.rows.reduce(
      (n, r) => n + (r.folders as number) + (r.assets as number) + (r.contentObjects as number),
      0,
    );
    expect(created).toBe(DEMO.counts.total);
  });
});

describe("retention-summary", () => {
  it("counts assets per policy, expired and running, with the next expiry, and the assets no policy holds", async () => {
    const result = await managerRun("retention-summary");
    const now = result.started;
    const expected = db
      .prepare(
        `WITH x AS (
           SELECT a.policy_ref, a.entity_ref,
             CASE WHEN p.period IS NULL THEN NULL
                  ELSE strftime('%Y-%m-%dT%H:%M:%fZ', coalesce(a.start_date, a.created),
                         '+' || p.period || ' ' || lower(p.period_unit)) END AS expires
             FROM retention_assignments a JOIN retention_policies p ON p.ref = a.policy_ref
             JOIN entities e ON e.ref = a.entity_ref AND e.deleted = 0)
         SELECT p.ref AS policyRef, p.name AS policyName,
                CASE WHEN p.period IS NULL THEN 'indefinite' ELSE p.period || ' ' || p.period_unit END AS period,
                count(DISTINCT x.entity_ref) AS assets, count(x.entity_ref) AS assignments,
                coalesce(sum(x.expires IS NOT NULL AND x.expires <= @now), 0) AS expired,
                coalesce(sum(x.entity_ref IS NOT NULL AND (x.expires IS NULL OR x.expires > @now)), 0) AS running,
                min(CASE WHEN x.expires > @now THEN x.expires END) AS nextExpiry
           FROM retention_policies p LEFT JOIN x ON x.policy_ref = p.ref
          GROUP BY p.ref ORDER BY p.name COLLATE NOCASE, p.ref`,
      )
      .all({ now }) as Record<string, unknown>[];
    const unheld = db
      .prepare(
        `SELECT count(*) AS n FROM entities e WHERE e.type = 'IO' AND e.deleted = 0
           AND e.ref NOT IN (SELECT entity_ref FROM retention_assignments)`,
      )
      .get() as { n: number };
    expect(result.rows).toEqual([
      ...expected,
      {
        policyRef: "",
        policyName: "(no retention policy)",
        period: "",
        assets: unheld.n,
        assignments: 0,
        expired: 0,
        running: 0,
        nextExpiry: null,
      },
    ]);
    const row = (ref: string) => result.rows.find((r) => r.policyRef === ref);
    expect(row(changed.policies.expired)).toMatchObject({
      assets: 2,
      expired: 2,
      running: 0,
      nextExpiry: null,
    });
    expect(row(changed.policies.running)).toMatchObject({ assets: 3, expired: 0, running: 3 });
    expect(String(row(changed.policies.running)?.nextExpiry)).toMatch(/^21\d\d-/);
    expect(row(changed.policies.forever)).toMatchObject({ period: "indefinite", assets: 2, running: 2 });
  });
});

describe("changes-by-user", () => {
  function expectedGroups(from: string, to: string, user: string | null) {
    const ents = entityMap(db);
    const rows = db
      .prepare(
        `SELECT ev.id, ev.username, ev.type, ev.date, ea.command_type, ea.entity_ref
           FROM events ev JOIN event_actions ea ON ea.event_id = ev.id WHERE ev.date >= ? AND ev.date <= ?`,
      )
      .all(from, to) as {
      id: number;
      username: string;
      type: string;
      date: string;
      command_type: string;
      entity_ref: string;
    }[];
    const groups = new Map<string, { events: Set<number>; actions: number; first: string; last: string }>();
    for (const r of rows) {
      if (!ents.has(r.entity_ref) || (user && r.username !== user)) continue;
      const key = `${r.username}\u0000${r.type}\u0000${r.command_type}`;
      const g = groups.get(key) ?? { events: new Set(), actions: 0, first: r.date, last: r.date };
      g.events.add(r.id);
      g.actions++;
      if (r.date < g.first) g.first = r.date;
      if (r.date > g.last) g.last = r.date;
      groups.set(key, g);
    }
    return [...groups.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([key, g]) => {
        const [username, eventType, commandType] = key.split("\u0000");
        return {
          username,
          eventType,
          commandType,
          events: g.events.size,
          actions: g.actions,
          first: g.first,
          last: g.last,
        };
      });
  }

  it("groups event actions by user, event type and command in a window", async () => {
    const result = await managerRun("changes-by-user", { from: "2025-01-01" });
    const expected = expectedGroups("2025-01-01T00:00:00.000Z", "\uffff", null);
    expect(result.rows).toEqual(expected);
    // Today's changes are there: the replacement, the deletion, the assignments.
    const types = result.rows.map((r) => r.eventType);
    expect(types).toEqual(expect.arrayContaining(["ReplaceContent", "Delete", "Retention", "Modified"]));
  });

  it("narrows to one user", async () => {
    const result = await managerRun("changes-by-user", { user: "curator", to: "2024-12-31" });
    expect(result.rows).toEqual(expectedGroups("", "2024-12-31T23:59:59.999Z", "curator"));
    expect(result.rows.length).toBeGreaterThan(0);
    expect(result.rows.every((r) => r.username === "curator")).toBe(true);
  });
});

describe("results and runs", () => {
  it("gives the same rows as CSV as as JSON, for every run above", async () => {
    expect(seen.length).toBeGreaterThanOrEqual(10);
    for (const { token, result } of seen) {
      const csv = await resultCsv(u.manager, token);
      expect(csv.header).toEqual(result.columns.map((c) => c.name));
      expect(csv.records, result.report).toEqual(asCsvRecords(result));
    }
  });

  it("runs are actions: the Entity API shows their progress and lists them under reports", async () => {
    const token = await startRun(u.manager, "assets-by-format");
    const run = await settle(u.manager, token);
    expect(run.status).toBe("COMPLETED");
    const p = await progress(u.manager, token);
    expect(p.status).toBe("COMPLETED");
    const listing = await u.manager(`${E}/actions/reports`);
    const reply = parseXml(await listing.text());
    expect(listing.status).toBe(200);
    const ids = arr(reply.root.Actions?.Action).map((a) => text(a.Id));
    expect(ids).toContain(token);
    expect(ids).toEqual(expect.arrayContaining(seen.map((s) => s.token)));
    // And the Report API's own listing, newest first.
    const runs = await value<{ runs: { progressToken: string; rowCount: number }[] }>(
      await u.manager(`${R}/actions/reports?report=assets-by-format`),
    );
    expect(runs.runs[0]?.progressToken).toBe(token);
    expect(runs.runs[0]?.rowCount).toBe(run.rowCount);
  });
});
