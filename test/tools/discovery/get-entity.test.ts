import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addIdentifier, insertEntity } from "../../../repository/store/entities/write.js";
import { bitstreamUri } from "../../../src/resources/uris.js";
import { type BlockingProxy, startProxiedMcp } from "../../helpers/blocking-proxy.js";
import { type McpHarness, textOf } from "../../helpers/mcp.js";
import { stableText } from "../../helpers/snapshot.js";
import { useMcp } from "../../helpers/use-mcp.js";
import { ancestorsOf, assetNode, DEMO, entity, nodeOf, seedFile } from "./demo-facts.js";

interface Answer {
  entity: {
    ref: string;
    type: string;
    title: string;
    description?: string;
    securityTag: string;
    parentRef?: string;
    uri: string;
  };
  metadata?: { mref: string; schema: string; schemaName: string }[];
  identifiers?: { type: string; value: string }[];
  links?: { relation: string; direction: string; ref: string; type: string; title: string }[];
  files?: {
    contentObject: string;
    representation?: string;
    generation: number;
    formats: { puid?: string; name?: string }[];
    bitstreams: {
      index: number;
      filename: string;
      size: number;
      fixities: { algorithm: string; value: string }[];
      uri: string;
    }[];
  }[];
  events?: {
    date: string;
    type: string;
    action: string;
    user: string;
    eventRef: string;
    entityRef?: string;
  }[];
  breadcrumbs: { ref: string; title: string }[];
  breadcrumbsComplete?: boolean;
  omitted?: Record<string, number>;
}

