import { describe, expect, it } from "vitest";
import { Interest } from "../../src/live/interest.js";
import { assetUri, bitstreamUri, folderUri, metadataUri, ROOT_URI } from "../../src/resources/uris.js";

describe("Interest", () => {
  const ref = "0b9a3c1e-7c57-4e0c-9a52-1f7d3c1a2b3c";

  it("counts watchers per URI: one leaving does not silence another", () => {
    const i = new Interest();
    i.add([assetUri(ref)]);
    i.add([assetUri(ref)]);
    i.remove([assetUri(ref)]);
    expect(i.has(assetUri(ref))).toBe(true);
    i.remove([assetUri(ref)]);
    expect(i.has(assetUri(ref))).toBe(false);
    expect(i.size).toBe(0);
  });

  it("an event on an entity touches the entity, its metadata fragments and its files, nothing else", () => {
    const i = new Interest();
    const other = "5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a";
    const watched = [assetUri(ref), metadataUri(ref, "m1"), bitstreamUri(ref, 1, 1)];
    i.add([...watched, assetUri(other), metadataUri(other, "m1"), folderUri(other)]);
    expect(i.touchedBy(ref).sort()).toEqual([...watched].sort());
    expect(i.touchedBy("unwatched")).toEqual([]);
  });

  it("knows whether anything holding entities is watched (only then are parents looked up)", () => {
    const i = new Interest();
    i.add([metadataUri(ref, "m1")]);
    expect(i.watchesContainers()).toBe(false);
    for (const uri of [ROOT_URI, folderUri(ref), assetUri(ref)]) {
      const j = new Interest();
      j.add([uri]);
      expect(j.watchesContainers()).toBe(true);
    }
  });
});
