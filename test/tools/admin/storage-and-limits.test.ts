import { describe, expect, it } from "vitest";
import { ERAS, textOf } from "../../helpers/mcp.js";
import { authed, login } from "../../helpers/repository.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";
import { expectHiddenFromCurator, FLAGS } from "./support.js";

interface Answer {
  edition: string;
  quota: { quotaBytes: number; usedBytes: number; remainingBytes: number; percentUsed: number };
  limits: { feature: string; limit: number | null; used: number; near: boolean; reached: boolean }[];
  usage: { feature: string; used: number }[];
  nearAnyLimit: boolean;
  policy: { name: string; adapters: string[] };
  adapters: { name: string; enabled: boolean; inPolicy: boolean }[];
  file?: {
    filename: string;
    size: number;
    locations: { name: string; primary: boolean; simulated: boolean }[];
  };
}

describe.each(ERAS)("storage_and_limits (%s)", (era) => {
  const repo = useRepository({ seed: "demo" });
  const mcp = useMcp({ user: "manager", flags: FLAGS, era, repo });

  it("says Yes, with the figure, once storage passes 80% of the quota", async () => {
    const before = (await mcp.raw("storage_and_limits", {})).structuredContent as unknown as Answer;
    const put = authed(repo.url, (await login(repo.url, "manager")).token);
    const setQuota = (quotaBytes: number) =>
      put("/api/storage/quota", {
        method: "PUT",
        body: JSON.stringify({ quotaBytes }),
        headers: { "content-type": "application/json" },
      });
    // 85% used: the administrator lowers the quota (PUT /api/storage/quota) to used / 0.85.
    expect((await setQuota(Math.ceil(before.quota.usedBytes / 0.85))).status).toBe(200);
    try {
      const res = await mcp.raw("storage_and_limits", {});
      const a = res.structuredContent as unknown as Answer;
      expect(a.nearAnyLimit).toBe(true);
      expect(a.limits.find((l) => l.feature === "STORAGE")).toMatchObject({ near: true, reached: false });
      expect(textOf(res).split("\n")[0]).toMatch(/^Yes: Storage at 8\d% .*\(Starter edition\)\.$/);
    } finally {
      expect((await setQuota(before.quota.quotaBytes)).status).toBe(200);
    }
  });

  it("answers 'are we near any limit?' with the numbers, each limit against its usage", async () => {
    const res = await mcp.raw("storage_and_limits", {});
    expect(res.isError).toBeFalsy();
    const a = res.structuredContent as unknown as Answer;
    expect(a.edition).toBe("Starter");
    const q = a.quota;
    expect(q.usedBytes + q.remainingBytes).toBe(q.quotaBytes);
    const storage = a.limits.find((l) => l.feature === "STORAGE");
    expect(storage).toMatchObject({ used: q.usedBytes, limit: q.quotaBytes, near: false });
    expect(a.limits.find((l) => l.feature === "USERS")).toMatchObject({ near: false });
    expect(a.nearAnyLimit).toBe(false);
    expect(a.usage.map((u) => u.feature)).toContain("ASSETS");
    expect(a.policy).toEqual({
      name: "Two copies, one offsite",
      minimumCopies: 2,
      adapters: ["Local content store", "Offsite replica (S3, eu-west-2)"],
    });
    expect(a.adapters.find((x) => x.name.startsWith("Cold tier"))).toMatchObject({
      enabled: false,
      inPolicy: false,
    });
    const text = textOf(res);
    expect(text.split("\n")[0]).toBe("No limit is at 80% or more (Starter edition).");
    expect(text).toContain(
      `Storage quota: ${q.usedBytes.toLocaleString("en")} bytes (${(q.usedBytes / 1024).toFixed(0)} KB) of ${q.quotaBytes.toLocaleString("en")} bytes`,
    );
    expect(text).toMatch(/- Named users: \d+ of 10 \(\d+%\), \d+ left/);
    expect(text).toMatch(/- Cold tier \(Glacier Deep Archive\) \(GLACIER\), disabled, not in the policy/);
  });

  it("says where a file's copies are: the local store holds the bytes, the S3 replica is configured only", async () => {
    const asset = repo.svc.db
      .prepare("SELECT ref FROM entities WHERE type = 'IO' AND title LIKE 'Interview with Margaret Doyle%'")
      .get() as { ref: string };
    const res = await mcp.raw("storage_and_limits", { file: asset.ref });
    expect(res.isError).toBeFalsy();
    const a = res.structuredContent as unknown as Answer;
    expect(a.file?.locations).toEqual([
      expect.objectContaining({ name: "Local content store", primary: true, simulated: false }),
      expect.objectContaining({ name: "Offsite replica (S3, eu-west-2)", primary: false, simulated: true }),
    ]);
    expect(textOf(res)).toMatch(
      /^File “.+” \([\d,]+ bytes; content object [0-9a-f-]+, generation 1, file 1\) is kept in 2 places:/,
    );
    const bad = await mcp.raw("storage_and_limits", { file: "not-a-ref" });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/is not a ref/);
  });

  it("is not listed for a curator, and refused if called anyway", async () => {
    await expectHiddenFromCurator(repo, era, "storage_and_limits");
  });
});
