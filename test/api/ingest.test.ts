import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import yazl from "yazl";
import type { RunningRepository } from "../../repository/server.js";
import { insertEntity } from "../../repository/store/entities/write.js";
import { ActionsApi } from "../../src/api/actions.js";
import { ServiceError } from "../../src/api/errors.js";
import { IngestApi, opexManifest } from "../../src/api/ingest.js";
import { parseXml, path, text } from "../../src/api/xml.js";
import { Session } from "../../src/session/session.js";
import { DEMO_USERS, startTestRepository } from "../helpers/repository.js";

async function zipOf(files: Record<string, string>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, body] of Object.entries(files)) zip.addBuffer(Buffer.from(body), name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

describe("Ingest API client", () => {
  let repo: RunningRepository;
  let session: Session;
  let ingest: IngestApi;
  let actions: ActionsApi;

  beforeAll(async () => {
    repo = await startTestRepository({ seed: "demo" });
    session = new Session({ url: repo.url, ...DEMO_USERS.curator, keepAlive: false });
    ingest = new IngestApi(session.http);
    actions = new ActionsApi(session.http);
  });
  afterAll(async () => {
    await session.close();
    await repo.close();
  });

  it("streams a package into a folder and returns the progress token", async () => {
    const folder = insertEntity(repo.svc.db, { type: "SO", title: "In", securityTag: "open" });
    const pkg = await zipOf({ "Box 1/letter.txt": "Dear sir\n" });
    const token = await ingest.uploadPackage(folder.ref, Readable.from([pkg]), {
      filename: "box – 1.zip",
      length: pkg.length,
    });
    let p = await actions.progress(token);
    for (let i = 0; i < 100 && p.status === "ACTIVE"; i++) {
      await new Promise((r) => setTimeout(r, 50));
      p = await actions.progress(token);
    }
    expect(p).toMatchObject({ status: "COMPLETED", kind: "ingest", total: 1, done: 1 });
    const d = await actions.detail("ingest", token);
    expect(d.items).toHaveLength(1);
    expect(d.items[0]).toMatchObject({ outcome: "done", message: "Box 1/letter.txt ingested" });
  });

  it("reports the service's refusal (not a zip) as a ServiceError, never retried", async () => {
    const folder = insertEntity(repo.svc.db, { type: "SO", title: "In 2", securityTag: "open" });
    const err = await ingest
      .uploadPackage(folder.ref, Readable.from([Buffer.from("not a zip")]), { filename: "x.zip" })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).toMatchObject({ status: 400, operation: "ingest.upload", method: "POST", attempts: 1 });
  });

  it("builds an OPEX manifest with every value escaped", () => {
    const xml = opexManifest({ title: `Minutes <1850> & "more"`, description: "a\u0001b" }).toString();
    const doc = parseXml(xml);
    expect(text(path(doc, "OPEXMetadata", "Properties", "Title"))).toBe(`Minutes <1850> & "more"`);
    expect(text(path(doc, "OPEXMetadata", "Properties", "Description"))).toBe("ab");
  });
});
