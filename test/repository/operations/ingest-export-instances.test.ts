import { afterAll, beforeAll, describe, expect, it } from "vitest";
import yazl from "yazl";
import type { RunningRepository } from "../../../repository/server.js";
import { insertEntity } from "../../../repository/store/entities/write.js";
import { startTestRepository } from "../../helpers/repository.js";
import { accepted, E, settled } from "../writes/structure-helpers.js";
import { type Fetcher, signIn, type Users } from "../writes/write-helpers.js";
import { instance, monitorValue, PM, text, WF, wfXml } from "./ops-helpers.js";

/**
 * Every ingest and export is a workflow instance and a process monitor: a plain zip and an OPEX
 * package uploaded to a folder show up as Ingest instances (the OPEX one with the monitor subcategory
 * OPEX), an export as an Access instance in the Export monitor category. The instance is also found by
 * its progress token, which is what an ingest's events record as their WorkflowInstanceId.
 */

const OPEX = "http://www.openpreservationexchange.org/opex/v1.2";
const LETTER = "Dear Sir, the schooner Kestrel arrived on the morning tide.\n";

async function zip(entries: { name: string; data: string }[]): Promise<Buffer> {
  const z = new yazl.ZipFile();
  for (const e of entries) z.addBuffer(Buffer.from(e.data), e.name);
  z.end();
  const parts: Buffer[] = [];
  for await (const chunk of z.outputStream) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

async function upload(who: Fetcher, folder: string, body: Buffer): Promise<string> {
  const token = await accepted(
    await who(`${E}/structural-objects/${folder}`, {
      method: "POST",
      body,
      headers: { "Content-Type": "application/octet-stream" },
    }),
  );
  await settled(who, token, 60_000);
  return token;
}

let repo: RunningRepository;
let u: Users;
let folder: string;
const t = {} as Record<"plain" | "opex" | "export", string>;

beforeAll(async () => {
  repo = await startTestRepository();
  u = await signIn(repo);
  folder = insertEntity(repo.svc.db, { type: "SO", title: "Deposits", securityTag: "open" }).ref;
  t.plain = await upload(u.curator, folder, await zip([{ name: "Plain/letter.txt", data: LETTER }]));
  const manifest = `<?xml version="1.0" encoding="UTF-8"?><opex:OPEXMetadata xmlns:opex="${OPEX}"><opex:Transfer><opex:Manifest><opex:Files><opex:File type="content" size="${LETTER.length}">letter.txt</opex:File></opex:Files></opex:Manifest></opex:Transfer><opex:Properties><opex:Title>Accession 17</opex:Title></opex:Properties></opex:OPEXMetadata>`;
  t.opex = await upload(
    u.curator,
    folder,
    await zip([
      { name: "ACC-17/ACC-17.opex", data: manifest },
      { name: "ACC-17/letter.txt", data: LETTER },
    ]),
  );
  const asset = (
    repo.svc.db
      .prepare("SELECT ref FROM entities WHERE type = 'IO' AND deleted = 0 ORDER BY id LIMIT 1")
      .get() as { ref: string }
  ).ref;
  const body = `<ExportAction xmlns="http://preservica.com/EntityAPI/v7.7"><IncludeContent>Content</IncludeContent><IncludeMetadata>Metadata</IncludeMetadata><IncludedGenerations>LatestActive</IncludedGenerations><IncludeParentHierarchy>false</IncludeParentHierarchy></ExportAction>`;
  t.export = await accepted(
    await u.curator(`${E}/information-objects/${asset}/exports`, {
      method: "POST",
      body,
      headers: { "Content-Type": "application/xml;charset=UTF-8" },
    }),
  );
  await settled(u.curator, t.export, 60_000);
});
afterAll(async () => {
  await repo?.close();
});

describe("ingests and exports as instances and monitors", () => {
  it("shows ingests as Ingest instances and an export as an Access instance, all Completed", async () => {
    for (const [token, type, context] of [
      [t.plain, "Ingest", "Ingest"],
      [t.opex, "Ingest", "Ingest"],
      [t.export, "Access", "Export"],
    ] as const) {
      const r = await wfXml(u.manager, `${WF}/instances/${token}`);
      expect(text(r.ArchivalProcessId)).toBe(token);
      expect(text(r.Type)).toBe(type);
      expect(text(r.WorkflowContextName)).toBe(context);
      expect(text(r.State)).toBe("Completed");
      expect(text(r.Creator)).toBe("curator");
      // The same instance by its number, as clients address it.
      expect(text((await instance(u.manager, text(r.Id))).ArchivalProcessId)).toBe(token);
    }
    const ingests = await wfXml(u.manager, `${WF}/instances?type=Ingest&state=Completed`);
    expect(text(ingests.TotalCount)).toBe("2");
    const exports = await wfXml(u.manager, `${WF}/instances?type=Access`);
    expect(text(exports.TotalCount)).toBe("1");
  });

  it("puts ingests in the Ingest category (OPEX ones with subcategory OPEX) and the export in Export", async () => {
    const all = (await monitorValue(u.manager, `${PM}/monitors`)).monitors as {
      mappedId: string;
      category: string;
      subcategory: string;
      status: string;
    }[];
    const by = (id: string) => all.find((m) => m.mappedId === id);
    expect(by(t.plain)).toMatchObject({ category: "Ingest", subcategory: "", status: "Succeeded" });
    expect(by(t.opex)).toMatchObject({ category: "Ingest", subcategory: "OPEX", status: "Succeeded" });
    expect(by(t.export)).toMatchObject({ category: "Export", subcategory: "", status: "Succeeded" });
    const opex = await monitorValue(u.manager, `${PM}/monitors?category=Ingest&subcategory=OPEX`);
    expect(opex.monitors.map((m: { mappedId: string }) => m.mappedId)).toEqual([t.opex]);
    const history = await monitorValue(u.manager, `${PM}/history?category=Ingest`);
    expect(history.totals).toMatchObject({ started: 2, succeeded: 2 });
  });

  it("finds the ingest's instance from the WorkflowInstanceId its events record", async () => {
    const ev = repo.svc.db
      .prepare(
        "SELECT workflow_instance_id AS id FROM events WHERE workflow_instance_id IS NOT NULL ORDER BY id LIMIT 1",
      )
      .get() as { id: string } | undefined;
    expect(ev, "the ingest recorded an event with its workflow instance").toBeDefined();
    const r = await wfXml(u.manager, `${WF}/instances/${ev?.id}`);
    expect([t.plain, t.opex]).toContain(text(r.ArchivalProcessId));
  });
});
