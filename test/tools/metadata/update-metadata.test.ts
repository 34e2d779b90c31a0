import { describe, expect, it } from "vitest";
import { addFragment } from "../../../repository/store/entities/write.js";
import { metadataFields } from "../../../src/api/metadata-fields.js";
import { ERAS, textOf } from "../../helpers/mcp.js";
import type { Preview } from "../../helpers/preview.js";
import { useMcp } from "../../helpers/use-mcp.js";
import {
  asset,
  assetWithDc,
  auditIdIn,
  auditLines,
  fragmentsOf,
  HOSTILE,
  OAI_DC_SCHEMA,
  storeDigest,
  useAuditedCurator,
} from "./support.js";

interface Answer {
  ref: string;
  title: string;
  schema: string;
  schemaName: string;
  mref?: string;
  action: string;
  changes: { field: string; before: string[]; after: string[] }[];
}
interface Fields {
  fields: { name: string; value: string }[];
}

describe.each(ERAS)("update_metadata (%s)", (era) => {
  const { auditLog, repo, curator } = useAuditedCurator(era);
  const reader = useMcp({ user: "reader", flags: ["--toolsets", "all"], era, repo });
  const manager = useMcp({ user: "manager", flags: ["--toolsets", "all"], era, repo });

  const readBack = async (ref: string, schema = "oai_dc") =>
    (await curator.call<Fields>("read_metadata", { ref, schema })).fields;

  it("adds Dublin Core to an entity that has none without asking, hostile values escaped", async () => {
    const a = asset(repo);
    const res = await curator.raw("update_metadata", {
      ref: a.ref,
      fields: { title: HOSTILE, creator: ["Town clerk", "A & B"], subject: "harbour" },
    });
    expect(res.isError, textOf(res)).toBeFalsy();
    const out = res.structuredContent as unknown as Answer;
    expect(out).toMatchObject({ ref: a.ref, schema: OAI_DC_SCHEMA, schemaName: "oai_dc", action: "added" });
    expect(out.mref).toBe(fragmentsOf(repo, a.ref)[0]?.mref);
    expect(textOf(res)).toContain(
      `Added oai_dc metadata (fragment ${out.mref}) to asset “Minute book” ${a.ref}:`,
    );
    expect(textOf(res)).toContain(`title: (none) → "${HOSTILE}"`);
    expect(textOf(res)).not.toMatch(/Audit entry/); // nothing to put back
    expect(await readBack(a.ref)).toEqual([
      { name: "title", value: HOSTILE },
      { name: "creator", value: "Town clerk" },
      { name: "creator", value: "A & B" },
      { name: "subject", value: "harbour" },
    ]);
  });

  it("previews an overwrite without changing anything, then changes exactly the fields shown", async () => {
    const { asset: a, mref } = assetWithDc(repo, { title: "Old title", creator: "Clerk", rights: "Open" });
    const args = { ref: a.ref, fields: { title: "New <title>", rights: null, date: "1851" } };
    const before = storeDigest(repo);
    const p = await curator.call<Preview>("update_metadata", args);
    expect(storeDigest(repo)).toBe(before);
    expect(p.confirmationRequired.summary).toBe(
      `Overwrite the oai_dc metadata (fragment ${mref}) of asset “Described asset” ${a.ref}`,
    );
    expect(p.confirmationRequired.details).toEqual([
      '  title: "Old title" → "New <title>"',
      '  date: (none) → "1851"',
      '  rights: "Open" → (none)',
    ]);
    const oldXml = fragmentsOf(repo, a.ref)[0]?.content;

    const res = await curator.raw("update_metadata", { ...args, confirmation: p.confirmationRequired.token });
    expect(res.isError, textOf(res)).toBeFalsy();
    expect((res.structuredContent as unknown as Answer).action).toBe("updated");
    expect(await readBack(a.ref)).toEqual([
      { name: "title", value: "New <title>" },
      { name: "creator", value: "Clerk" },
      { name: "date", value: "1851" },
    ]);
    expect(fragmentsOf(repo, a.ref).map((f) => f.mref)).toEqual([mref]);
    // The previous document is in the audit log, under the id the answer gives.
    const id = auditIdIn(textOf(res));
    const entry = auditLines(auditLog).find((l) => l.id === id);
    expect(entry).toMatchObject({
      tool: "update_metadata",
      outcome: "done",
      targets: [{ ref: a.ref, title: "Described asset" }],
      previous: { ref: a.ref, entityType: "IO", fragment: { schema: OAI_DC_SCHEMA, mref } },
    });
    // The document as the service gave it (which may undeclare its own default namespace: xmlns="").
    const kept = (entry as { previous: { fragment: { xml: string } } }).previous.fragment.xml;
    expect(metadataFields(kept)).toEqual(metadataFields(oldXml as string));
    // The token was for that one act.
    const again = await curator.raw("update_metadata", {
      ...args,
      confirmation: p.confirmationRequired.token,
    });
    expect(again.isError).toBe(true);
  });

  it("refuses a confirmation when the fragment changed after the preview", async () => {
    const { asset: a, mref } = assetWithDc(repo, { title: "T", creator: "C" });
    const args = { ref: a.ref, fields: { creator: "D" } };
    const p = await curator.call<Preview>("update_metadata", args);
    repo.svc.db
      .prepare("UPDATE metadata_fragments SET content = replace(content, 'T', 'U') WHERE mref = ?")
      .run(mref);
    const changed = storeDigest(repo);
    const res = await curator.raw("update_metadata", { ...args, confirmation: p.confirmationRequired.token });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toMatch(/changed since the preview; nothing was changed/);
    expect(storeDigest(repo)).toBe(changed);
  });

  it("deletes a fragment after confirmation, showing what it held", async () => {
    const { asset: a, mref } = assetWithDc(repo, { title: "Doomed", subject: "x" });
    const p = await curator.call<Preview>("update_metadata", { ref: a.ref, delete: true });
    expect(p.confirmationRequired.summary).toMatch(/^Delete the oai_dc metadata/);
    expect(p.confirmationRequired.details).toContain('  title: "Doomed" → (none)');
    expect(fragmentsOf(repo, a.ref)).toHaveLength(1);
    const res = await curator.raw("update_metadata", {
      ref: a.ref,
      delete: true,
      confirmation: p.confirmationRequired.token,
    });
    expect(textOf(res)).toContain(`Deleted oai_dc metadata (fragment ${mref})`);
    expect(fragmentsOf(repo, a.ref)).toEqual([]);
    const got = await curator.call<{ metadata: unknown[] }>("get_entity", { ref: a.ref });
    expect(got.metadata).toEqual([]);
  });

  it("replaces a fragment with whole XML, and adds one of a schema the entity lacks", async () => {
    const { asset: a } = assetWithDc(repo, { title: "DC stays" });
    const xml = `<?xml version="1.0"?>\n<accession xmlns="urn:example:accession"><number>A &amp; 1</number><extent>2 boxes</extent></accession>`;
    const res = await curator.raw("update_metadata", { ref: a.ref, xml });
    expect(res.isError, textOf(res)).toBeFalsy();
    expect(res.structuredContent).toMatchObject({ action: "added", schema: "urn:example:accession" });
    expect(fragmentsOf(repo, a.ref).map((f) => f.schema_uri)).toEqual([
      OAI_DC_SCHEMA,
      "urn:example:accession",
    ]);
    expect(await readBack(a.ref, "urn:example:accession")).toEqual([
      { name: "number", value: "A & 1" },
      { name: "extent", value: "2 boxes" },
    ]);
    // That schema has no field list of its own, but its document does: fields follow it.
    const p = await curator.call<Preview>("update_metadata", {
      ref: a.ref,
      schema: "urn:example:accession",
      fields: { extent: "3 boxes" },
    });
    expect(p.confirmationRequired.details).toEqual(['  extent: "2 boxes" → "3 boxes"']);
  });

  it("fills a metadata group's fields by the group's name, checking its rules", async () => {
    await manager.deps.session.http.request({
      method: "POST",
      path: "/api/metadata/groups/",
      body: JSON.stringify({
        name: `Condition ${era}`,
        fields: [
          { id: "grade", name: "Grade", values: ["good", "poor"] },
          { id: "note", name: "Note", maxOccurs: -1 },
        ],
      }),
      headers: { "content-type": "application/json" },
      operation: "test.group",
      idempotent: false,
    });
    const a = asset(repo);
    const bad = await curator.raw("update_metadata", {
      ref: a.ref,
      schema: `Condition ${era}`,
      fields: { grade: "lost" },
    });
    expect(textOf(bad)).toMatch(/grade must be one of: good, poor \(not "lost"\)\. Nothing was changed\./);
    const res = await curator.raw("update_metadata", {
      ref: a.ref,
      schema: `condition ${era}`,
      fields: { note: ["torn", "<foxed>"], grade: "poor" },
    });
    expect(res.isError, textOf(res)).toBeFalsy();
    const f = fragmentsOf(repo, a.ref)[0];
    expect(f?.schema_uri).toMatch(/\/metadata\/group\/condition_/);
    expect(metadataFields(f?.content as string)).toMatchObject({
      root: expect.stringMatching(/^condition_/),
      fields: [
        { name: "grade", value: "poor" },
        { name: "note", value: "torn" },
        { name: "note", value: "<foxed>" },
      ],
    });
  });

  it("says what to do for unknown fields, missing fragments, wrong refs and bad XML, changing nothing", async () => {
    const { asset: a } = assetWithDc(repo, { title: "Safe" });
    const before = storeDigest(repo);
    const unknown = await curator.raw("update_metadata", { ref: a.ref, fields: { colour: "red" } });
    expect(textOf(unknown)).toMatch(
      /"colour" is not a field of .*oai_dc.*; its fields: title, creator, subject/,
    );
    const none = await curator.raw("update_metadata", { ref: a.ref, schema: "urn:nothing", delete: true });
    expect(textOf(none)).toMatch(/has no urn:nothing fragment to delete/);
    const missing = await curator.raw("update_metadata", {
      ref: "11111111-2222-4333-8444-555555555555",
      fields: { title: "x" },
    });
    expect(textOf(missing)).toMatch(/^Nothing with ref 11111111-2222-4333-8444-555555555555 exists/);
    const notRef = await curator.raw("update_metadata", { ref: "Minute book", fields: { title: "x" } });
    expect(textOf(notRef)).toMatch(/is not a ref/);
    const broken = await curator.raw("update_metadata", { ref: a.ref, xml: "<a><b></a>" });
    expect(textOf(broken)).toMatch(/not well-formed XML.*Nothing was changed/);
    const wrongNs = await curator.raw("update_metadata", { ref: a.ref, schema: "oai_dc", xml: "<dc/>" });
    expect(textOf(wrongNs)).toMatch(/root element is in no namespace/);
    const two = await curator.raw("update_metadata", { ref: a.ref, fields: { title: "x" }, delete: true });
    expect(textOf(two)).toMatch(/exactly one of `fields`/);
    const control = await curator.raw("update_metadata", { ref: a.ref, fields: { title: "bell\u0007" } });
    expect(textOf(control)).toMatch(/U\+0007/);
    expect(storeDigest(repo)).toBe(before);
    // Several fragments of one schema: which one must be said.
    addFragment(repo.svc.db, a.ref, OAI_DC_SCHEMA, `<oai_dc:dc xmlns:oai_dc="${OAI_DC_SCHEMA}"/>`);
    const several = await curator.raw("update_metadata", { ref: a.ref, fields: { title: "x" } });
    expect(textOf(several)).toMatch(/has 2 fragments of "oai_dc"; pass mref/);
  });

  it("is not offered to a reader", async () => {
    const names = (await reader.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("read_metadata");
    expect(names).not.toContain("update_metadata");
  });
});
