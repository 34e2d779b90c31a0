import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ALL_TOOLS } from "../../src/tools/index.js";
import { textOf } from "../helpers/mcp.js";
import { tempDir } from "../helpers/temp-dir.js";
import { useMcp } from "../helpers/use-mcp.js";
import { DEMO } from "./discovery/demo-facts.js";
import { missingFacts } from "./discovery/text-facts.js";

/**
 * The answer policy's first rule for every read tool in the registry: each scalar fact of the structured
 * content a person acts on (exact sizes, fixity values in full, refs, titles, paths, dates, users) is also
 * in the text, since some clients pass only the text to the model. Every read-only tool must have a call
 * below (a new one fails the first test until it is added), run on the demo collection as a manager.
 *
 * The allow-list: keys that are for programs only, and why.
 */
const FOR_PROGRAMS = [
  "uri", // resource URIs: handles for programs, also sent as resource links
  "hasMore", // paging flag: the text says "more: call again with cursor …"
  "nextCursor", // opaque paging handle: the text carries it where it says how to go on
  "type", // entity kinds as codes (IO, SO, CO): the text says them in words
  "schema", // schema URIs: the text names a schema by its short name
  "direction", // link direction code: the text words it ("links to", "linked from")
  "properties.puid", // a technical property's registry code (prp/3): the text names the property ("Image Width")
];

/** One or more calls per read tool, with keys that tool may leave out of its text and why. */
const CALLS: Record<string, { args: Record<string, unknown>; programOnly?: string[] }[]> = {
  search: [{ args: { query: "harbour", limit: 10 } }],
  browse: [{ args: { ref: DEMO.refs.photographs } }, { args: {} }],
  get_entity: [
    {
      args: {
        ref: DEMO.refs.pngAsset,
        include: ["path", "identifiers", "metadata", "files", "links", "events"],
      },
    },
  ],
  read_metadata: [{ args: { ref: DEMO.refs.pngAsset } }],
  get_file: [{ args: { ref: DEMO.refs.pngAsset } }, { args: { ref: DEMO.refs.textAsset } }],
  find_by_identifier: [{ args: { value: "HTA/PH/the-north-quay-at-low-tide-1890" } }],
  list_events: [{ args: { limit: 10 }, programOnly: ["touched.type"] }],
  list_changes: [{ args: { since: "2025-01", limit: 10 } }],
  whoami: [{ args: {} }],
  // The demo's bin is empty: the text says so in words ("empty"), not "0".
  recycle_bin: [{ args: {}, programOnly: ["total"] }],
  list_retention_policies: [{ args: {} }],
  list_metadata_groups: [{ args: {} }],
  get_retention: [{ args: { ref: DEMO.refs.pngAsset } }],
  processes: [{ args: {} }],
  // Scope as a code: the text says "only your own" when the list is not everyone's.
  audit_log: [{ args: {}, programOnly: ["scope"] }],
  workflows: [{ args: {} }],
  users_and_access: [{ args: {} }],
  // Feature and unit codes (STORAGE, count): the text names each limit in words ("Storage", "Named users").
  storage_and_limits: [{ args: {}, programOnly: ["feature", "unit"] }],
  // The service's raw change record (clipped JSON): the text says each change in words.
  configuration_history: [{ args: {}, programOnly: ["details"] }],
  migration_policy: [{ args: {} }],
  // Migration actions as codes (MIGRATE, RETAIN): the text words them ("migrate to fmt/353", "retain").
  format_registry: [{ args: {} }, { args: { puid: "fmt/11" }, programOnly: ["action"] }],
};

const READ_TOOLS = ALL_TOOLS.filter((t) => t.annotations.readOnlyHint === true).map((t) => t.name);

describe("every read tool's text carries the facts of its structured content", () => {
  const folder = tempDir("pmcp-answer-text-");
  const mcp = useMcp({
    user: "manager",
    flags: ["--toolsets", "all"],
    env: { PRESERVATION_AUDIT_LOG: join(folder, "audit.jsonl") },
  });
  beforeAll(async () => {
    // One change through the assistant, so audit_log has an entry to show.
    await mcp.call("update_entity", { ref: DEMO.refs.textAsset, title: "Harbour master's journal, 1852" });
  });

  it("every read tool of the registry has a call here", () => {
    expect(READ_TOOLS.filter((name) => !(name in CALLS))).toEqual([]);
  });

  it.each(READ_TOOLS.filter((name) => name in CALLS))("%s", async (name) => {
    for (const call of CALLS[name] ?? []) {
      const res = await mcp.raw(name, call.args);
      expect(res.isError, textOf(res)).toBeFalsy();
      const missing = missingFacts(res.structuredContent, textOf(res), [
        ...FOR_PROGRAMS,
        ...(call.programOnly ?? []),
      ]);
      expect(missing, `${name} ${JSON.stringify(call.args)}`).toEqual([]);
    }
  });
});
