import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEMO_METADATA_GROUP } from "../../../repository/seed/metadata-groups.js";
import type { RunningRepository } from "../../../repository/server.js";
import { ERAS, textOf } from "../../helpers/mcp.js";
import { confirmed, type Preview } from "../../helpers/preview.js";
import { authed, login } from "../../helpers/repository.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";
import { expectHiddenFromCurator, FLAGS } from "../admin/support.js";

interface Answer {
  group: { id: string; name: string; schemaUri: string; fields: { id: string; values?: string[] }[] };
}

/** The group as the service has it now (its JSON), or undefined when it is gone. */
async function groupOnWire(
  repo: RunningRepository,
  id: string,
): Promise<Record<string, unknown> | undefined> {
  const get = authed(repo.url, (await login(repo.url, "manager")).token);
  const res = await get(`/api/metadata/groups/${id}`);
  return res.status === 404 ? undefined : ((await res.json()) as Record<string, unknown>);
}

describe.each(ERAS)("manage_metadata_group (%s)", (era) => {
  const auditLog = join(tempDir("groups-audit-"), "audit.jsonl");

  const repo = useRepository({ seed: "demo" });
  const mcp = useMcp({ user: "manager", flags: [...FLAGS, "--audit-log", auditLog], era, repo });

  /** Calls with the arguments, lets `check` look at the preview (nothing changed yet), then confirms. */
  const confirm = (args: Record<string, unknown>, check?: (p: Preview) => Promise<void> | void) =>
    confirmed<Answer>(mcp, "manage_metadata_group", args, check);

  it("creates a group after a preview that changes nothing; a CSV edit can use it at once; audited", async () => {
    const name = `Digitisation ${era}`;
    const args = {
      action: "create",
      name,
      description: "Scanning status",
      fields: [
        { id: "status", name: "Status", values: ["To scan", "Scanned"] },
        { id: "scanned_on", type: "DATE" },
      ],
    };
    const { answer, text } = await confirm(args, async (p) => {
      expect(p.confirmationRequired.summary).toBe(`Create metadata group "${name}" with 2 field(s)`);
      expect(p.confirmationRequired.details).toEqual([
        '  status "Status" STRING one of To scan, Scanned',
        '  scanned_on "scanned_on" DATE',
      ]);
      const listed = await mcp.call<{ groups: { name: string }[] }>("list_metadata_groups");
      expect(listed.groups.map((g) => g.name)).not.toContain(name);
    });
    const slug = `digitisation_${era.replaceAll("-", "_")}`;
    expect(answer.group).toMatchObject({
      name,
      schemaUri: `http://www.preservica.com/metadata/group/${slug}`,
    });
    expect(text).toContain(`CSV column "${answer.group.schemaUri};/ns:${slug}/ns:status"`);
    const wire = await groupOnWire(repo, answer.group.id);
    expect(wire?.fields).toEqual([
      expect.objectContaining({ id: "status", values: ["To scan", "Scanned"], type: "STRING" }),
      expect.objectContaining({ id: "scanned_on", type: "DATE" }),
    ]);

    const asset = (await mcp.call<{ hits: { ref: string }[] }>("search", { query: "Harbour", type: "asset" }))
      .hits[0]?.ref;
    const dry = await mcp.raw("csv_metadata_edit", {
      csv: `"PRESERVICA_ENTITY_REF","${answer.group.schemaUri};/ns:${slug}/ns:status"\n"${asset}","Scanned"\n`,
    });
    expect(dry.isError, textOf(dry)).toBeFalsy();

    const logged = readFileSync(auditLog, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(logged).toContainEqual(
      expect.objectContaining({
        tool: "manage_metadata_group",
        outcome: "done",
        targets: [{ ref: answer.group.id, title: name }],
      }),
    );
  });

  it("adds, changes and removes fields, keeping what it does not set, and renames; the schema URI stays", async () => {
    const name = `Survey ${era}`;
    const made = await confirm({
      action: "create",
      name,
      fields: [{ id: "grade" }, { id: "note", type: "LONGSTRING" }],
    });
    const { answer, preview } = await confirm({
      action: "update",
      group: name,
      name: `${name} (2026)`,
      fields: [{ id: "grade", values: ["A", "B", "C"] }, { id: "surveyor" }],
      removeFields: ["note"],
    });
    expect(preview.confirmationRequired.details).toEqual([
      `  name "${name}" → "${name} (2026)"`,
      '  field grade "grade" STRING → grade "grade" STRING one of A, B, C',
      '  add field surveyor "surveyor" STRING',
      '  remove field note "note" LONGSTRING',
      "Its schema URI stays; documents already written keep their values (a removed field's values stay in them).",
    ]);
    expect(answer.group.schemaUri).toBe(made.answer.group.schemaUri);
    expect(answer.group.fields.map((f) => f.id)).toEqual(["grade", "surveyor"]);
    const wire = await groupOnWire(repo, made.answer.group.id);
    expect(wire?.name).toBe(`${name} (2026)`);
    expect((wire?.fields as { id: string; indexed: unknown }[] | undefined)?.[0]).toMatchObject({
      id: "grade",
      indexed: true,
    });
  });

  it("refuses a stale confirmation (the group changed after the preview), then deletes once confirmed afresh", async () => {
    const name = `Temporary ${era}`;
    const made = await confirm({ action: "create", name, fields: [{ id: "x" }] });
    const p = await mcp.call<Preview>("manage_metadata_group", { action: "delete", group: name });
    await confirm({ action: "update", group: name, description: "changed meanwhile" });
    const res = await mcp.raw("manage_metadata_group", {
      action: "delete",
      group: name,
      confirmation: p.confirmationRequired.token,
    });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toContain("changed since the preview; nothing was changed");
    expect(await groupOnWire(repo, made.answer.group.id)).toBeDefined();

    const { text } = await confirm({ action: "delete", group: made.answer.group.id });
    expect(text).toBe(`Deleted metadata group "${name}" (id ${made.answer.group.id}).`);
    expect(await groupOnWire(repo, made.answer.group.id)).toBeUndefined();
  });

  it("says what to do with bad input, changing nothing", async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ action: "create", name: "Location and condition", fields: [{ id: "a" }] }, /exists already \(id /],
      [{ action: "create", name: "No fields" }, /at least one field/],
      [{ action: "create", name: "Twice", fields: [{ id: "a" }, { id: "a" }] }, /given twice: a/],
      [
        { action: "update", group: "Nope" },
        /No metadata group "Nope"; the groups are "Location and condition"/,
      ],
      [
        { action: "update", group: DEMO_METADATA_GROUP.id, removeFields: ["nope"] },
        /has no field nope; its fields are box, shelf/,
      ],
      [{ action: "update", group: DEMO_METADATA_GROUP.name }, /already says that; nothing to change/],
      [{ action: "delete", group: DEMO_METADATA_GROUP.name, name: "x" }, /delete takes only `group`/],
    ];
    for (const [args, message] of cases) {
      const res = await mcp.raw("manage_metadata_group", args);
      expect(res.isError, JSON.stringify(args)).toBe(true);
      expect(textOf(res)).toMatch(message);
    }
    expect((await groupOnWire(repo, DEMO_METADATA_GROUP.id))?.name).toBe("Location and condition");
  });

  it("is neither listed for nor run by a curator", async () => {
    await expectHiddenFromCurator(repo, era, "manage_metadata_group", { action: "delete", group: "x" });
  });
});