describe("get_entity", () => {
  const mcp = useMcp({ user: "manager" });
  const reader = useMcp({ user: "reader", repo: mcp.repo });

  it("describes an asset with its fragment list by default, and nothing it was not asked for", async () => {
    const ref = DEMO.refs.byeLaw1858;
    const e = entity(ref);
    const a = await mcp.call<Answer>("get_entity", { ref });
    expect(a.entity).toMatchObject({
      ref,
      type: "asset",
      title: e.title,
      securityTag: e.securityTag,
      parentRef: e.parentRef,
      uri: `preservation://asset/${ref}`,
    });
    expect(a.entity.description).toBe(assetNode("byeLaw1858").description);
    expect(a.metadata?.map((m) => m.schemaName)).toEqual(["oai_dc"]);
    expect(a.identifiers).toBeUndefined();
    expect(a.files).toBeUndefined();
    expect(a.omitted).toBeUndefined();
  });

  it("detects folders and content objects without a type, and names their parent", async () => {
    const folder = await mcp.call<Answer>("get_entity", { ref: DEMO.refs.photographs });
    expect(folder.entity).toMatchObject({ type: "folder", title: entity(DEMO.refs.photographs).title });
    const co = DEMO.entities.find((e) => e.type === "CO" && e.parentRef === DEMO.refs.textAsset);
    const a = await mcp.call<Answer>("get_entity", { ref: co?.ref, type: "content_object" });
    expect(a.entity).toMatchObject({ type: "content_object", parentRef: DEMO.refs.textAsset });
    expect(textOf(await mcp.raw("get_entity", { ref: co?.ref }))).toContain(
      `in asset "${entity(DEMO.refs.textAsset).title}" ${DEMO.refs.textAsset}`,
    );
  });

  it("lists files with formats, sizes and fixities that match the seed's bytes", async () => {
    const a = await mcp.call<Answer>("get_entity", { ref: DEMO.refs.textAsset, include: ["files"] });
    const seed = seedFile("harbourMasterJournal1852");
    const file = a.files?.[0];
    expect(file?.representation).toBe("Preservation");
    expect(file?.formats[0]?.puid).toBe("x-fmt/111");
    const b = file?.bitstreams[0];
    expect(b).toMatchObject({ index: 1, filename: seed.filename, size: seed.bytes.length });
    expect(b?.fixities.find((f) => f.algorithm === "SHA256")?.value.toLowerCase()).toBe(seed.sha256);
    expect(b?.uri).toBe(bitstreamUri(file?.contentObject as string, file?.generation as number, 1));
    // Preservation and access copies both appear for an asset that has both.
    const map = await mcp.call<Answer>("get_entity", { ref: DEMO.refs.mapNorthQuay1850, include: ["files"] });
    expect(map.files?.map((f) => [f.representation, f.bitstreams[0]?.filename])).toEqual([
      ["Preservation", seedFile("mapNorthQuay1850").filename],
      ["Access", seedFile("mapNorthQuay1850", "Access").filename],
    ]);
  });

  it("gives each file's technical properties (a picture's dimensions, a PDF's pages) in text and structure", async () => {
    const seed = seedFile("mapNorthQuay1850");
    const width = String(seed.bytes.readUInt32BE(16));
    const height = String(seed.bytes.readUInt32BE(20));
    const res = await mcp.raw("get_entity", { ref: DEMO.refs.mapNorthQuay1850, include: ["files"] });
    const files = (res.structuredContent as { files: { properties?: { name: string; value: string }[] }[] })
      .files;
    const props = files[0]?.properties ?? [];
    expect(props).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: "Image Width", value: width }),
        expect.objectContaining({ name: "Image Height", value: height }),
      ]),
    );
    expect(textOf(res)).toContain(props.map((p) => `${p.name} ${p.value}`).join("; "));
    const pdf = await mcp.raw("get_entity", { ref: DEMO.refs.pdfAsset, include: ["files"] });
    expect(textOf(pdf)).toMatch(/Page Count 1/);
  });

  it("says a folder holds no files rather than failing", async () => {
    const res = await mcp.raw("get_entity", { ref: DEMO.refs.photographs, include: ["files"] });
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent).not.toHaveProperty("files");
    expect(textOf(res)).toMatch(/Files: folders hold none; `browse` lists its assets\./);
  });

  it("gives identifiers and links in both directions", async () => {
    const node = assetNode("historyOfHarbourTown");
    const ids = await mcp.call<Answer>("get_entity", {
      ref: DEMO.refs.historyOfHarbourTown,
      include: ["identifiers"],
    });
    expect(ids.identifiers).toEqual([
      { type: "code", value: node.code },
      ...(node.identifiers ?? []).map(([type, value]) => ({ type, value })),
    ]);
    const newer = await mcp.call<Answer>("get_entity", {
      ref: DEMO.refs.mapNorthQuay1856,
      include: ["links"],
    });
    expect(newer.links).toContainEqual({
      relation: "isVersionOf",
      direction: "From",
      ref: DEMO.refs.mapNorthQuay1850,
      type: "asset",
      title: entity(DEMO.refs.mapNorthQuay1850).title,
    });
    const older = await mcp.call<Answer>("get_entity", {
      ref: DEMO.refs.mapNorthQuay1850,
      include: ["links"],
    });
    expect(older.links).toContainEqual(
      expect.objectContaining({ relation: "isVersionOf", direction: "To", ref: DEMO.refs.mapNorthQuay1856 }),
    );
  });

  it("gives the recent events newest first", async () => {
    const a = await mcp.call<Answer>("get_entity", { ref: DEMO.refs.mapNorthQuay1856, include: ["events"] });
    const events = a.events ?? [];
    expect(events.length).toBeGreaterThanOrEqual(2);
    const dates = events.map((e) => e.date);
    expect([...dates].sort().reverse()).toEqual(dates);
    const own = events.filter((v) => v.entityRef === undefined);
    expect(own[0]?.action).toBe("AddLink");
    expect(own.at(-1)).toMatchObject({ type: "Ingest", action: "command_create" });
  });

  it("includes its files' integrity checks in an asset's recent events, naming the content object", async () => {
    const ref = DEMO.refs.mapNorthQuay1856;
    const cos = DEMO.entities.filter((e) => e.type === "CO" && e.parentRef === ref).map((e) => e.ref);
    const res = await mcp.raw("get_entity", { ref, include: ["events"] });
    const a = res.structuredContent as unknown as Answer;
    const checks = (a.events ?? []).filter((v) => v.type === "IntegrityCheck");
    expect(checks.length).toBeGreaterThan(0);
    expect(checks.every((v) => v.entityRef && cos.includes(v.entityRef))).toBe(true);
    expect(textOf(res)).toMatch(
      new RegExp(
        `IntegrityCheck \\(command_integrity_check\\) by \\w+, Scheduled integrity check on content objects? (${cos.join("|")})(, [0-9a-f-]{36})*, event `,
      ),
    );
  });

  it("gives the path from the top: titles and refs of what is above, in text and structured", async () => {
    const ref = DEMO.refs.textAsset;
    const above = ancestorsOf(ref);
    expect(above.length).toBeGreaterThan(1);
    const res = await mcp.raw("get_entity", { ref });
    const a = res.structuredContent as unknown as Answer;
    expect(a.breadcrumbs).toEqual(above);
    expect(a.breadcrumbsComplete).toBeUndefined();
    const path = [...above, entity(ref)].map((c) => `/${c.title}`).join("");
    expect(textOf(res)).toContain(`Path: ${path} (above: ${above.map((c) => c.ref).join(" > ")})`);
    expect(textOf(res)).toContain(`in folder "${above.at(-1)?.title}" ${entity(ref).parentRef}`);
    // A top-level folder has no path above it.
    const top = await mcp.raw("get_entity", { ref: above[0]?.ref });
    expect((top.structuredContent as unknown as Answer).breadcrumbs).toEqual([]);
    expect(textOf(top)).toMatch(/; top level/);
    expect(textOf(top)).not.toMatch(/^Path:/m);
    // A caller that lists only other parts skips the walk up (one request per level).
    const bare = await mcp.raw("get_entity", { ref, include: ["identifiers"] });
    expect(bare.structuredContent).not.toHaveProperty("breadcrumbs");
    expect(textOf(bare)).toContain(`; in folder ${entity(ref).parentRef}`);
  });

  it("caps long lists and says how many were left out", async () => {
    const db = mcp.repo.svc.db;
    const asset = insertEntity(db, {
      type: "IO",
      title: "Fixture with many identifiers",
      securityTag: "open",
      parentRef: nodeOf("photographs").ref,
    });
    for (let i = 1; i <= 25; i++) addIdentifier(db, asset.ref, "fixture", `F-${i}`);
    const res = await mcp.raw("get_entity", { ref: asset.ref, include: ["identifiers"] });
    const a = res.structuredContent as unknown as Answer;
    expect(a.identifiers).toHaveLength(20);
    expect(a.omitted).toEqual({ identifiers: 5 });
    expect(textOf(res)).toMatch(/… and 5 more/);
  });

  it("tells a reader they may not see closed material, and explains refs that do not fit", async () => {
    const closed = await reader.raw("get_entity", { ref: DEMO.refs.closedAsset });
    expect(closed.isError).toBe(true);
    expect(textOf(closed)).toMatch(/^You do not have permission for this/);
    // It says what to do next, not only what went wrong.
    expect(textOf(closed)).toMatch(
      /Carry on without it, or ask a repository administrator for access \(`whoami` lists your roles\)\.$/,
    );
    expect(textOf(closed)).not.toMatch(entity(DEMO.refs.closedAsset).title);
    const staff = await reader.raw("get_entity", { ref: DEMO.refs.staffAsset });
    expect(textOf(staff)).toMatch(/permission/);

    const missing = await mcp.raw("get_entity", { ref: "11111111-2222-4333-8444-555555555555" });
    expect(textOf(missing)).toMatch(/^Nothing with ref 11111111-2222-4333-8444-555555555555 exists/);
    const malformed = await mcp.raw("get_entity", { ref: "Photographs" });
    expect(textOf(malformed)).toMatch(/"Photographs" is not a ref/);
    const include = await mcp.raw("get_entity", { ref: DEMO.refs.photographs, include: ["everything"] });
    expect(include.isError).toBe(true);
  });

  it("still describes an entity whose kind was guessed wrong, in its real kind", async () => {
    // `type` is a hint for the first look-up: a model that guessed "asset" for a folder gets the folder.
    const folder = await mcp.raw("get_entity", { ref: DEMO.refs.photographs, type: "asset" });
    expect(folder.isError).toBeFalsy();
    expect(folder.structuredContent).toMatchObject({
      entity: { ref: DEMO.refs.photographs, type: "folder", title: "Photographs" },
    });
    expect(textOf(folder)).toMatch(/^folder "Photographs"/);
    const asset = await mcp.call<Answer>("get_entity", { ref: DEMO.refs.pdfAsset, type: "content_object" });
    expect(asset.entity.type).toBe("asset");
  });

  it("stays compact with everything included", async () => {
    const res = await mcp.raw("get_entity", {
      ref: DEMO.refs.interviewDoyle,
      include: ["identifiers", "metadata", "files", "links", "events"],
    });
    expect(res.isError).toBeFalsy();
    expect(textOf(res).length).toBeLessThan(4000);
    expect(JSON.stringify(res.structuredContent).length).toBeLessThan(6000);
  });

  it("answers in words a person can act on (the whole text, pinned)", async () => {
    const res = await mcp.raw("get_entity", { ref: DEMO.refs.byeLaw1858 });
    expect(stableText(textOf(res))).toMatchInlineSnapshot(`
      "asset "Bye-laws for the regulation of the Market 1858" a26e292a-febc-41a7-9778-da83cc81b45a
      Description: Bye-laws for the regulation of the Market 1858, made by the Borough Council on 4 May 1858; printed text and a structured transcription.
      Security tag: open; in folder "Bye-laws and Regulations" 5350e708-e113-4107-a78f-a14ff2b76cf7
      Path: /Harbour Town Council/Bye-laws and Regulations/Bye-laws for the regulation of the Market 1858 (above: f449d88a-335f-47c9-bd79-84a3c0c7e7cd > 5350e708-e113-4107-a78f-a14ff2b76cf7)
      Metadata (read with \`read_metadata\`): oai_dc dfdcaeb1-12c0-4dc2-9dae-727f04f9f355"
    `);
  });
});

