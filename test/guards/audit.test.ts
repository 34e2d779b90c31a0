import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  type AuditEntry,
  AuditLog,
  canonicalJson,
  digestArgs,
  findAuditEntry,
} from "../../src/guards/audit.js";
import { textOf } from "../helpers/mcp.js";
import { DEMO_USERS } from "../helpers/repository.js";
import { tempDir } from "../helpers/temp-dir.js";
import { useMcp, useRepository } from "../helpers/use-mcp.js";

/**
 * The audit log: every write and every refused write, one JSON line each, with the user, the tool, the
 * targets by ref and title, a digest of the arguments, the outcome and the job handle; never a secret.
 */

function entries(file: string): AuditEntry[] {
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as AuditEntry);
}

describe("audit log", () => {
  const dir = tempDir("audit-");
  const file = join(dir, "nested", "audit.jsonl");
  const repo = useRepository({ seed: "demo" });
  const curator = useMcp({ user: "curator", repo, flags: ["--audit-log", file] });
  const reader = useMcp({ user: "reader", repo, flags: ["--audit-log", file] });

  it("appends a write with user, tool, target title, argument digest and outcome", async () => {
    const args = { title: "Audit trail folder", securityTag: "open" };
    const made = await curator.call<{ folder: { ref: string } }>("create_folder", args);
    const last = entries(file).at(-1);
    expect(last).toMatchObject({
      user: "curator",
      tool: "create_folder",
      outcome: "done",
      targets: [{ ref: made.folder.ref, title: "Audit trail folder" }],
      argsDigest: digestArgs(args),
    });
    expect(Date.parse(last?.time ?? "")).toBeGreaterThan(Date.now() - 60_000);
    expect(last?.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await findAuditEntry(file, last?.id ?? "")).toEqual(last);
  });

  it("records a confirmed act with its job (done: the move ended within the tool's wait), and nothing for the preview", async () => {
    const parent = await curator.call<{ folder: { ref: string } }>("create_folder", {
      title: "Series to move",
      securityTag: "open",
    });
    await curator.call("create_folder", { title: "Inside", parent: parent.folder.ref });
    const dest = await curator.call<{ folder: { ref: string } }>("create_folder", {
      title: "New home",
      securityTag: "open",
    });
    const before = entries(file).length;
    const args = { ref: parent.folder.ref, destination: dest.folder.ref };
    const preview = await curator.call<{ confirmationRequired: { token: string } }>("move_entity", args);
    expect(entries(file).length).toBe(before);
    const done = await curator.call<{ job: string }>("move_entity", {
      ...args,
      confirmation: preview.confirmationRequired.token,
    });
    const last = entries(file).at(-1);
    expect(last).toMatchObject({
      tool: "move_entity",
      outcome: "done",
      job: done.job,
      argsDigest: digestArgs(args),
    });
    expect(last?.targets.map((t) => t.title)).toContain("Series to move");
  });

  it("records refusals: a forged token, and the service's 403", async () => {
    const parent = await curator.call<{ folder: { ref: string } }>("create_folder", {
      title: "Refusals",
      securityTag: "open",
    });
    await curator.call("create_folder", { title: "Inside", parent: parent.folder.ref });
    const forged = await curator.raw("move_entity", {
      ref: parent.folder.ref,
      destination: "top",
      confirmation: "pc1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    });
    expect(forged.isError).toBe(true);
    const refused = entries(file).at(-1);
    expect(refused).toMatchObject({ tool: "move_entity", outcome: "refused" });
    expect(refused?.message).toMatch(/not valid.*nothing was changed/);

    // A curator may not re-tag (Change Security Tag is a manager's), so the service refuses: logged as refused.
    const denied = await curator.raw("set_security_tag", { ref: parent.folder.ref, tag: "closed" });
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toMatch(/permission/);
    expect(entries(file).at(-1)).toMatchObject({ tool: "set_security_tag", outcome: "refused" });
  });

  it("never writes a secret, and records nothing for reads", async () => {
    const count = entries(file).length;
    await reader.call("search", { query: "minutes" });
    await curator.call("whoami");
    expect(entries(file).length).toBe(count);
    const text = readFileSync(file, "utf8");
    for (const user of Object.values(DEMO_USERS)) expect(text).not.toContain(user.password);
    expect(text).not.toMatch(/pc1\.[A-Za-z0-9_-]{40,}/);
  });

  it("keeps lines whole under concurrent writes, and digests arguments canonically", async () => {
    const log = new AuditLog(join(dir, "concurrent.jsonl"));
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        log.record({ user: "u", tool: "t", targets: [], argsDigest: `d${i}`, outcome: "done" }),
      ),
    );
    const lines = entries(join(dir, "concurrent.jsonl"));
    expect(lines.map((l) => l.argsDigest).sort()).toEqual(
      Array.from({ length: 50 }, (_, i) => `d${i}`).sort(),
    );
    expect(canonicalJson({ b: 1, a: [2, { d: 3, c: undefined }] })).toBe('{"a":[2,{"d":3}],"b":1}');
    expect(digestArgs({ a: 1, b: 2 })).toBe(digestArgs({ b: 2, a: 1 }));
  });
});
