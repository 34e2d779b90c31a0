import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { insertEntity } from "../../repository/store/entities/write.js";
import { EntityWriteApi } from "../../src/api/entity/write.js";
import { EntityApi } from "../../src/api/entity.js";
import { ServiceError } from "../../src/api/errors.js";
import { applyFields, DUBLIN_CORE, OAI_DC_SCHEMA } from "../../src/api/metadata-build.js";
import { metadataFields } from "../../src/api/metadata-fields.js";
import { Session } from "../../src/session/session.js";
import { DEMO_USERS, startTestRepository } from "../helpers/repository.js";

const HOSTILE = `Minutes & <Agenda> "1851" ]]> </Title>`;

describe("Entity API writes against the repository service", () => {
  let repo: RunningRepository;
  let session: Session;
  let entity: EntityApi;
  let write: EntityWriteApi;
  let folder: string;

  const asset = (title = "Asset") =>
    insertEntity(repo.svc.db, { type: "IO", title, securityTag: "open", parentRef: folder }).ref;

  beforeAll(async () => {
    repo = await startTestRepository({ seed: "none" });
    session = new Session({ url: repo.url, ...DEMO_USERS.manager, keepAlive: false });
    entity = new EntityApi(session.http);
    write = new EntityWriteApi(session.http);
    folder = insertEntity(repo.svc.db, { type: "SO", title: "Writes", securityTag: "open" }).ref;
  });
  afterAll(async () => {
    await session.close();
    await repo.close();
  });

  it("saves a title and description with hostile characters, and clears the description", async () => {
    const ref = asset();
    const before = await entity.get(ref, "IO");
    const saved = await write.save({ ...before, title: HOSTILE, description: "a < b & c" });
    expect(saved).toMatchObject({ ref, title: HOSTILE, description: "a < b & c", parentRef: folder });
    expect(await entity.get(ref, "IO")).toMatchObject({ title: HOSTILE, description: "a < b & c" });
    const { description: _, ...rest } = saved;
    const cleared = await write.save(rest);
    expect(cleared.description).toBeUndefined();
    expect(cleared.securityTag).toBe("open");
  });

  it("adds, replaces and deletes a Dublin Core fragment, read back verbatim", async () => {
    const ref = asset();
    const doc = applyFields(DUBLIN_CORE, undefined, { title: HOSTILE, creator: "Clerk" });
    const added = await write.addMetadata(ref, "IO", OAI_DC_SCHEMA, doc);
    expect(added.mref).toMatch(/^[0-9a-f-]{36}$/);
    const e = await entity.get(ref, "IO");
    expect(e.fragments).toEqual([expect.objectContaining({ mref: added.mref, schema: OAI_DC_SCHEMA })]);
    const stored = await entity.metadata({ ref, type: "IO", mref: added.mref as string });
    expect(metadataFields(stored.document).fields).toEqual([
      { name: "title", value: HOSTILE },
      { name: "creator", value: "Clerk" },
    ]);

    const changed = applyFields(DUBLIN_CORE, stored.document, { creator: ["A & B", "C"] });
    await write.updateMetadata(ref, "IO", added.mref as string, OAI_DC_SCHEMA, changed);
    const again = await entity.metadata({ ref, type: "IO", mref: added.mref as string });
    expect(metadataFields(again.document).fields.filter((f) => f.name === "creator")).toEqual([
      { name: "creator", value: "A & B" },
      { name: "creator", value: "C" },
    ]);

    await write.deleteMetadata(ref, "IO", added.mref as string);
    expect((await entity.get(ref, "IO")).fragments).toEqual([]);
  });

  it("adds, changes and removes identifiers", async () => {
    const ref = asset();
    const { apiId } = await write.addIdentifier(ref, "IO", "accession", "A-17 & <x>");
    expect(apiId).toBeTruthy();
    expect((await entity.identifiers(ref, "IO")).items).toEqual([
      expect.objectContaining({ apiId, type: "accession", value: "A-17 & <x>" }),
    ]);
    await write.updateIdentifier(ref, "IO", apiId as string, "accession", "A-18");
    expect((await entity.identifiers(ref, "IO")).items.map((i) => i.value)).toEqual(["A-18"]);
    await write.deleteIdentifier(ref, "IO", apiId as string);
    expect((await entity.identifiers(ref, "IO")).total).toBe(0);
  });

  it("links two entities, seen from both ends, and removes the link", async () => {
    const a = asset("From");
    const b = asset("To");
    const { apiId } = await write.addLink({ ref: a, type: "IO" }, "http://purl.org/dc/terms/references", b);
    expect(apiId).toBeTruthy();
    expect((await entity.links(a, "IO")).items).toEqual([
      expect.objectContaining({ ref: b, direction: "From", title: "To", apiId }),
    ]);
    expect((await entity.links(b, "IO")).items).toEqual([
      expect.objectContaining({ ref: a, direction: "To" }),
    ]);
    await write.deleteLink(b, "IO", apiId as string);
    expect((await entity.links(a, "IO")).total).toBe(0);
  });

  it("reads metadata groups with their fields", async () => {
    await session.http.request({
      method: "POST",
      path: "/api/metadata/groups/",
      body: JSON.stringify({
        name: "Box list",
        fields: [
          { id: "box", name: "Box", maxOccurs: "1" },
          { id: "state", name: "State", values: ["ok", "damaged"] },
        ],
      }),
      headers: { "content-type": "application/json" },
      operation: "test.group",
      idempotent: false,
    });
    const groups = await write.metadataGroups();
    const g = groups.find((x) => x.name === "Box list");
    expect(g?.schemaUri).toBe("http://www.preservica.com/metadata/group/box_list");
    const full = await write.metadataGroup(g?.id as string);
    expect(full.fields).toEqual([
      { id: "box", name: "Box", maxOccurs: 1 },
      { id: "state", name: "State", maxOccurs: 1, values: ["ok", "damaged"] },
    ]);
  });

  it("fails with typed errors naming the operation, and refuses malformed refs before sending", async () => {
    const missing = "11111111-2222-4333-8444-555555555555";
    const err = await write.addIdentifier(missing, "IO", "t", "v").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).toMatchObject({ status: 404, operation: "entity.identifier.add", method: "POST" });
    await expect(write.deleteMetadata("../x", "IO", missing)).rejects.toThrow(/Not a valid reference/);
    await expect(write.deleteLink(missing, "IO", "a/b")).rejects.toThrow(/Not a valid link id/);
  });
});
