import { describe, expect, it } from "vitest";
import { textOf } from "../../helpers/mcp.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { useMcp } from "../../helpers/use-mcp.js";
import { DEMO, seedFile } from "./demo-facts.js";
import { missingFacts } from "./text-facts.js";

/**
 * Some clients pass only the text of an answer to the model: each discovery tool's text must carry every
 * fact of its structured content that a person acts on (exact sizes, full fixity, refs, titles, paths).
 * Left out: resource URIs (handles for programs, also sent as resource links), entity kinds (written in
 * words: "content object" for content_object), paging flags, schema URIs (named by their short name).
 */
// Technical property PUIDs (prp/3) too: the text names each property ("Image Width").
const HANDLES = ["uri", "hasMore", "properties.puid"];

describe("the text of every discovery answer carries the facts of its structured content", () => {
  const folder = tempDir("pmcp-text-facts-");
  const mcp = useMcp({ user: "manager", flags: ["--download-dir", folder] });

  async function check(tool: string, args: Record<string, unknown>, ignore: string[] = []) {
    const res = await mcp.raw(tool, args);
    expect(res.isError, textOf(res)).toBeFalsy();
    expect(missingFacts(res.structuredContent, textOf(res), [...HANDLES, ...ignore])).toEqual([]);
    return textOf(res);
  }

  it("get_entity, with every part, for an asset, a folder and a content object", async () => {
    const include = ["path", "identifiers", "metadata", "files", "links", "events"];
    const text = await check("get_entity", { ref: DEMO.refs.pngAsset, include }, [
      "type",
      "schema",
      "direction",
    ]);
    // Sizes exactly, not only rounded.
    const seed = seedFile("photoNorthQuay1890");
    expect(text).toContain(`${seed.bytes.length.toLocaleString("en")} bytes`);
    await check("get_entity", { ref: DEMO.refs.mapNorthQuay1856, include }, ["type", "schema", "direction"]);
    await check("get_entity", { ref: DEMO.refs.photographs, include }, ["type", "schema"]);
    const co = DEMO.entities.find((e) => e.type === "CO" && e.parentRef === DEMO.refs.textAsset);
    await check("get_entity", { ref: co?.ref, include }, ["type", "schema"]);
  });

  it("download_file", async () => {
    const text = await check("download_file", { ref: DEMO.refs.pngAsset });
    const seed = seedFile("photoNorthQuay1890");
    expect(text).toContain(seed.sha256);
  });

  it("browse", async () => {
    await check("browse", { ref: DEMO.refs.photographs }, ["type"]);
    await check("browse", {}, ["type"]);
  });

  it("search, with fields and facets", async () => {
    await check(
      "search",
      { query: "harbour", metadata: ["oai_dc.date"], facets: ["oai_dc.subject"], limit: 10 },
      ["type"],
    );
    await check("search", { within: DEMO.refs.photographs, limit: 10 }, ["type"]);
  });

  it("list_events: the repository's, one entity's and one event's", async () => {
    // Kinds of what events touched are written in words ("content object").
    await check("list_events", { limit: 10 }, ["touched.type"]);
    await check("list_events", { ref: DEMO.refs.mapNorthQuay1856 });
    const first = await mcp.call<{ events: { eventRef: string; type: string }[] }>("list_events", {
      types: ["Modified"],
      limit: 1,
    });
    await check("list_events", { event: first.events[0]?.eventRef, limit: 10 }, ["touched.type"]);
  });

  it("list_changes and find_by_identifier", async () => {
    await check("list_changes", { since: "2025-01", limit: 10 }, ["type"]);
    const code = DEMO.entities.find((e) => e.ref === DEMO.refs.pngAsset);
    expect(code).toBeDefined();
    const id = await mcp.call<{ identifiers: { type: string; value: string }[] }>("get_entity", {
      ref: DEMO.refs.pngAsset,
      include: ["identifiers"],
    });
    await check("find_by_identifier", { value: id.identifiers[0]?.value }, ["type"]);
  });

  it("read_metadata", async () => {
    await check("read_metadata", { ref: DEMO.refs.pngAsset }, ["schema"]);
  });
});
