import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { startTestRepository } from "../../helpers/repository.js";
import { expectRefused, signIn, type Users } from "../writes/write-helpers.js";
import { json } from "./ops-helpers.js";

/**
 * Ingest configurations (`/api/process/ingest/configs`) as pyPreservica's ProcessAPI reads and changes
 * them: a top-level `configs` list with apiId, name, description, type, active and trigger.type; PUT of
 * a bare JSON `true` / `false` to …/active answers the configuration with its new `active`.
 */

const P = "/api/process/ingest/configs";
const UPLOAD = "6d1f0a52-3c1b-4a8e-9f10-2b7c5e0d4a01";
const OPEX = "6d1f0a52-3c1b-4a8e-9f10-2b7c5e0d4a02";

interface Config {
  apiId: string;
  name: string;
  description: string;
  type: string;
  active: boolean;
  trigger: { type: string };
  modifiedBy: string;
}

let repo: RunningRepository;
let u: Users;
beforeAll(async () => {
  repo = await startTestRepository();
  u = await signIn(repo);
});
afterAll(async () => {
  await repo?.close();
});

const put = (who: keyof Users, id: string, body: string) =>
  u[who](`${P}/${id}/active`, { method: "PUT", headers: { "Content-Type": "application/json" }, body });

describe("ingest configurations", () => {
  it("lists the configurations every store starts with, filtered by type", async () => {
    const { configs } = await json<{ configs: Config[] }>(u.reader, P);
    expect(configs.map((c) => [c.apiId, c.type, c.active, c.trigger.type])).toEqual([
      [OPEX, "OPEX", false, "MONITOR"],
      [UPLOAD, "PACKAGE", true, "API"],
    ]);
    for (const c of configs) expect(c.description).not.toBe("");
    const opex = await json<{ configs: Config[] }>(u.reader, `${P}?types=opex`);
    expect(opex.configs.map((c) => c.apiId)).toEqual([OPEX]);
    const both = await json<{ configs: Config[] }>(u.reader, `${P}?types=OPEX,PACKAGE`);
    expect(both.configs).toHaveLength(2);
    expect((await json<{ configs: Config[] }>(u.reader, `${P}?types=SIP`)).configs).toEqual([]);
    expect((await json<Config>(u.reader, `${P}/${UPLOAD}`)).name).toBe("Package upload");
    expect((await fetch(`${repo.url}${P}`)).status).toBe(401);
  });

  it("activates and deactivates (managers and administrators), answering the configuration", async () => {
    const on = await put("manager", OPEX, "true");
    expect(on.status).toBe(200);
    expect(((await on.json()) as Config).active).toBe(true);
    expect((await json<Config>(u.reader, `${P}/${OPEX}`)).modifiedBy).toBe("manager");
    const off = (await (await put("manager", OPEX, "false")).json()) as Config;
    expect(off.active).toBe(false);
    // The same through a JSON object body.
    expect(((await (await put("manager", OPEX, '{"active": true}')).json()) as Config).active).toBe(true);
    expect(((await (await put("manager", OPEX, "false")).json()) as Config).active).toBe(false);
  });

  it("refuses other users, unknown configurations and bodies that are not true or false, changing nothing", async () => {
    await expectRefused(repo, () => put("curator", OPEX, "true"), 403, /Only managers and administrators/);
    await expectRefused(repo, () => put("reader", UPLOAD, "false"), 403, /Only managers and administrators/);
    await expectRefused(repo, () => put("manager", "nope", "true"), 404, /No ingest configuration "nope"/);
    await expectRefused(repo, () => put("manager", OPEX, "yes"), 400, /must be true or false/);
    await expectRefused(repo, () => put("manager", OPEX, ""), 400, /must be true or false/);
  });
});
