import { existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ContentStore } from "../../../repository/store/content-store.js";
import { tempDir } from "../../helpers/temp-dir.js";

/** The content store's own housekeeping: half-written uploads left by a crash. */

describe("the content store at start-up", () => {
  it("removes uploads a crash left half-written a day ago, and keeps recent ones (another process may own them)", () => {
    const root = tempDir("content-store-");
    const incoming = join(root, ".incoming");
    mkdirSync(incoming, { recursive: true });
    const stale = join(incoming, "stale.part");
    const fresh = join(incoming, "fresh.part");
    writeFileSync(stale, "half a file");
    writeFileSync(fresh, "an upload under way");
    const twoDaysAgo = (Date.now() - 2 * 86_400_000) / 1000;
    utimesSync(stale, twoDaysAgo, twoDaysAgo);

    new ContentStore(root);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
  });

  it("stores by SHA-256 with all four fixities, and streams the same blob to the same place", async () => {
    const root = tempDir("content-store-");
    const store = new ContentStore(root);
    const bytes = Buffer.from("Minutes of the Harbour Board, 1887");
    const a = store.put(bytes);
    const b = await store.putStream(
      (async function* () {
        yield bytes.subarray(0, 10);
        yield bytes.subarray(10);
      })(),
    );
    expect(b).toEqual(a);
    expect(a.fixity.MD5).toMatch(/^[0-9a-f]{32}$/);
    expect(a.fixity.SHA512).toMatch(/^[0-9a-f]{128}$/);
    expect(store.has(a.sha256)).toBe(true);
  });
});
