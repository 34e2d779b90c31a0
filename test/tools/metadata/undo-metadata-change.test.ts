import { randomUUID } from "node:crypto";
import { appendFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { applyFields, DUBLIN_CORE } from "../../../src/api/metadata-build.js";
import { metadataFields } from "../../../src/api/metadata-fields.js";
import { ERAS, textOf } from "../../helpers/mcp.js";
import { confirmed, type Preview } from "../../helpers/preview.js";
import { useMcp } from "../../helpers/use-mcp.js";
import {
  asset,
  assetWithDc,
  auditIdIn,
  fragmentsOf,
  OAI_DC_SCHEMA,
  storeDigest,
  useAuditedCurator,
} from "./support.js";

describe.each(ERAS)("undo_metadata_change (%s)", (era) => {
  const { auditLog, repo, curator } = useAuditedCurator(era);
  const noLog = useMcp({ user: "curator", flags: ["--toolsets", "all"], era, repo });

  it("puts back an overwritten fragment after confirmation, and the undo can itself be undone", async () => {
    const { asset: a, mref } = assetWithDc(repo, { title: "Original", creator: "Clerk" });
    const original = metadataFields(fragmentsOf(repo, a.ref)[0]?.content as string);
    const change = await confirmed(curator, "update_metadata", {
      ref: a.ref,
      fields: { title: "Wrong", creator: null },
    });
    const id = auditIdIn(change.text) as string;
    expect(id).toBeTruthy();

    const before = storeDigest(repo);
    const p = await curator.call<Preview>("undo_metadata_change", { id });
    expect(storeDigest(repo)).toBe(before);
    expect(p.confirmationRequired.summary).toMatch(
      new RegExp(
        `^Put back the oai_dc metadata of asset “Described asset” ${a.ref} as before update_metadata by curator at `,
      ),
    );
    expect(p.confirmationRequired.details).toEqual([
      '  title: "Wrong" → "Original"',
      '  creator: (none) → "Clerk"',
    ]);
    const res = await curator.raw("undo_metadata_change", { id, confirmation: p.confirmationRequired.token });
    expect(res.isError, textOf(res)).toBeFalsy();
    expect(res.structuredContent).toMatchObject({
      ref: a.ref,
      restored: "fragment",
      mref,
      undone: id,
    });
    const now = fragmentsOf(repo, a.ref);
    expect(now.map((f) => f.mref)).toEqual([mref]);
    expect(metadataFields(now[0]?.content as string)).toEqual(original);

    const redo = await confirmed(curator, "undo_metadata_change", { id: auditIdIn(textOf(res)) });
    expect(redo.preview.confirmationRequired.details).toEqual([
      '  title: "Original" → "Wrong"',
      '  creator: "Clerk" → (none)',
    ]);
    expect(metadataFields(fragmentsOf(repo, a.ref)[0]?.content as string).fields).toEqual([
      { name: "title", value: "Wrong" },
    ]);
  });

  it("brings back a deleted fragment", async () => {
    const { asset: a } = assetWithDc(repo, { title: "Keep me", subject: "s" });
    const del = await confirmed(curator, "update_metadata", { ref: a.ref, delete: true });
    expect(fragmentsOf(repo, a.ref)).toEqual([]);
    const undo = await confirmed(curator, "undo_metadata_change", { id: auditIdIn(del.text) });
    expect(undo.preview.confirmationRequired.summary).toMatch(
      /deleted since: it comes back as a new fragment/,
    );
    const now = fragmentsOf(repo, a.ref);
    expect(now).toHaveLength(1);
    expect(now[0]?.schema_uri).toBe(OAI_DC_SCHEMA);
    expect(metadataFields(now[0]?.content as string).fields).toEqual([
      { name: "title", value: "Keep me" },
      { name: "subject", value: "s" },
    ]);
  });

  it("puts back a title and description", async () => {
    const a = asset(repo, "Right title", { description: "Right description" });
    const res = await curator.raw("update_entity", { ref: a.ref, title: "Wrong title", description: "" });
    const undo = await confirmed(curator, "undo_metadata_change", { id: auditIdIn(textOf(res)) });
    expect(undo.preview.confirmationRequired.details).toEqual([
      '  title: "Wrong title" → "Right title"',
      '  description: (none) → "Right description"',
    ]);
    const got = await curator.call<{ entity: { title: string; description?: string } }>("get_entity", {
      ref: a.ref,
    });
    expect(got.entity).toMatchObject({ title: "Right title", description: "Right description" });
  });

  it("reads entries written in the log's format by any server, and refuses a stale confirmation", async () => {
    const a = asset(repo, "Handwritten");
    const xml = applyFields(DUBLIN_CORE, undefined, { title: "From the log" });
    const id = randomUUID();
    appendFileSync(
      auditLog,
      `${JSON.stringify({ id, time: "2026-01-02T03:04:05.000Z", user: "manager", tool: "update_metadata", targets: [{ ref: a.ref, title: a.title }], argsDigest: "sha256:0", outcome: "done", previous: { ref: a.ref, entityType: "IO", fragment: { schema: OAI_DC_SCHEMA, xml } } })}\n`,
    );
    const p = await curator.call<Preview>("undo_metadata_change", { id });
    expect(p.confirmationRequired.summary).toMatch(
      /as before update_metadata by manager at 2026-01-02T03:04:05.000Z/,
    );
    // A fragment of the schema appears after the preview: the confirmation no longer holds.
    expect(
      (await curator.raw("update_metadata", { ref: a.ref, fields: { title: "Meanwhile" } })).isError,
    ).toBeFalsy();
    const stale = await curator.raw("undo_metadata_change", {
      id,
      confirmation: p.confirmationRequired.token,
    });
    expect(stale.isError).toBe(true);
    expect(textOf(stale)).toMatch(/changed since the preview; nothing was changed/);
  });

  it("explains what it cannot undo, and needs an audit log", async () => {
    const a = asset(repo);
    const add = await curator.raw("update_metadata", { ref: a.ref, fields: { title: "Added" } });
    expect(add.isError).toBeFalsy();
    const entries = (await import("node:fs")).readFileSync(auditLog, "utf8").trim().split("\n");
    const addId = (JSON.parse(entries.at(-1) as string) as { id: string }).id;
    expect(textOf(await curator.raw("undo_metadata_change", { id: addId }))).toMatch(
      /kept no earlier state to put back \(a fragment that was added is removed with `update_metadata` and `delete: true`\)/,
    );
    const unknown = randomUUID();
    expect(textOf(await curator.raw("undo_metadata_change", { id: unknown }))).toBe(
      `The audit log has no entry ${unknown}. Nothing was changed.`,
    );
    // Without an audit log there is nothing to undo from: the tool is not offered.
    expect((await noLog.client.listTools()).tools.map((t) => t.name)).not.toContain("undo_metadata_change");
    expect(textOf(await curator.raw("undo_metadata_change", { id: "last one" }))).toMatch(/UUID/);
  });
});
