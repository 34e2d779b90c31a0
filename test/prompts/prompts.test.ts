import { ProtocolErrorCode } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { recentWeekEndings, weekOf } from "../../src/prompts/weekly-operations-report.js";
import { assetUri, folderUri } from "../../src/resources/uris.js";
import { ERAS, type McpHarness, textOf } from "../helpers/mcp.js";
import { useMcp, useRepository } from "../helpers/use-mcp.js";
import { DEMO, entity } from "../tools/discovery/demo-facts.js";

/**
 * The prompts through a real MCP client in both protocol eras, against the demo repository: listed with
 * their arguments, filled in with the real title, naming only tools the session lists (and saying what was
 * skipped otherwise), arguments completed by title, bad refs refused with a message that says what to do.
 */

const FOLDER = DEMO.refs.councilMinutesSeries;
const ASSET = DEMO.refs.councilMinutes1851;
const NAMES = ["collection_overview", "curation_review", "ingest_checklist", "weekly_operations_report"];

type Message = { role: string; content: { type: string; text?: string; uri?: string; name?: string } };

/** Every `tool` with {json} line of a prompt whose arguments hold no <placeholder>. */
function concreteCalls(text: string): { tool: string; args: Record<string, unknown> }[] {
  return [...text.matchAll(/`(\w+)` with (\{.*?\})(?=\.\s|\.$| \(|$)/gm)]
    .filter((m) => !(m[2] as string).includes("<"))
    .map((m) => ({ tool: m[1] as string, args: JSON.parse(m[2] as string) }));
}

// Nothing here writes: both eras read one repository.
const repo = useRepository({ seed: "demo" });

describe.each(ERAS)("prompts (%s)", (era) => {
  const all = useMcp({ repo, era, flags: ["--toolsets", "all"] }); // every toolset on
  const plain = useMcp({ repo, era }); // the default toolsets: retention and operations off, no ingest folders

  const get = async (h: McpHarness, name: string, args: Record<string, string>) => {
    const res = await h.client.getPrompt({ name, arguments: args });
    const messages = res.messages as Message[];
    return { res, messages, text: messages.map((m) => m.content.text ?? "").join("\n") };
  };
  const failure = async (name: string, args: Record<string, string>) => {
    try {
      await all.client.getPrompt({ name, arguments: args });
    } catch (err) {
      return err as { code: number; message: string };
    }
    throw new Error(`${name} did not fail`);
  };
  const complete = async (name: string, argument: string, value: string) =>
    (await all.client.complete({ ref: { type: "ref/prompt", name }, argument: { name: argument, value } }))
      .completion.values;

  it("lists the prompts with their arguments", async () => {
    const { prompts } = await all.client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(NAMES);
    const args = Object.fromEntries(prompts.map((p) => [p.name, p.arguments ?? []]));
    expect(args.collection_overview).toEqual([expect.objectContaining({ name: "folder", required: true })]);
    expect(args.curation_review).toEqual([expect.objectContaining({ name: "asset", required: true })]);
    expect(args.ingest_checklist?.map((a) => [a.name, a.required])).toEqual([
      ["folder", true],
      ["source", false],
    ]);
    expect(args.weekly_operations_report).toEqual([
      expect.objectContaining({ name: "weekEnding", required: false }),
    ]);
    for (const p of prompts) expect(p.title && p.description).toBeTruthy();
  });

  it("fills in the folder's title and names real tool calls that work as written", async () => {
    const { messages, text } = await get(all, "collection_overview", { folder: FOLDER });
    const title = entity(FOLDER).title;
    expect(text).toContain(
      `the folder "${title}" (ref ${FOLDER}, security tag ${entity(FOLDER).securityTag})`,
    );
    expect(messages[1]?.content).toMatchObject({
      type: "resource_link",
      uri: folderUri(FOLDER),
      name: title,
    });
    const calls = concreteCalls(text);
    expect(calls.map((c) => c.tool)).toEqual(["get_entity", "browse", "search", "search", "list_events"]);
    for (const c of calls) {
      const res = await all.raw(c.tool, c.args);
      expect(res.isError, `${c.tool} ${JSON.stringify(c.args)}: ${textOf(res)}`).toBeFalsy();
    }
  });

  it("reviews an asset with the tools on, and says what was skipped when they are off", async () => {
    const withAll = await get(all, "curation_review", { asset: ASSET });
    expect(withAll.text).toContain(`the asset "${entity(ASSET).title}"`);
    expect(withAll.messages[1]?.content.uri).toBe(assetUri(ASSET));
    const calls = concreteCalls(withAll.text);
    expect(calls.map((c) => c.tool)).toEqual(["get_entity", "read_metadata", "list_events", "get_retention"]);
    for (const c of calls) {
      const res = await all.raw(c.tool, c.args);
      expect(res.isError, `${c.tool}: ${textOf(res)}`).toBeFalsy();
    }
    expect(withAll.text).toContain("`assign_retention`");

    const withDefaults = await get(plain, "curation_review", { asset: ASSET });
    expect(withDefaults.text).toContain(
      "Skip (retention): `get_retention` is not available in this session (the retention toolset is off (PRESERVATION_TOOLSETS))",
    );
    expect(withDefaults.text).not.toContain("`assign_retention`");
  });

  it("builds the ingest checklist, and stops before ingesting where ingest is not configured", async () => {
    const { text } = await get(plain, "ingest_checklist", { folder: FOLDER, source: "/data/minutes-1870" });
    expect(text).toContain(`Help me ingest "/data/minutes-1870" into the folder "${entity(FOLDER).title}"`);
    expect(text).toContain("`ingest` is not available in this session (no ingest folders are configured)");
    expect(text).toContain("`job_status`");
  });

  it("reports on the week ending on a given day, with the dates filled into every call", async () => {
    const { res, text } = await get(all, "weekly_operations_report", { weekEnding: "2025-07-13" });
    expect(res.description).toBe("Weekly operations report, 2025-07-07 to 2025-07-13");
    expect(text).toContain('`list_changes` with {"since":"2025-07-07","until":"2025-07-13","limit":200}');
    for (const c of concreteCalls(text)) {
      const r = await all.raw(c.tool, c.args);
      expect(r.isError, `${c.tool}: ${textOf(r)}`).toBeFalsy();
    }
    const { text: plainText } = await get(plain, "weekly_operations_report", {});
    expect(plainText).toContain("running and failed processes were not checked");
    expect(plainText).toContain(
      "`recycle_bin` is not available in this session (the lifecycle toolset is off",
    );
  });

  it("names only tools the session lists, or says why one is not available", async () => {
    for (const h of [all, plain]) {
      const listed = new Set((await h.client.listTools()).tools.map((t) => t.name));
      const readOnly = new Set(
        (await h.client.listTools()).tools.filter((t) => t.annotations?.readOnlyHint).map((t) => t.name),
      );
      for (const [name, args] of [
        ["collection_overview", { folder: FOLDER }],
        ["curation_review", { asset: ASSET }],
        ["ingest_checklist", { folder: FOLDER }],
        ["weekly_operations_report", {}],
      ] as const) {
        const { text } = await get(h, name, args);
        const unavailable = new Set([...text.matchAll(/`(\w+)` is not available/g)].map((m) => m[1]));
        for (const [, tool] of text.matchAll(/`([a-z]+_[a-z_]+|[a-z]+)`/g)) {
          expect(listed.has(tool as string) || unavailable.has(tool), `${name} names ${tool}`).toBe(true);
        }
        // A report only reads: the operations and admin tools it names are read-only ones.
        const extra = text
          .split("\n")
          .filter((l) => l.startsWith("Processes and workflows: use") || l.startsWith("Storage,"));
        for (const line of extra) {
          for (const [, tool] of line.matchAll(/`(\w+)`/g))
            expect(readOnly.has(tool as string), tool).toBe(true);
        }
      }
    }
  });

  it("completes a ref argument by title, and the week ending from recent dates", async () => {
    const assets = await complete("curation_review", "asset", entity(ASSET).title.slice(0, 18));
    expect(assets).toContain(ASSET);
    const folders = await complete("collection_overview", "folder", entity(FOLDER).title);
    expect(folders).toContain(FOLDER);
    expect(folders).not.toContain(ASSET);
    expect(await complete("weekly_operations_report", "weekEnding", "")).toEqual(recentWeekEndings());
  });

  it("refuses a bad ref with a message that says what to do", async () => {
    const notRef = await failure("collection_overview", { folder: "Council minutes" });
    expect(notRef.code).toBe(ProtocolErrorCode.InvalidParams);
    expect(notRef.message).toContain('"Council minutes" is not a ref');
    expect(notRef.message).toContain("`search`");

    const missing = "00000000-0000-4000-8000-000000000000";
    const unknown = await failure("curation_review", { asset: missing });
    expect(unknown.code).toBe(ProtocolErrorCode.InvalidParams);
    expect(unknown.message).toContain(`No asset has ref ${missing}`);
    expect(unknown.message).toContain("complete the asset argument by typing part of its title");

    const wrongKind = await failure("collection_overview", { folder: ASSET });
    expect(wrongKind.message).toContain(`${ASSET} is an asset ("${entity(ASSET).title}"), not a folder`);

    const badDate = await failure("weekly_operations_report", { weekEnding: "last week" });
    expect(badDate.message).toContain('"last week" is not a date; use YYYY-MM-DD');
  });
});

describe("the week of a weekly report", () => {
  it("is the seven days ending on the given day", () => {
    expect(weekOf("2025-03-02")).toEqual({ from: "2025-02-24", to: "2025-03-02" });
    expect(recentWeekEndings(Date.parse("2025-07-16T10:00:00Z"))).toEqual([
      "2025-07-16",
      "2025-07-13",
      "2025-07-06",
      "2025-06-29",
      "2025-06-22",
    ]);
  });
});
