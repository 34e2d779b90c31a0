import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../../repository/seed.js";
import type { RunningRepository } from "../../repository/server.js";
import { ActionsApi } from "../../src/api/actions.js";
import { ServiceError } from "../../src/api/errors.js";
import { digestsFromHeaders, ExportApi } from "../../src/api/export.js";
import { Session } from "../../src/session/session.js";
import { authed, DEMO_USERS, login, startTestRepository } from "../helpers/repository.js";

describe("Export API client", () => {
  let repo: RunningRepository;
  let session: Session;
  let exp: ExportApi;
  let actions: ActionsApi;

  beforeAll(async () => {
    repo = await startTestRepository({ seed: "demo" });
    session = new Session({ url: repo.url, ...DEMO_USERS.manager, keepAlive: false });
    exp = new ExportApi(session.http);
    actions = new ActionsApi(session.http);
  });
  afterAll(async () => {
    await session.close();
    await repo.close();
  });

  it("starts an export with its options and streams the finished package", async () => {
    const folder = DEMO.entities.find((e) => e.type === "SO")?.ref ?? "";
    const token = await exp.start(folder, "SO", { content: false, metadata: "MetadataWithEvents" });
    let p = await actions.progress(token);
    for (let i = 0; i < 100 && p.status === "ACTIVE"; i++) {
      await new Promise((r) => setTimeout(r, 50));
      p = await actions.progress(token);
    }
    expect(p).toMatchObject({ status: "COMPLETED", kind: "export" });
    const list = await actions.list({ kind: "export" });
    expect(list.items[0]?.id).toBe(token);
    const pkg = await exp.download(token);
    const chunks: Buffer[] = [];
    for await (const c of pkg.stream) chunks.push(c as Buffer);
    const got = Buffer.concat(chunks);
    expect(pkg.length).toBe(got.length);
    expect(pkg.filename).toBe(`${token}.zip`);
    const direct = Buffer.from(
      await (
        await authed(
          repo.url,
          (
            await login(repo.url, "manager")
          ).token,
        )(`/api/entity/actions/exports/${token}/content`)
      ).arrayBuffer(),
    );
    expect(createHash("sha256").update(got).digest("hex")).toBe(
      createHash("sha256").update(direct).digest("hex"),
    );
  });

  it("404 for the package of an unknown export", async () => {
    const err = await exp.download("0b7c2f3e-8d1a-4c55-9e61-2f4a7b9c0d13").catch((e) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.status).toBe(404);
  });

  it("reads package digests a service may state in headers", () => {
    const sha = createHash("sha256").update("x").digest();
    const md5 = createHash("md5").update("x").digest();
    expect(
      digestsFromHeaders({
        "repr-digest": `sha-256=:${sha.toString("base64")}:`,
        "content-md5": md5.toString("base64"),
      }),
    ).toEqual({ sha256: sha.toString("hex"), md5: md5.toString("hex") });
    expect(digestsFromHeaders({ digest: `SHA-256=${sha.toString("base64")}` })).toEqual({
      sha256: sha.toString("hex"),
    });
  });
});