/**
 * One failed sub-request loses only its own part: with one of an asset's representations unreadable (the
 * real service behind a loopback proxy that answers that one request with the service's JSON 404), the
 * answer still gives the other representation's files and names the one it could not read, and why.
 */
describe("get_entity when one sub-request fails", () => {
  let proxy: BlockingProxy;
  let mcp: McpHarness;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ proxy, mcp, close } = await startProxiedMcp());
  });
  afterAll(() => close());

  it("answers with the files it read and names the representation it could not read", async () => {
    const ref = DEMO.refs.pngAsset;
    const whole = await mcp.call<{ files: { representation?: string; contentObject: string }[] }>(
      "get_entity",
      {
        ref,
        include: ["files"],
      },
    );
    const reps = [...new Set(whole.files.map((f) => f.representation))];
    expect(reps.length).toBeGreaterThan(1);
    const lost = whole.files.find((f) => f.representation !== "Preservation");
    const kept = whole.files.find((f) => f.representation === "Preservation");
    proxy.rules.push({
      path: `/api/entity/information-objects/${ref}/representations/${lost?.representation}/1`,
      mode: "item-404",
    });
    const res = await mcp.raw("get_entity", { ref, include: ["files", "identifiers"] });
    expect(res.isError, textOf(res)).toBeFalsy();
    const s = res.structuredContent as {
      files: { contentObject: string }[];
      identifiers: unknown[];
      unread: { part: string; reason: string }[];
    };
    expect(s.files.map((f) => f.contentObject)).toEqual([kept?.contentObject]);
    expect(s.identifiers.length).toBeGreaterThan(0);
    expect(s.unread).toEqual([
      {
        part: `the ${lost?.representation} representation 1 of asset ${ref}`,
        reason: expect.stringContaining("HTTP 404"),
      },
    ]);
    const text = textOf(res);
    expect(text).toContain(kept?.contentObject);
    expect(text).toContain(
      `Not read (the rest of this answer stands): the ${lost?.representation} representation 1`,
    );
    proxy.rules.length = 0;
  });
});
