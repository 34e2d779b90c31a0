import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { insertEntity } from "../../repository/store/entities/write.js";
import { ServiceError } from "../../src/api/errors.js";
import { RetentionApi, retentionExpiry } from "../../src/api/retention.js";
import { Session } from "../../src/session/session.js";
import { DEMO_USERS, startTestRepository } from "../helpers/repository.js";
import { createPolicy } from "../tools/retention/fixtures.js";

describe("Retention API client", () => {
  let repo: RunningRepository;
  let session: Session;
  let api: RetentionApi;
  let yearly: string;
  let forever: string;

  beforeAll(async () => {
    repo = await startTestRepository({ seed: "none" });
    session = new Session({ url: repo.url, ...DEMO_USERS.manager, keepAlive: false });
    api = new RetentionApi(session.http);
    yearly = await createPolicy(repo, {
      name: "Api yearly",
      period: 7,
      unit: "YEARS",
      startDateField: "xip.created",
    });
    forever = await createPolicy(repo, { name: "Api forever" });
  });
  afterAll(async () => {
    await session.close();
    await repo.close();
  });

  it("lists policies with a total and reads one in full", async () => {
    const page = await api.policies();
    expect(page.total).toBeGreaterThanOrEqual(2);
    expect(page.items).toContainEqual({ ref: yearly, name: "Api yearly" });
    const p = await api.policy(yearly);
    expect(p).toMatchObject({
      ref: yearly,
      name: "Api yearly",
      description: "About Api yearly",
      securityTag: "open",
      startDateField: "xip.created",
      period: 7,
      periodUnit: "YEARS",
      expiryAction: "REVIEW",
      restriction: "DELETE",
      assignable: true,
    });
    const f = await api.policy(forever);
    expect(f.period).toBeUndefined();
    expect(f.startDateField).toBeUndefined();
  });

  it("pages through every policy", async () => {
    const all = await api.allPolicies();
    expect(all.items.map((p) => p.ref)).toEqual(expect.arrayContaining([yearly, forever]));
    expect(all.items.length).toBe(all.total);
  });

  it("assigns, lists and removes an assignment, and the asset's list follows", async () => {
    const created = "2020-02-29T10:00:00.000Z";
    const asset = insertEntity(repo.svc.db, { type: "IO", title: "Ledger", securityTag: "open", created });
    expect((await api.assignments(asset.ref)).items).toEqual([]);
    const a = await api.assign(asset.ref, yearly);
    expect(a).toMatchObject({ entityRef: asset.ref, policyRef: yearly, expired: false });
    expect(a.apiId).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.startDate?.slice(0, 10)).toBe("2020-02-29");
    const listed = await api.assignments(asset.ref);
    expect(listed.total).toBe(1);
    expect(listed.items).toEqual([a]);
    await api.removeAssignment(asset.ref, a.apiId);
    expect((await api.assignments(asset.ref)).total).toBe(0);
  });

  it("reports the service's refusals as ServiceErrors with method and path", async () => {
    const asset = insertEntity(repo.svc.db, { type: "IO", title: "Twice", securityTag: "open" });
    await api.assign(asset.ref, forever);
    const again = await api.assign(asset.ref, forever).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(ServiceError);
    expect(again).toMatchObject({ status: 409, method: "POST", operation: "retention.assign" });
    const unknownPolicy = await api.assign(asset.ref, crypto.randomUUID()).catch((e: unknown) => e);
    expect(unknownPolicy).toMatchObject({ status: 404 });
    const unknownAsset = await api.assignments(crypto.randomUUID()).catch((e: unknown) => e);
    expect(unknownAsset).toMatchObject({ status: 404, operation: "retention.assignments" });
    const noSuch = await api.removeAssignment(asset.ref, crypto.randomUUID()).catch((e: unknown) => e);
    expect(noSuch).toMatchObject({ status: 404, method: "DELETE" });
    await expect(api.policy("not a ref")).rejects.toThrow(/Not a valid retention policy reference/);
  });

  it("computes expiry as the service does: calendar years and months, none without a period", () => {
    expect(retentionExpiry("2020-02-29T10:00:00.000Z", { period: 1, periodUnit: "YEARS" })).toBe(
      "2021-03-01T10:00:00.000Z",
    );
    expect(retentionExpiry("2024-01-31T00:00:00.000Z", { period: 2, periodUnit: "WEEKS" })).toBe(
      "2024-02-14T00:00:00.000Z",
    );
    expect(retentionExpiry("2024-01-15T00:00:00.000Z", { period: 3, periodUnit: "MONTHS" })).toBe(
      "2024-04-15T00:00:00.000Z",
    );
    expect(retentionExpiry("2024-01-15T00:00:00.000Z", {})).toBeUndefined();
    expect(retentionExpiry(undefined, { period: 1, periodUnit: "DAYS" })).toBeUndefined();
  });
});
