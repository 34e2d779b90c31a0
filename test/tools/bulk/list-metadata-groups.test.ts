import { describe, expect, it } from "vitest";
import { DEMO_METADATA_GROUP } from "../../../repository/seed/metadata-groups.js";
import { ERAS, textOf } from "../../helpers/mcp.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";

interface Answer {
  groups: {
    id: string;
    name: string;
    schemaUri: string;
    fields: { id: string; type: string; values?: string[]; column: string }[];
  }[];
  total: number;
}

const COLUMN = `${DEMO_METADATA_GROUP.schemaUri};/ns:location_and_condition/ns:condition`;

describe("list_metadata_groups on an empty repository", () => {
  const mcp = useMcp({ seed: "none", user: "curator", flags: ["--toolsets", "all"] });

  it("says there are none and who makes them", async () => {
    const res = await mcp.raw("list_metadata_groups", {});
    expect(res.structuredContent).toEqual({ groups: [], total: 0 });
    expect(textOf(res)).toBe("No metadata groups (a manager creates them with `manage_metadata_group`).");
  });
});

// Nothing here writes (a CSV edit only as a dry run): both eras read one repository.
const repo = useRepository({ seed: "demo" });

describe.each(ERAS)("list_metadata_groups (%s)", (era) => {
  // A curator lists groups: CSV edits are theirs to make.
  const mcp = useMcp({ user: "curator", flags: ["--toolsets", "all"], repo, era });

  it("lists the demo group with each field's type, allowed values and CSV column, in text too", async () => {
    const res = await mcp.raw("list_metadata_groups", {});
    const a = res.structuredContent as unknown as Answer;
    expect(a.total).toBe(1);
    expect(a.groups[0]).toMatchObject({ id: DEMO_METADATA_GROUP.id, name: "Location and condition" });
    expect(a.groups[0]?.fields.map((f) => [f.id, f.type])).toEqual([
      ["box", "STRING"],
      ["shelf", "STRING"],
      ["condition", "STRING"],
      ["surveyed", "DATE"],
    ]);
    expect(a.groups[0]?.fields[2]).toMatchObject({
      values: ["Good", "Fair", "Poor", "Fragile"],
      column: COLUMN,
    });
    const text = textOf(res);
    expect(text).toContain(
      `condition "Condition" STRING one of "Good", "Fair", "Poor", "Fragile"; CSV column "${COLUMN}"`,
    );
    expect(text).toContain('"PRESERVICA_ENTITY_REF"');
  });

  it("gives columns a CSV dry run accepts", async () => {
    const ref = (
      await mcp.call<{ hits: { ref: string }[] }>("search", { query: "Harbour Board", type: "asset" })
    ).hits[0]?.ref;
    const res = await mcp.raw("csv_metadata_edit", {
      csv: `"PRESERVICA_ENTITY_REF","${COLUMN}"\n"${ref}","Fragile"\n`,
      mode: "dry_run",
    });
    expect(res.isError, textOf(res)).toBeFalsy();
    expect(textOf(res)).toContain("Fragile");
  });
});
