import { describe, expect, it } from "vitest";
import { ERAS, startMcp, textOf } from "../../helpers/mcp.js";
import type { Preview } from "../../helpers/preview.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";
import { asset, folder, row, storeDigest, waitForJob } from "./support.js";

interface Answer {
  job: string;
  state: string;
  finished: boolean;
  entity: { ref: string; type: string; title: string };
  from: { ref?: string; path: string };
  to: { ref?: string; path: string };
  contents?: { folders: number; assets: number; complete: boolean };
}

const FLAGS = ["--toolsets", "all"];

describe.each(ERAS)("move_entity (%s)", (era) => {
  const repo = useRepository({ seed: "none" });
  const mcp = useMcp({ user: "manager", flags: FLAGS, era, repo });
  const curator = useMcp({ user: "curator", flags: FLAGS, era, repo });
  const reader = useMcp({ user: "reader", flags: FLAGS, era, repo });

  it("moves a single asset at once (no confirmation) and answers done: the asset has moved when it answers", async () => {
    const a = folder(repo, "Maps");
    const b = folder(repo, "Plans");
    const map = asset(repo, "Harbour map 1850", a);
    const res = await curator.raw("move_entity", { ref: map.ref, destination: b.ref });
    expect(res.isError).toBeFalsy();
    const ans = res.structuredContent as unknown as Answer;
    expect(ans).toMatchObject({
      entity: { ref: map.ref, type: "asset", title: "Harbour map 1850" },
      from: { ref: a.ref, path: "/Maps" },
      to: { ref: b.ref, path: "/Plans" },
    });
    expect(ans.contents).toBeUndefined();
    expect(textOf(res)).toContain(
      `Moving asset “Harbour map 1850” from “/Maps” to “/Plans”: done (job ${ans.job}).`,
    );
    expect(ans).toMatchObject({ state: "COMPLETED", finished: true });
    // No waiting on the job: it finished within the tool's brief wait.
    const got = await mcp.call<{ entity: { parentRef?: string } }>("get_entity", { ref: map.ref });
    expect(got.entity.parentRef).toBe(b.ref);
  });

  it("previews a folder with contents (changing nothing), then moves exactly that once confirmed", async () => {
    const from = folder(repo, "Estate");
    const fromInner = folder(repo, "Papers", from);
    const to = folder(repo, "Family");
    const series = folder(repo, "Letters", fromInner);
    const sub = folder(repo, "1850s", series);
    const l1 = asset(repo, "Letter one", series);
    asset(repo, "Letter two", sub);
    const args = { ref: series.ref, destination: to.ref };

    const before = storeDigest(repo);
    const p = await curator.call<Preview>("move_entity", args);
    expect(p.confirmationRequired.summary).toBe(
      "Move folder “Letters” and its 1 folder and 2 assets from “/Estate/Papers” to “/Family”",
    );
    expect(p.confirmationRequired.details.join("\n")).toContain("“1850s”");
    expect(p.confirmationRequired.targets.map((t) => t.ref)).toEqual([series.ref, to.ref]);
    expect(p.confirmationRequired.preview).toMatchObject({ folders: 1, assets: 2, complete: true });
    expect(storeDigest(repo)).toBe(before);

    const done = await curator.call<Answer>("move_entity", {
      ...args,
      confirmation: p.confirmationRequired.token,
    });
    expect(done.contents).toEqual({ folders: 1, assets: 2, complete: true });
    expect(await waitForJob(repo, done.job)).toMatchObject({ status: "COMPLETED" });
    expect(row(repo, series.ref).parent_ref).toBe(to.ref);
    expect(row(repo, sub.ref).parent_ref).toBe(series.ref);
    expect(row(repo, l1.ref).parent_ref).toBe(series.ref);
    const listed = await mcp.call<{ children: { ref: string }[] }>("browse", { ref: to.ref });
    expect(listed.children.map((c) => c.ref)).toEqual([series.ref]);

    const replay = await curator.raw("move_entity", { ...args, confirmation: p.confirmationRequired.token });
    expect(replay.isError).toBe(true);
  });

  it("refuses the confirmation when the folder changed since the preview", async () => {
    const from = folder(repo, "Box 1");
    const moving = folder(repo, "Deeds", from);
    asset(repo, "Deed A", moving);
    const to = folder(repo, "Box 2");
    const args = { ref: moving.ref, destination: to.ref };
    const p = await mcp.call<Preview>("move_entity", args);
    asset(repo, "Deed B, added meanwhile", moving);
    const res = await mcp.raw("move_entity", { ...args, confirmation: p.confirmationRequired.token });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toMatch(/changed since the preview; nothing was changed/);
    expect(row(repo, moving.ref).parent_ref).toBe(from.ref);
  });

  it("refuses to move a folder into itself or its own subtree, before asking the service", async () => {
    const top = folder(repo, "Collection");
    const mid = folder(repo, "Series", top);
    const low = folder(repo, "Files", mid);
    asset(repo, "Item", low);
    const before = storeDigest(repo);
    for (const destination of [low.ref, mid.ref, top.ref]) {
      const res = await mcp.raw("move_entity", { ref: top.ref, destination });
      expect(res.isError).toBe(true);
      expect(textOf(res)).toMatch(
        destination === top.ref
          ? /Folder “Collection” cannot be moved into itself.*Nothing was moved/
          : /Folder “Collection” cannot be moved into “(Files|Series)”, which is inside it.*Nothing was moved/,
      );
    }
    expect(storeDigest(repo)).toBe(before);
  });

  it("moves an empty folder to the top level without confirmation, but never an asset", async () => {
    const parent = folder(repo, "Shelf");
    const empty = folder(repo, "Empty box", parent);
    const item = asset(repo, "Loose sheet", parent);
    const ans = await mcp.call<Answer>("move_entity", { ref: empty.ref, destination: "top" });
    expect(ans.to).toEqual({ path: "/" });
    expect(await waitForJob(repo, ans.job)).toMatchObject({ status: "COMPLETED" });
    expect(row(repo, empty.ref).parent_ref).toBeNull();

    const res = await mcp.raw("move_entity", { ref: item.ref, destination: "top" });
    expect(textOf(res)).toMatch(/Only folders may be at the top level/);
    const again = await mcp.raw("move_entity", { ref: item.ref, destination: parent.ref });
    expect(textOf(again)).toMatch(/already in “Shelf”; nothing to move/);
    const intoAsset = await mcp.raw("move_entity", { ref: empty.ref, destination: item.ref });
    expect(textOf(intoAsset)).toMatch(/is an asset .*give a destination folder ref/);
    const bad = await mcp.raw("move_entity", { ref: empty.ref, destination: "Shelf" });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/neither a folder ref nor "top"/);
    expect(row(repo, item.ref).parent_ref).toBe(parent.ref);
  });

  it("asks the person in a form when the client can show one: declined changes nothing, accepted moves", async () => {
    for (const action of ["decline", "accept"] as const) {
      const person = await startMcp({
        user: "curator",
        flags: FLAGS,
        era,
        repo,
        elicit: () => (action === "accept" ? { action, content: { confirm: true } } : { action }),
      });
      try {
        const from = folder(repo, `Drawer (${action})`);
        const moving = folder(repo, "Plans", from);
        asset(repo, "Plan 1", moving);
        const to = folder(repo, `Cabinet (${action})`);
        const before = storeDigest(repo);
        const res = await person.raw("move_entity", { ref: moving.ref, destination: to.ref });
        expect(person.elicited[0]).toContain(
          `Move folder “Plans” and its 1 asset from “/Drawer (${action})” to “/Cabinet (${action})”`,
        );
        if (action === "decline") {
          expect(res.isError).toBe(true);
          expect(textOf(res)).toMatch(/nothing was changed/);
          expect(storeDigest(repo)).toBe(before);
        } else {
          const job = (res.structuredContent as unknown as Answer).job;
          expect(await waitForJob(repo, job)).toMatchObject({ status: "COMPLETED" });
          expect(row(repo, moving.ref).parent_ref).toBe(to.ref);
        }
      } finally {
        await person.close();
      }
    }
  });

  it("moves a folder's items into another folder with one preview and one confirmation; refusals in the preview", async () => {
    const from = folder(repo, `Journals ${era}`);
    const to = folder(repo, `To be catalogued ${era}`);
    const journals = ["Journal 1852", "Journal 1853"].map((t) => asset(repo, t, from));
    const inside = folder(repo, "Loose notes", from);
    const args = { folder: from.ref, destination: to.ref };
    const before = storeDigest(repo);
    const p = await mcp.call<Preview>("move_entity", args);
    expect(storeDigest(repo)).toBe(before);
    expect(p.confirmationRequired.summary).toBe(
      `Move 3 (folder “Journals ${era}”) to “/To be catalogued ${era}”; folders take everything in them`,
    );
    expect(p.confirmationRequired.targets.map((t) => t.ref)).toEqual([
      ...journals.map((j) => j.ref),
      inside.ref,
      to.ref,
    ]);

    const res = await mcp.raw("move_entity", { ...args, confirmation: p.confirmationRequired.token });
    expect(res.isError, textOf(res)).toBeFalsy();
    expect(textOf(res).split("\n")[0]).toBe(
      `Moves to “/To be catalogued ${era}” (folder “Journals ${era}”): 3 done.`,
    );
    for (const e of [...journals, inside]) expect(row(repo, e.ref).parent_ref).toBe(to.ref);

    // Into a folder inside one of them, or assets to the top level: refused per target, before anything moves.
    const top = await mcp.raw("move_entity", { refs: [journals[0]?.ref, inside.ref], destination: "top" });
    expect(top.isError, textOf(top)).toBeFalsy();
    const text = textOf(top);
    expect(text).toContain(`asset “Journal 1852” ${journals[0]?.ref}: only folders may be at the top level`);
    expect(
      (
        top.structuredContent as { confirmationRequired: { targets: { ref: string }[] } }
      ).confirmationRequired.targets.map((t) => t.ref),
    ).toEqual([inside.ref]);
    expect(row(repo, inside.ref).parent_ref).toBe(to.ref);
  });

  it("is not listed for a reader", async () => {
    expect((await reader.client.listTools()).tools.map((t) => t.name)).not.toContain("move_entity");
  });
});
