import { describe, expect, it } from "vitest";
import { ERAS, textOf } from "../../helpers/mcp.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";
import { asset, folder, row } from "./support.js";

interface Answer {
  folder: { ref: string; title: string; description?: string; securityTag: string; parentRef?: string };
  parentPath: string;
}

const FLAGS = ["--toolsets", "all"];

describe.each(ERAS)("create_folder (%s)", (era) => {
  const repo = useRepository({ seed: "none" });
  const mcp = useMcp({ user: "manager", flags: FLAGS, era, repo });
  const curator = useMcp({ user: "curator", flags: FLAGS, era, repo });
  const reader = useMcp({ user: "reader", flags: FLAGS, era, repo });

  it("creates a folder in a parent, inheriting its tag; get_entity and browse read it back", async () => {
    const archive = folder(repo, "Archive", null, "closed");
    const council = folder(repo, "Council", archive, "closed");
    const res = await mcp.raw("create_folder", {
      title: "Minutes & <drafts>",
      description: "Council minutes",
      parent: council.ref,
    });
    expect(res.isError).toBeFalsy();
    const a = res.structuredContent as unknown as Answer;
    expect(a.folder).toMatchObject({
      title: "Minutes & <drafts>",
      description: "Council minutes",
      securityTag: "closed",
      parentRef: council.ref,
    });
    expect(a.parentPath).toBe("/Archive/Council");
    expect(textOf(res)).toContain(
      `Created folder “Minutes & <drafts>” ${a.folder.ref} in “/Archive/Council”`,
    );
    expect(textOf(res)).toContain("security tag closed");

    const got = await mcp.call<{
      entity: { type: string; title: string; parentRef?: string; securityTag: string };
    }>("get_entity", { ref: a.folder.ref });
    expect(got.entity).toMatchObject({
      type: "folder",
      title: "Minutes & <drafts>",
      parentRef: council.ref,
      securityTag: "closed",
    });
    const listed = await mcp.call<{ children: { ref: string }[] }>("browse", { ref: council.ref });
    expect(listed.children.map((i) => i.ref)).toContain(a.folder.ref);
  });

  it("creates at the top level only with a security tag, and a curator may create", async () => {
    const missing = await mcp.raw("create_folder", { title: "Loose" });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/top level needs a `securityTag`.*Nothing was created/);

    const a = await curator.call<Answer>("create_folder", { title: "Top series", securityTag: "staff" });
    expect(a.parentPath).toBe("/");
    expect(a.folder.parentRef).toBeUndefined();
    expect(row(repo, a.folder.ref)).toMatchObject({ type: "SO", parent_ref: null, security_tag: "staff" });
  });

  it("overrides the parent's tag when one is given", async () => {
    const parent = folder(repo, "Open parent");
    const a = await mcp.call<Answer>("create_folder", {
      title: "Staff only",
      parent: parent.ref,
      securityTag: "staff",
    });
    expect(row(repo, a.folder.ref)).toMatchObject({ parent_ref: parent.ref, security_tag: "staff" });
  });

  it("refuses an asset as the parent, an unknown parent and an unknown tag, creating nothing", async () => {
    const parent = folder(repo, "Holder");
    const item = asset(repo, "A map", parent);
    const count = () => (repo.svc.db.prepare("SELECT COUNT(*) AS n FROM entities").get() as { n: number }).n;
    const before = count();
    const intoAsset = await mcp.raw("create_folder", { title: "X", parent: item.ref });
    expect(intoAsset.isError).toBe(true);
    expect(textOf(intoAsset)).toMatch(/is an asset .*Folders go inside folders/);
    const unknown = await mcp.raw("create_folder", {
      title: "X",
      parent: "0d1e2f30-4152-4637-8849-5a6b7c8d9e0f",
    });
    expect(textOf(unknown)).toMatch(/Nothing with ref/);
    const badTag = await mcp.raw("create_folder", { title: "X", parent: parent.ref, securityTag: "secret" });
    expect(badTag.isError).toBe(true);
    expect(textOf(badTag)).toMatch(/rejected/);
    const notARef = await mcp.raw("create_folder", { title: "X", parent: "Archive/Council" });
    expect(notARef.isError).toBe(true);
    expect(count()).toBe(before);
  });

  it("is not listed for a reader", async () => {
    const names = (await reader.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("get_entity");
    expect(names).not.toContain("create_folder");
    expect(names).not.toContain("move_entity");
    expect(names).not.toContain("set_security_tag");
  });
});
