import { afterAll, describe, expect, it } from "vitest";
import { childEnv, demoDataDir, killStragglers, spawnCli } from "./helpers.js";

afterAll(killStragglers);

/**
 * `preservation-mcp tour` as a newcomer runs it: no account, no configuration. The data directory already holds
 * the demo collection (a copy, see demoDataDir): the tour reads the same store a first run seeds.
 */
describe("preservation-mcp tour", () => {
  const data = demoDataDir();
  afterAll(() => data.cleanup());

  it("talks to the embedded demo repository, prints each call and its answer, and exits 0", async () => {
    const cli = spawnCli(["tour"], childEnv({ PRESERVATION_DATA_DIR: data.dir }));
    cli.child.stdin?.end();
    const code = await cli.exitedWithin(15_000);
    const out = cli.stdout();
    expect(code, cli.stderr()).toBe(0);
    expect(out).toContain(`embedded demo repository (data in ${data.dir})`);
    expect(out).toMatch(/→ whoami \{\}\n {4}\S.*\(curator\)/);
    // Every call line is followed by its answer, and nothing failed.
    const calls = (out.match(/^ {2}→ (\S+( resource)?)/gm) ?? []).map((l) => l.slice(4));
    expect(calls).toEqual([
      "whoami",
      "search",
      "browse",
      "browse",
      "get_entity",
      "read_metadata",
      "list_events",
      "read resource",
      "update_metadata",
      "update_metadata",
      "update_metadata",
      "update_metadata",
    ]);
    // One curation step as a person meets it: a preview that changes nothing, then its confirmation; then the
    // same back, so the demo collection is as it was.
    const curation = out.slice(out.indexOf("Curation:"));
    expect(curation).toMatch(
      /Needs the person's confirmation\.[\s\S]*coverage: \(none\) → "The Borough's harbour"/,
    );
    expect(curation).toMatch(/Updated oai_dc metadata[\s\S]*coverage: \(none\) → "The Borough's harbour"/);
    expect(curation).toMatch(/Updated oai_dc metadata[\s\S]*coverage: "The Borough's harbour" → \(none\)/);
    expect(curation).toContain(`"confirmation":"<the preview's token>"`);
    expect(out).not.toContain("✗");
    expect(out).toMatch(/That is the tour\./);
    // The server's own log stays out of the narration (and at warn level, off stderr too).
    expect(out).not.toMatch(/"level":/);
    expect(cli.stderr()).toBe("");
  });

  it("stops quietly when its reader goes away (`tour | head -2`): exit 0, no EPIPE on stderr", async () => {
    const cli = spawnCli(["tour"], childEnv({ PRESERVATION_DATA_DIR: data.dir }));
    cli.child.stdin?.end();
    // Like head -2: read two lines, then close our end of the pipe; the tour's next write meets EPIPE.
    await new Promise<void>((resolve) => {
      const look = () => {
        if (cli.stdout().split("\n").length > 2) {
          cli.child.stdout?.off("data", look);
          cli.child.stdout?.destroy();
          resolve();
        }
      };
      cli.child.stdout?.on("data", look);
    });
    const code = await cli.exitedWithin(15_000);
    expect(cli.stderr()).not.toMatch(/EPIPE/);
    expect(code, cli.stderr()).toBe(0);
    expect(cli.stderr()).toBe("");
  });
});
