import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { authed, type DemoUser, login, startTestRepository } from "../helpers/repository.js";
import { arr, parseXml, text } from "./entity-xml.js";

/**
 * Walks the whole demo collection the way a client does, following only URLs the service hands out
 * (children, Next, sub-resource links, fragments, representations, generations, bitstreams, content).
 * Every one must answer 200 for the user who received it: lists never offer what the caller may not
 * read. Every download must match its reported size and SHA256.
 */

let repo: RunningRepository;

beforeAll(async () => {
  repo = await startTestRepository({ seed: "demo" });
});

afterAll(async () => {
  await repo?.close();
});

async function walk(who: DemoUser): Promise<{ documents: number; downloads: number; entities: Set<string> }> {
  const get = authed(repo.url, (await login(repo.url, who)).token);
  const queue = [`${repo.url}/api/entity/root/children?max=50`];
  const seen = new Set<string>();
  const entities = new Set<string>();
  let documents = 0;
  let downloads = 0;
  while (queue.length > 0) {
    const url = queue.shift() as string;
    if (seen.has(url)) continue;
    seen.add(url);
    expect(url.startsWith(`${repo.url}/api/entity/`), url).toBe(true);
    const res = await get(url.slice(repo.url.length));
    const body = await res.text();
    expect(res.status, `${who} ${url}: ${body}`).toBe(200);
    documents++;
    const { rootName, root } = parseXml(body);
    const follow = (xs: unknown) => {
      for (const x of arr(xs)) queue.push(text(x));
    };
    if (root.Paging?.Next) queue.push(text(root.Paging.Next));
    switch (rootName) {
      case "ChildrenResponse":
        follow(root.Children?.Child);
        break;
      case "EntityResponse": {
        const info = root.AdditionalInformation;
        entities.add(info.Self);
        for (const k of [
          "Children",
          "Representations",
          "Generations",
          "Identifiers",
          "Links",
          "EventActions",
        ]) {
          if (info[k]) queue.push(text(info[k]));
        }
        follow(info.Metadata?.Fragment);
        break;
      }
      case "RepresentationsResponse":
        follow(root.Representations?.Representation);
        break;
      case "RepresentationResponse":
        follow(root.ContentObjects?.ContentObject);
        break;
      case "GenerationsResponse":
        follow(root.Generations?.Generation);
        break;
      case "GenerationResponse":
        follow(root.Bitstreams?.Bitstream);
        break;
      case "LinksResponse":
        follow(root.Links?.Link);
        break;
      case "MetadataResponse":
        expect(typeof root.MetadataContainer.Content, url).toBe("object");
        break;
      case "BitstreamResponse": {
        const sha256 = arr(root.Bitstream.Fixities.Fixity).find(
          (x) => x.FixityAlgorithmRef === "SHA256",
        )?.FixityValue;
        const content = await get(text(root.AdditionalInformation.Content).slice(repo.url.length));
        const bytes = Buffer.from(await content.arrayBuffer());
        expect(content.status, url).toBe(200);
        expect(bytes.length, url).toBe(Number(root.Bitstream.FileSize));
        expect(createHash("sha256").update(bytes).digest("hex"), url).toBe(sha256);
        downloads++;
        break;
      }
    }
  }
  return { documents, downloads, entities };
}

describe("walking the demo collection", () => {
  it("reaches every entity through handed-out URLs, each answering 200, downloads byte-exact", async () => {
    const manager = await walk("manager");
    const reader = await walk("reader");
    expect(manager.downloads).toBeGreaterThan(0);
    expect(reader.downloads).toBeGreaterThan(0);
    // The reader sees a strict subset: closed and staff material never appears in their lists.
    expect(reader.entities.size).toBeLessThan(manager.entities.size);
    for (const e of reader.entities) expect(manager.entities.has(e)).toBe(true);
    const live = repo.svc.db.prepare("SELECT count(*) AS n FROM entities WHERE deleted = 0").get() as {
      n: number;
    };
    expect(manager.entities.size).toBe(live.n);
  }, 60_000);
});
