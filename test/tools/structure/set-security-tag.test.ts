import { describe, expect, it } from "vitest";
import { insertEntity } from "../../../repository/store/entities/write.js";
import { ERAS, textOf } from "../../helpers/mcp.js";
import type { Preview } from "../../helpers/preview.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";
import { asset, folder, row, storeDigest, waitForJob } from "./support.js";

interface Answer {
  job: string;
  entity: { ref: string; type: string; title: string };
  previousTag: string;
  securityTag: string;
  includeDescendants: boolean;
  contents?: { folders: number; assets: number; complete: boolean };
}

const FLAGS = ["--toolsets", "all"];

describe.each(ERAS)("set_security_tag (%s)", (era) => {
  const repo = useRepository({ seed: "none" });
  const mcp = useMcp({ user: "manager", flags: FLAGS, era, repo });
  const curator = useMcp({ user: "curator", flags: FLAGS, era, repo });
  const reader = useMcp({ user: "reader", flags: FLAGS, era, repo });

  it("re-tags one asset without confirmation and answers done: get_entity shows the new tag at once", async () => {
    const box = folder(repo, "Registers");
    const reg = asset(repo, "Register 1871", box);
    const res = await mcp.raw("set_security_tag", { ref: reg.ref, tag: "closed" });
    expect(res.isError).toBeFalsy();
    const a = res.structuredContent as unknown as Answer;
    expect(a).toMatchObject({ previousTag: "open", securityTag: "closed", includeDescendants: false });
    expect(textOf(res)).toContain(
      `Changing the security tag of asset “Register 1871”: open → closed: done (job ${a.job}).`,
    );
    const got = await mcp.call<{ entity: { securityTag: string } }>("get_entity", { ref: reg.ref });
    expect(got.entity.securityTag).toBe("closed");
  });

  it("re-tags a folder alone without confirmation; what is inside keeps its tags", async () => {
    const top = folder(repo, "Minutes");
    const inner = asset(repo, "Minute book", top);
    const a = await mcp.call<Answer>("set_security_tag", { ref: top.ref, tag: "staff" });
    expect(a.includeDescendants).toBe(false);
    expect(await waitForJob(repo, a.job)).toMatchObject({ status: "COMPLETED" });
    expect(row(repo, top.ref).security_tag).toBe("staff");
    expect(row(repo, inner.ref).security_tag).toBe("open");
  });

  it("previews a subtree re-tag (changing nothing), then re-tags exactly that once confirmed", async () => {
    const top = folder(repo, "Staff files");
    const sub = folder(repo, "Personnel", top, "closed");
    const a1 = asset(repo, "Contract", sub, "closed");
    const a2 = asset(repo, "Rota", top);
    const args = { ref: top.ref, tag: "staff", includeDescendants: true };

    const before = storeDigest(repo);
    const p = await mcp.call<Preview>("set_security_tag", args);
    expect(p.confirmationRequired.summary).toBe(
      "Change the security tag of folder “Staff files” and its 1 folder and 2 assets: open → staff",
    );
    expect(p.confirmationRequired.preview).toMatchObject({
      from: "open",
      to: "staff",
      folders: 1,
      assets: 2,
    });
    expect(storeDigest(repo)).toBe(before);

    const done = await mcp.call<Answer>("set_security_tag", {
      ...args,
      confirmation: p.confirmationRequired.token,
    });
    expect(done).toMatchObject({
      includeDescendants: true,
      contents: { folders: 1, assets: 2, complete: true },
    });
    expect(await waitForJob(repo, done.job)).toMatchObject({ status: "COMPLETED" });
    for (const e of [top, sub, a1, a2]) expect(row(repo, e.ref).security_tag).toBe("staff");
  });

  it("says when there is nothing to change, and refuses a content object", async () => {
    const f = folder(repo, "Already open");
    const res = await mcp.raw("set_security_tag", { ref: f.ref, tag: "open" });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toMatch(
      /already has security tag open; nothing to change\. To re-tag what is inside/,
    );
    const holder = asset(repo, "Photograph", f);
    const co = insertEntity(repo.svc.db, {
      type: "CO",
      title: "photo.tif",
      securityTag: "open",
      parentRef: holder.ref,
    });
    const onCo = await mcp.raw("set_security_tag", { ref: co.ref, tag: "closed" });
    expect(textOf(onCo)).toContain(`change the tag of the asset ${holder.ref} instead. Nothing was changed.`);
    expect(row(repo, co.ref).security_tag).toBe("open");
  });

  it("passes on the service's refusals: a curator may not change tags (403), an unknown tag (400)", async () => {
    const f = folder(repo, "Guarded");
    const before = storeDigest(repo);
    const denied = await curator.raw("set_security_tag", { ref: f.ref, tag: "closed" });
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toMatch(/permission/i);
    const unknown = await mcp.raw("set_security_tag", { ref: f.ref, tag: "top-secret" });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/rejected/);
    expect(storeDigest(repo)).toBe(before);
  });

  it("re-tags a folder's items (not the folder) with one preview and one confirmation, answering each", async () => {
    const f = folder(repo, `Street scenes ${era}`);
    const items = ["Market day", "High Street", "Quay"].map((t) => asset(repo, t, f));
    const already = asset(repo, "Old quay", f, "staff");
    const args = { folder: f.ref, tag: "staff" };
    const before = storeDigest(repo);
    const p = await mcp.call<Preview>("set_security_tag", args);
    expect(storeDigest(repo)).toBe(before);
    expect(p.confirmationRequired.summary).toBe(
      `Change the security tag of 3 (folder “Street scenes ${era}”) to staff`,
    );
    expect(p.confirmationRequired.details).toEqual([
      ...items.map((i) => `  asset “${i.title}” ${i.ref}: open → staff`),
      "Already so (1, left alone):",
      `  asset “Old quay” ${already.ref}: already staff`,
    ]);
    expect(p.confirmationRequired.targets.map((t) => t.ref)).toEqual(items.map((i) => i.ref));

    const res = await mcp.raw("set_security_tag", { ...args, confirmation: p.confirmationRequired.token });
    expect(res.isError, textOf(res)).toBeFalsy();
    // The jobs finish in milliseconds: the answer says done, no job_status needed.
    expect(textOf(res).split("\n").slice(0, 2)).toEqual([
      `Security tag → staff (folder “Street scenes ${era}”): 3 done, 1 already so.`,
      "Done (3):",
    ]);
    const results = (res.structuredContent as { results: { ref: string; outcome: string }[] }).results;
    expect(results.map((r) => r.outcome)).toEqual(["done", "done", "done", "unchanged"]);
    for (const i of items) expect(row(repo, i.ref).security_tag).toBe("staff");
    expect(row(repo, f.ref).security_tag).toBe("open");
  });

  it("refuses in the preview what the caller may not change, and a ref that is no asset or folder", async () => {
    const f = folder(repo, `Mixed ${era}`);
    const a = asset(repo, "Open letter", f);
    const p = await curator.raw("set_security_tag", {
      refs: [a.ref, "00000000-0000-4000-8000-000000000000"],
      tag: "closed",
    });
    // A curator may change no tag here: every target is refused, nothing is asked, nothing changes.
    expect(p.isError, textOf(p)).toBeFalsy();
    expect(textOf(p)).toContain("0 done, 2 refused.");
    expect(textOf(p)).toContain(`asset “Open letter” ${a.ref}: you may not change security tag on tag open`);
    expect(textOf(p)).toContain("00000000-0000-4000-8000-000000000000: Nothing with ref");
    expect(row(repo, a.ref).security_tag).toBe("open");
  });

  it("does at most 50 a call, says how many were left out, and the same call again does the rest", async () => {
    const f = folder(repo, `Big box ${era}`);
    const many = Array.from({ length: 53 }, (_, i) => asset(repo, `Item ${i + 1}`, f));
    const args = { folder: f.ref, tag: "closed" };
    for (const round of [50, 3]) {
      const p = await mcp.call<Preview>("set_security_tag", args);
      expect(p.confirmationRequired.targets).toHaveLength(round);
      const left = p.confirmationRequired.details.at(-1);
      if (round === 50)
        expect(left).toBe(
          "3 more selected and left out (at most 50 changes a call): once this is done, call again with the same selection for the rest.",
        );
      const res = await mcp.raw("set_security_tag", { ...args, confirmation: p.confirmationRequired.token });
      expect(res.isError, textOf(res)).toBeFalsy();
    }
    expect(many.every((m) => row(repo, m.ref).security_tag === "closed")).toBe(true);
  });

  it("needs exactly one of ref, refs or folder", async () => {
    const res = await mcp.raw("set_security_tag", { tag: "open" });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toBe("Give exactly one of `ref`, `refs` or `folder`. Nothing was changed.");
  });

  it("is not listed for a reader", async () => {
    expect((await reader.client.listTools()).tools.map((t) => t.name)).not.toContain("set_security_tag");
  });
});
