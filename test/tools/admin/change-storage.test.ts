import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ERAS, textOf } from "../../helpers/mcp.js";
import type { Preview } from "../../helpers/preview.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";
import { configEvents, expectHiddenFromCurator, FLAGS, serviceJson } from "./support.js";

interface Adapter {
  id: string;
  name: string;
  type: string;
  enabled: boolean;
  inPolicy: boolean;
  description?: string | null;
  settings: Record<string, string>;
}
interface Policy {
  name: string;
  minimumCopies: number;
  adapters: { id: string; name: string; primary: boolean }[];
}

const LOCAL = "Local content store";
const OFFSITE = "Offsite replica (S3, eu-west-2)";
const COLD = "Cold tier (Glacier Deep Archive)";

describe.each(ERAS)("change_storage (%s)", (era) => {
  const auditLog = join(tempDir("storage-audit-"), "audit.jsonl");
  const adapters = async () =>
    (await serviceJson<{ adapters: Adapter[] }>(repo, "/api/storage/adapters")).adapters;
  const policy = () => serviceJson<Policy>(repo, "/api/settings/storage/config/policy");
  const files = async () =>
    (await serviceJson<{ bitstreams: { count: number } }>(repo, "/api/storage/quota")).bitstreams.count;

  const repo = useRepository({ seed: "demo" });
  const mcp = useMcp({ user: "manager", flags: [...FLAGS, "--audit-log", auditLog], era, repo });

  it("adds an adapter exactly as previewed (the preview adds nothing), then removes it", async () => {
    const args = {
      action: "add_adapter",
      name: "Azure copy",
      type: "AZURE",
      settings: { container: "archive-copy", tier: "Cool" },
    };
    const before = await adapters();
    const p = await mcp.call<Preview>("change_storage", args);
    expect(p.confirmationRequired.summary).toBe(
      "Add storage adapter “Azure copy” (AZURE), enabled, not in the storage policy",
    );
    expect(p.confirmationRequired.details).toContain('settings: {"container":"archive-copy","tier":"Cool"}');
    expect(await adapters()).toEqual(before);

    const res = await mcp.raw("change_storage", { ...args, confirmation: p.confirmationRequired.token });
    expect(res.isError).toBeFalsy();
    const added = (await adapters()).find((a) => a.name === "Azure copy");
    expect(added).toMatchObject({
      type: "AZURE",
      enabled: true,
      inPolicy: false,
      settings: { container: "archive-copy", tier: "Cool" },
    });
    expect(textOf(res)).toMatch(new RegExp(`^Added storage adapter “Azure copy” ${added?.id}: `));
    expect(textOf(res)).toContain("No file's copies are affected.");

    const rm = { action: "remove_adapter", adapter: added?.id };
    const p2 = await mcp.call<Preview>("change_storage", rm);
    expect(p2.confirmationRequired.summary).toBe(`Remove storage adapter “Azure copy” (AZURE, ${added?.id})`);
    expect(p2.confirmationRequired.details[1]).toBe(
      "It is not in the storage policy, so no file's copies are on it; no file is affected.",
    );
    expect((await adapters()).some((a) => a.id === added?.id)).toBe(true);
    await mcp.call("change_storage", { ...rm, confirmation: p2.confirmationRequired.token });
    expect(await adapters()).toEqual(before);
    const logged = readFileSync(auditLog, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { tool: string; outcome: string; targets: unknown[] })
      .filter((l) => l.tool === "change_storage" && l.outcome === "done");
    expect(logged.map((l) => l.targets)).toEqual([
      [{ ref: `storage-adapter:${added?.id}`, title: "Azure copy" }],
      [{ ref: `storage-adapter:${added?.id}`, title: "Azure copy" }],
    ]);
    const ev = await configEvents(repo, "STORAGE");
    expect(ev.slice(0, 2).map((e) => [e.commandType, e.subject])).toEqual([
      ["DELETE", added?.id],
      ["CREATE", added?.id],
    ]);
  });

  it("enables an adapter and applies a policy with it: the plan shows before → after and every file affected", async () => {
    const enable = { action: "update_adapter", adapter: COLD, enabled: true };
    const p = await mcp.call<Preview>("change_storage", enable);
    expect(p.confirmationRequired.summary).toBe(
      `Change storage adapter “${COLD}” (GLACIER): enabled: false → true`,
    );
    expect((await adapters()).find((a) => a.name === COLD)?.enabled).toBe(false);
    await mcp.call("change_storage", { ...enable, confirmation: p.confirmationRequired.token });
    expect((await adapters()).find((a) => a.name === COLD)?.enabled).toBe(true);

    const old = await policy();
    const n = await files();
    const args = {
      action: "set_policy",
      name: "Three copies",
      adapters: [LOCAL, OFFSITE, COLD],
      minimumCopies: 2,
    };
    const p2 = await mcp.call<Preview>("change_storage", args);
    const plan = p2.confirmationRequired;
    expect(plan.summary).toMatch(
      new RegExp(
        `^Apply storage policy “Three copies”: ${LOCAL} \\(primary\\), Offsite replica \\(S3, eu-west-2\\), Cold tier \\(Glacier Deep Archive\\); at least 2 copies to every one of ${n} files \\(`,
      ),
    );
    expect(plan.details).toEqual([
      `Before: “Two copies, one offsite”: ${LOCAL} (primary), ${OFFSITE}; at least 2 copies.`,
      `After: “Three copies”: ${LOCAL} (primary), ${OFFSITE}, ${COLD}; at least 2 copies.`,
      `Copies added on: “${COLD}”.`,
      `The storage locations of all ${n} files follow it at once.`,
    ]);
    expect(await policy()).toEqual(old);

    const res = await mcp.raw("change_storage", { ...args, confirmation: plan.token });
    expect(res.isError).toBeFalsy();
    const now = await policy();
    expect(now).toMatchObject({ name: "Three copies", minimumCopies: 2 });
    expect(now.adapters.map((a) => a.name)).toEqual([LOCAL, OFFSITE, COLD]);
    expect(res.structuredContent).toMatchObject({ filesAffected: n, policyAfter: { name: "Three copies" } });
    expect(textOf(res)).toContain(`The storage locations of ${n} files follow it.`);

    // Disabling an adapter the policy uses is refused before anything is asked.
    const refused = await mcp.raw("change_storage", {
      action: "update_adapter",
      adapter: COLD,
      enabled: false,
    });
    expect(textOf(refused)).toBe(
      `“${COLD}” is in the storage policy “Three copies”; apply a policy without it (action set_policy) before disabling it.`,
    );
    // Put the demo back.
    const back = { action: "set_policy", name: old.name, adapters: old.adapters.map((a) => a.id) };
    const p3 = await mcp.call<Preview>("change_storage", back);
    expect(p3.confirmationRequired.details).toContain(`Copies no longer kept on: “${COLD}”.`);
    await mcp.call("change_storage", { ...back, confirmation: p3.confirmationRequired.token });
    expect((await policy()).adapters).toEqual(old.adapters);
  });

  it("refuses a stale confirmation: the adapters changed between preview and confirm", async () => {
    const args = { action: "update_adapter", adapter: OFFSITE, description: "Replica in London" };
    const p = await mcp.call<Preview>("change_storage", args);
    const other = await mcp.call<Preview>("change_storage", {
      action: "update_adapter",
      adapter: OFFSITE,
      settings: { bucket: "other-bucket", region: "eu-west-2", storageClass: "STANDARD_IA" },
    });
    await mcp.call("change_storage", {
      action: "update_adapter",
      adapter: OFFSITE,
      settings: { bucket: "other-bucket", region: "eu-west-2", storageClass: "STANDARD_IA" },
      confirmation: other.confirmationRequired.token,
    });
    const res = await mcp.raw("change_storage", { ...args, confirmation: p.confirmationRequired.token });
    expect(res.isError).toBe(true);
    expect((await adapters()).find((a) => a.name === OFFSITE)?.description).not.toBe("Replica in London");
  });

  it("a wrong adapter, the built-in store or one in the policy gives a clear error; nothing changes", async () => {
    const before = await adapters();
    const wrong = await mcp.raw("change_storage", { action: "remove_adapter", adapter: "No such store" });
    expect(wrong.isError).toBe(true);
    expect(textOf(wrong)).toMatch(
      /^No storage adapter "No such store"\. Adapters: “Local content store” [0-9a-f-]{36}/,
    );
    const builtIn = await mcp.raw("change_storage", { action: "remove_adapter", adapter: LOCAL });
    expect(textOf(builtIn)).toBe(
      `“${LOCAL}” is the built-in content store holding every file's bytes; it cannot be removed.`,
    );
    const inPolicy = await mcp.raw("change_storage", { action: "remove_adapter", adapter: OFFSITE });
    expect(textOf(inPolicy)).toBe(
      `“${OFFSITE}” is in the storage policy “Two copies, one offsite”; apply a policy without it first (action set_policy).`,
    );
    const stray = await mcp.raw("change_storage", { action: "remove_adapter", adapter: COLD, name: "x" });
    expect(textOf(stray)).toBe("remove_adapter does not take name; leave them out.");
    expect(await adapters()).toEqual(before);
  });

  it("is not listed for a curator, and refused if called anyway", async () => {
    await expectHiddenFromCurator(repo, era, "change_storage", { action: "remove_adapter", adapter: COLD });
  });
});
