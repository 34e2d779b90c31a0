import { describe, expect, it } from "vitest";
import { addLink } from "../../../repository/store/entities/write.js";
import { ERAS, textOf } from "../../helpers/mcp.js";
import type { Preview } from "../../helpers/preview.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";
import { asset, storeDigest } from "./support.js";

interface Links {
  links: { relation: string; direction: string; ref: string; title: string }[];
}

describe.each(ERAS)("edit_links (%s)", (era) => {
  const repo = useRepository({ seed: "none" });
  const curator = useMcp({ user: "curator", flags: ["--toolsets", "all"], era, repo });
  const reader = useMcp({ user: "reader", flags: ["--toolsets", "all"], era, repo });

  const linksOf = async (ref: string) =>
    (await curator.call<Links>("get_entity", { ref, include: ["links"] })).links;

  it("links two entities naming both by title, seen from both ends; a second add changes nothing", async () => {
    const map = asset(repo, "Map of the north quay, 1856");
    const old = asset(repo, "Map of the north quay, 1850 & <earlier>");
    const res = await curator.raw("edit_links", {
      action: "add",
      from: map.ref,
      to: old.ref,
      relation: "isVersionOf",
    });
    expect(res.isError, textOf(res)).toBeFalsy();
    expect(res.structuredContent).toMatchObject({
      action: "added",
      relation: "isVersionOf",
      relationUri: "http://purl.org/dc/terms/isVersionOf",
      from: { ref: map.ref, title: map.title, type: "asset" },
      to: { ref: old.ref, title: old.title },
    });
    expect(textOf(res)).toBe(
      `Linked asset “${map.title}” ${map.ref} —isVersionOf→ asset “${old.title}” ${old.ref}.`,
    );
    expect(await linksOf(map.ref)).toEqual([
      { relation: "isVersionOf", direction: "From", ref: old.ref, type: "asset", title: old.title },
    ]);
    expect((await linksOf(old.ref))[0]).toMatchObject({ direction: "To", ref: map.ref });
    const before = storeDigest(repo);
    const again = await curator.call<{ action: string }>("edit_links", {
      action: "add",
      from: map.ref,
      to: old.ref,
      relation: "isversionof",
    });
    expect(again.action).toBe("already_linked");
    expect(storeDigest(repo)).toBe(before);
  });

  it("removes a link, choosing it by relation when there are several", async () => {
    const a = asset(repo, "Report");
    const b = asset(repo, "Appendix");
    addLink(repo.svc.db, "http://purl.org/dc/terms/references", a.ref, b.ref);
    addLink(repo.svc.db, "http://purl.org/dc/terms/hasPart", a.ref, b.ref);
    const several = await curator.raw("edit_links", { action: "remove", from: a.ref, to: b.ref });
    expect(textOf(several)).toMatch(/has 2 links to .*\(references, hasPart\); pass `relation`/);
    const args = { action: "remove", from: a.ref, to: b.ref, relation: "hasPart" };
    const before = storeDigest(repo);
    const p = await curator.call<Preview>("edit_links", args);
    expect(storeDigest(repo)).toBe(before);
    expect(p.confirmationRequired.summary).toBe(
      `Remove the link asset “Report” ${a.ref} —hasPart→ asset “Appendix” ${b.ref}`,
    );
    const res = await curator.raw("edit_links", { ...args, confirmation: p.confirmationRequired.token });
    expect(textOf(res)).toBe(`Removed the link asset “Report” ${a.ref} —hasPart→ asset “Appendix” ${b.ref}.`);
    expect((await linksOf(a.ref)).map((l) => l.relation)).toEqual(["references"]);
    // Named from the other end, the only link between them is found and removed too.
    const backArgs = { action: "remove", from: b.ref, to: a.ref };
    const pb = await curator.call<Preview>("edit_links", backArgs);
    const back = await curator.raw("edit_links", {
      ...backArgs,
      confirmation: pb.confirmationRequired.token,
    });
    expect(textOf(back)).toBe(
      `Removed the link asset “Report” ${a.ref} —references→ asset “Appendix” ${b.ref}.`,
    );
    expect(await linksOf(a.ref)).toEqual([]);
  });

  it("refuses unknown relations, self links, missing links and wrong refs, changing nothing", async () => {
    const a = asset(repo, "One");
    const b = asset(repo, "Two");
    const before = storeDigest(repo);
    expect(
      textOf(await curator.raw("edit_links", { action: "add", from: a.ref, to: b.ref, relation: "likes" })),
    ).toMatch(/Unknown relation "likes": use one of references, isReferencedBy/);
    expect(textOf(await curator.raw("edit_links", { action: "add", from: a.ref, to: a.ref }))).toMatch(
      /cannot be linked to itself/,
    );
    expect(textOf(await curator.raw("edit_links", { action: "remove", from: a.ref, to: b.ref }))).toMatch(
      /There is no link between the asset “One”/,
    );
    expect(
      textOf(
        await curator.raw("edit_links", {
          action: "add",
          from: a.ref,
          to: "11111111-2222-4333-8444-555555555555",
        }),
      ),
    ).toMatch(/^Nothing with ref 11111111/);
    expect(storeDigest(repo)).toBe(before);
  });

  it("is not offered to a reader", async () => {
    const names = (await reader.client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain("edit_links");
  });
});
