import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { AdminApi } from "../../src/api/admin.js";
import { ServiceError } from "../../src/api/errors.js";
import { Session } from "../../src/session/session.js";
import { DEMO_USERS, startTestRepository } from "../helpers/repository.js";
import { IDP_CERT_SHA256, IDP_METADATA } from "../repository/system/idp-fixture.js";

/** The admin client's writes against the real repository service: what goes on the wire, and its errors. */
describe("Admin API client: writes", () => {
  let repo: RunningRepository;
  let manager: Session;
  let curator: Session;
  let api: AdminApi;
  let curatorApi: AdminApi;

  beforeAll(async () => {
    repo = await startTestRepository({ seed: "demo" });
    manager = new Session({ url: repo.url, ...DEMO_USERS.manager, keepAlive: false });
    curator = new Session({ url: repo.url, ...DEMO_USERS.curator, keepAlive: false });
    api = new AdminApi(manager.http);
    curatorApi = new AdminApi(curator.http);
  });
  afterAll(async () => {
    await manager.close();
    await curator.close();
    await repo.close();
  });

  async function failure(p: Promise<unknown>): Promise<ServiceError> {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ServiceError);
    return err as ServiceError;
  }

  it("adds a user and replaces their roles (either role form); escapes every value", async () => {
    const added = await api.addUser({
      userName: "o.brien",
      fullName: "Siobhán O'Brien <Archives & Records>",
      email: "o.brien@example.org",
      roles: ["SDB_ACCESS_USER"],
    });
    expect(added).toMatchObject({ userName: "o.brien", fullName: "Siobhán O'Brien <Archives & Records>" });
    const changed = await api.updateUser("o.brien", {
      roles: ["ROLE_SDB_ACCESS_USER", "SDB_DATA_MANAGEMENT_USER"],
    });
    expect(changed.roles).toEqual(["SDB_ACCESS_USER", "SDB_DATA_MANAGEMENT_USER"]);
    // Absent fields keep their values.
    expect((await api.getUser("o.brien")).fullName).toBe("Siobhán O'Brien <Archives & Records>");
    const e = await failure(api.updateUser("no.such.user", { roles: ["SDB_ACCESS_USER"] }));
    expect(e).toMatchObject({ status: 404, operation: "admin.user.update", method: "PUT" });
    const dup = await failure(
      api.addUser({ userName: "o.brien", fullName: "X", email: "x@example.org", roles: [] }),
    );
    expect(dup).toMatchObject({ status: 409, operation: "admin.user.add" });
  });

  it("adds, updates and removes a storage adapter; applies a storage policy", async () => {
    const a = await api.addAdapter({
      name: "NAS copy",
      type: "FILE_SYSTEM",
      settings: { path: "/mnt/nas", mirror: true },
    });
    expect(a).toMatchObject({
      name: "NAS copy",
      enabled: true,
      inPolicy: false,
      settings: { path: "/mnt/nas", mirror: "true" },
    });
    const u = await api.updateAdapter(a.id, { description: "Second site", enabled: true });
    expect(u).toMatchObject({ id: a.id, description: "Second site" });
    const before = await api.storagePolicy();
    const local = before.adapters.find((x) => x.primary)?.id as string;
    const p = await api.setStoragePolicy({
      name: "Local and NAS",
      adapters: [local, a.id],
      minimumCopies: 1,
    });
    expect(p).toMatchObject({ name: "Local and NAS", minimumCopies: 1 });
    expect(p.adapters.map((x) => x.name)).toEqual(["Local content store", "NAS copy"]);
    const inUse = await failure(api.removeAdapter(a.id));
    expect(inUse).toMatchObject({ status: 409, operation: "storage.adapter.remove", method: "DELETE" });
    expect(inUse.serviceMessage).toMatch(/storage policy/);
    await api.setStoragePolicy({
      name: before.name,
      description: before.description,
      adapters: before.adapters.map((x) => x.id),
    });
    await api.removeAdapter(a.id);
    expect((await api.adapters()).some((x) => x.id === a.id)).toBe(false);
    const forbidden = await failure(curatorApi.addAdapter({ name: "Sneaky", type: "S3" }));
    expect(forbidden).toMatchObject({ status: 403, operation: "storage.adapter.add" });
  });

  it("sets the session lifetime and describes IdP metadata without saving it", async () => {
    const before = await api.authConfiguration();
    expect(await api.setAuthConfiguration({ maxSessionLifetimeMins: 240 })).toEqual({
      maxSessionLifetimeMins: 240,
    });
    expect(await api.authConfiguration()).toEqual({ maxSessionLifetimeMins: 240 });
    await api.setAuthConfiguration(before);
    const idps = await api.describeIdpMetadata(IDP_METADATA);
    expect(idps[0]).toMatchObject({ entityId: "https://idp.example.org/saml" });
    expect(idps[0]?.certificates[0]?.sha256Fingerprint).toBe(IDP_CERT_SHA256);
    const bad = await failure(api.setAuthConfiguration({ maxSessionLifetimeMins: 0 }));
    expect(bad).toMatchObject({ status: 400, operation: "auth.configuration.update" });
  });

  it("applies a migration draft: the live configuration becomes the draft's; a second apply is 409", async () => {
    const [draft] = await api.migrationDrafts();
    const res = await api.applyMigrationDraft(draft?.id as string);
    expect(res.draft).toMatchObject({ id: draft?.id, status: "APPLIED", appliedBy: "manager" });
    expect(res.live.rules.map((r) => r.id)).toEqual(draft?.rules.map((r) => r.id));
    expect((await api.migrationRules()).map((r) => r.id)).toEqual(draft?.rules.map((r) => r.id));
    const again = await failure(api.applyMigrationDraft(draft?.id as string));
    expect(again).toMatchObject({ status: 409, operation: "settings.migration.draft.apply", method: "POST" });
    const unknown = await failure(api.applyMigrationDraft("00000000-0000-4000-8000-000000000000"));
    expect(unknown.status).toBe(404);
  });
});
