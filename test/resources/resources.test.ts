import { ProtocolErrorCode } from "@modelcontextprotocol/client";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../../repository/seed/demo.js";
import {
  addBitstream,
  addGeneration,
  addRepresentation,
  insertEntity,
} from "../../repository/store/entities/write.js";
import { MAX_RESOURCE_BYTES } from "../../src/resources/files.js";
import { assetUri, bitstreamUri, folderUri, metadataUri, ROOT_URI } from "../../src/resources/uris.js";
import { startMcp } from "../helpers/mcp.js";
import { useMcp } from "../helpers/use-mcp.js";

type Contents = { uri: string; mimeType?: string; text?: string; blob?: string }[];

/** Real client, real server, real repository service (demo collection plus a few fixture files). */
describe("preservation:// resources", () => {
  const mcp = useMcp({ user: "curator" });
  const fixture = { asset: "", bigCo: "", latinCo: "" };

  const read = async (uri: string) => (await mcp.client.readResource({ uri })).contents as Contents;
  const readJson = async <T = Record<string, unknown>>(uri: string) => {
    const [c] = await read(uri);
    expect(c?.mimeType).toBe("application/json");
    return JSON.parse(c?.text ?? "") as T;
  };
  const failure = async (uri: string) => {
    try {
      await mcp.client.readResource({ uri });
    } catch (err) {
      return err as { code: number; message: string };
    }
    throw new Error(`reading ${uri} did not fail`);
  };
  const complete = async (uri: string, name: string, value: string, args?: Record<string, string>) =>
    (
      await mcp.client.complete({
        ref: { type: "ref/resource", uri },
        argument: { name, value },
        ...(args ? { context: { arguments: args } } : {}),
      })
    ).completion.values;

  beforeAll(async () => {
    // Fixture files the demo does not have: one over the resource cap, one text file in Latin-1.
    const { db, content } = mcp.repo.svc;
    const folder = insertEntity(db, { type: "SO", title: "Resource fixtures", securityTag: "open" }).ref;
    fixture.asset = insertEntity(db, {
      type: "IO",
      title: "Oversized Quillwort survey",
      securityTag: "open",
      parentRef: folder,
    }).ref;
    const addFile = (name: string, mimeType: string, bytes: Buffer) => {
      const co = insertEntity(db, {
        type: "CO",
        title: name,
        securityTag: "open",
        parentRef: fixture.asset,
      }).ref;
      const gen = addGeneration(db, co, { label: name });
      addBitstream(db, gen, { filename: name, mimeType, blob: content.put(bytes) });
      return co;
    };
    fixture.bigCo = addFile("survey.tif", "image/tiff", Buffer.alloc(MAX_RESOURCE_BYTES + 10, 7));
    fixture.latinCo = addFile(
      "notes.txt",
      "text/plain; charset=ISO-8859-1",
      Buffer.from([0x63, 0x61, 0x66, 0xe9]),
    );
    addRepresentation(db, fixture.asset, "Preservation", null, [fixture.bigCo, fixture.latinCo]);
  });

  it("lists the root listing and the top-level folders, and the six templates", async () => {
    const { resources } = await mcp.client.listResources();
    expect(resources[0]).toMatchObject({ uri: ROOT_URI, mimeType: "application/json" });
    const folders = resources.filter((r) => r.uri.startsWith("preservation://folder/"));
    expect(folders.map((r) => r.name)).toEqual(
      expect.arrayContaining(DEMO.rootFolders.filter((f) => f.securityTag === "open").map((f) => f.title)),
    );
    for (const f of folders) expect(f.title).toBe(f.name);
    const { resourceTemplates } = await mcp.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      "preservation://folder/{ref}",
      "preservation://asset/{ref}",
      "preservation://content-object/{ref}",
      "preservation://metadata/{entityRef}/{mref}",
      "preservation://bitstream/{coRef}/{generation}/{index}",
      "preservation://report/{job}",
    ]);
    for (const t of resourceTemplates) {
      expect(t.title).toBeTruthy();
      expect(t.description).toBeTruthy();
    }
  });

  it("reads the root listing: top-level folders as folder URIs", async () => {
    const root = await readJson<{ total: number; folders: { title: string; uri: string }[] }>(ROOT_URI);
    expect(root.folders[0]).toEqual({
      kind: "folder",
      title: DEMO.rootFolders[0]?.title,
      uri: folderUri(DEMO.rootFolders[0]?.ref ?? ""),
    });
    expect(root.total).toBe(root.folders.length);
  });

  it("reads a folder: summary and children as URIs that resolve", async () => {
    const ref = DEMO.refs.councilMinutesSeries;
    const folder = await readJson<{
      title: string;
      parent: string;
      children: { total: number; items: { kind: string; uri: string }[] };
    }>(folderUri(ref));
    const expected = DEMO.entities.filter((e) => e.parentRef === ref);
    expect(folder.title).toBe(DEMO.entities.find((e) => e.ref === ref)?.title);
    expect(folder.children.total).toBe(expected.length);
    expect(folder.children.items.map((i) => i.uri)).toEqual(
      expect.arrayContaining(expected.map((e) => (e.type === "SO" ? folderUri(e.ref) : assetUri(e.ref)))),
    );
    const child = await readJson<{ parent: string }>(folder.children.items[0]?.uri ?? "");
    expect(child.parent).toBe(folderUri(ref));
  });

  it("reads an asset with fragments, identifiers and representations, and follows them to the file", async () => {
    const ref = DEMO.refs.pdfAsset;
    const asset = await readJson<{
      kind: string;
      metadata: { schema: string; uri: string }[];
      identifiers: { type: string; value: string }[];
      representations: { type: string; contentObjects: { uri: string }[] }[];
    }>(assetUri(ref));
    expect(asset.kind).toBe("asset");
    expect(asset.identifiers.some((i) => i.type === "code")).toBe(true);
    expect(asset.metadata[0]?.schema).toBe("http://www.openarchives.org/OAI/2.0/oai_dc/");

    const [md] = await read(asset.metadata[0]?.uri ?? "");
    expect(md?.mimeType).toBe("application/xml");
    expect(md?.text).toMatch(/^<oai_dc:dc[\s\S]*<dc:title>Council minutes 1851<\/dc:title>/);

    const coUri = asset.representations.find((r) => r.type === "Preservation")?.contentObjects[0]?.uri ?? "";
    const co = await readJson<{
      asset: string;
      generations: {
        index: number;
        active: boolean;
        files: { filename: string; size: number; uri: string }[];
      }[];
    }>(coUri);
    expect(co.asset).toBe(assetUri(ref));
    const file = co.generations[0]?.files[0];
    expect(file?.filename).toMatch(/\.pdf$/);
    const [bytes] = await read(file?.uri ?? "");
    expect(bytes?.mimeType).toBe("application/pdf");
    const pdf = Buffer.from(bytes?.blob ?? "", "base64");
    expect(pdf.length).toBe(file?.size);
    expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");
  });

  it("returns text files as text, decoding their declared charset", async () => {
    const [txt] = await read(bitstreamUri(fixture.latinCo, 1, 1));
    expect(txt).toMatchObject({ mimeType: "text/plain", text: "café" });
    const textAsset = await readJson<{ representations: { contentObjects: { uri: string }[] }[] }>(
      assetUri(DEMO.refs.textAsset),
    );
    const co = await readJson<{ generations: { files: { uri: string }[] }[] }>(
      textAsset.representations[0]?.contentObjects[0]?.uri ?? "",
    );
    const [journal] = await read(co.generations[0]?.files[0]?.uri ?? "");
    expect(journal?.mimeType).toMatch(/^text\//);
    expect(journal?.text?.length).toBeGreaterThan(20);
    expect(journal?.blob).toBeUndefined();
  });

  it("refuses a file over the cap with a pointer to get_file", async () => {
    const err = await failure(bitstreamUri(fixture.bigCo, 1, 1));
    expect(err.code).toBe(ProtocolErrorCode.InvalidParams);
    expect(err.message).toMatch(/survey\.tif is 1\.0 MB, over the 1\.0 MB limit.*`get_file`/);
  });

  it("answers malformed refs with InvalidParams and unknown ones with not-found messages that help", async () => {
    const bad = await failure(assetUri("not-a-ref!"));
    expect(bad.code).toBe(ProtocolErrorCode.InvalidParams);
    expect(bad.message).toMatch(/not a valid asset reference \(expected a UUID\).*`search`/);

    const unknown = await failure(assetUri("00000000-0000-4000-8000-000000000000"));
    expect(unknown.code).toBe(ProtocolErrorCode.InvalidParams); // resources/read misses are -32602 on every era
    expect(unknown.message).toMatch(/No asset 00000000-.*`search`/);

    const wrongType = await failure(assetUri(DEMO.refs.councilMinutesSeries));
    expect(wrongType.message).toBe(
      `${DEMO.refs.councilMinutesSeries} is a folder, not an asset: read ${folderUri(DEMO.refs.councilMinutesSeries)}`,
    );

    // A folder URI given an asset's ref: the children listing fails as well, but the answer is the same.
    const notFolder = await failure(folderUri(DEMO.refs.pdfAsset));
    expect(notFolder.message).toBe(
      `${DEMO.refs.pdfAsset} is an asset, not a folder: read ${assetUri(DEMO.refs.pdfAsset)}`,
    );

    const badMref = await failure(metadataUri(DEMO.refs.pdfAsset, "dublin-core"));
    expect(badMref.code).toBe(ProtocolErrorCode.InvalidParams);
    expect(badMref.message).toMatch(
      /"dublin-core" is not a valid .* reference .*listed by the `get_entity` tool/,
    );

    const noFragment = await failure(metadataUri(DEMO.refs.pdfAsset, "00000000-0000-4000-8000-000000000001"));
    expect(noFragment.message).toMatch(
      /"Council minutes 1851" has no metadata fragment .*its fragments are preservation:\/\/metadata\//,
    );

    const badIndex = await failure(bitstreamUri(fixture.latinCo, 1, 1).replace(/\/1$/, "/0"));
    expect(badIndex.message).toMatch(/index in the URI must be a whole number from 1/);

    const noFile = await failure(bitstreamUri(fixture.latinCo, 1, 9));
    expect(noFile.message).toMatch(/No file 9 in generation 1.*preservation:\/\/content-object\//);

    const elsewhere = await failure("preservation://nothing/here");
    expect(elsewhere.code).toBe(ProtocolErrorCode.InvalidParams);
  });

  it("completes refs by title prefix, then by words inside titles, per entity type", async () => {
    const byPrefix = await complete("preservation://asset/{ref}", "ref", "Council minutes 185");
    const expected = DEMO.entities
      .filter((e) => e.type === "IO" && e.title.startsWith("Council minutes 185") && e.securityTag === "open")
      .map((e) => e.ref);
    expect(expected.length).toBeGreaterThan(0);
    expect(byPrefix).toEqual(expect.arrayContaining(expected));

    const inside = await complete("preservation://asset/{ref}", "ref", "quillwort");
    expect(inside).toEqual([fixture.asset]);

    const folders = await complete("preservation://folder/{ref}", "ref", "council minutes");
    expect(folders).toContain(DEMO.refs.councilMinutesSeries);
    expect(folders).not.toContain(DEMO.refs.councilMinutes1851);

    const cos = await complete("preservation://content-object/{ref}", "ref", "notes.t");
    expect(cos).toEqual([fixture.latinCo]);

    const byRef = await complete("preservation://asset/{ref}", "ref", DEMO.refs.pdfAsset.slice(0, 8));
    expect(byRef[0]).toBe(DEMO.refs.pdfAsset);

    const all = await complete("preservation://asset/{ref}", "ref", "");
    expect(all).toHaveLength(20);
  });

  it("completes fragment refs and file indexes from the other variables", async () => {
    const asset = await readJson<{ metadata: { uri: string }[] }>(assetUri(DEMO.refs.pdfAsset));
    const mref = asset.metadata[0]?.uri.split("/").pop() ?? "";
    const mrefs = await complete("preservation://metadata/{entityRef}/{mref}", "mref", "", {
      entityRef: DEMO.refs.pdfAsset,
    });
    expect(mrefs).toEqual([mref]);
    const generations = await complete(
      "preservation://bitstream/{coRef}/{generation}/{index}",
      "generation",
      "",
      { coRef: fixture.latinCo },
    );
    expect(generations).toEqual(["1"]);
    const indexes = await complete("preservation://bitstream/{coRef}/{generation}/{index}", "index", "", {
      coRef: fixture.latinCo,
      generation: "1",
    });
    expect(indexes).toEqual(["1"]);
  });

  it("hides what the caller may not see: a reader cannot read a closed asset", async () => {
    const guest = await startMcp({ user: "reader", repo: mcp.repo });
    try {
      const err = await guest.client.readResource({ uri: assetUri(DEMO.refs.closedAsset) }).then(
        () => undefined,
        (e: { code: number; message: string }) => e,
      );
      expect(err?.code).toBe(ProtocolErrorCode.InvalidRequest);
      expect(err?.message).toMatch(/^You do not have permission/);
      const titles = await guest.client.complete({
        ref: { type: "ref/resource", uri: "preservation://asset/{ref}" },
        argument: { name: "ref", value: "letter" },
      });
      expect(titles.completion.values).not.toContain(DEMO.refs.closedAsset);
    } finally {
      await guest.close();
    }
  });
});
