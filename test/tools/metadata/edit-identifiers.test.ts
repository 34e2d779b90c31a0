import { describe, expect, it } from "vitest";
import { addIdentifier, insertEntity } from "../../../repository/store/entities/write.js";
import { ERAS, textOf } from "../../helpers/mcp.js";
import type { Preview } from "../../helpers/preview.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";
import { asset, HOSTILE, storeDigest } from "./support.js";

interface Answer {
  changes: { action: string; type: string; value: string; to?: string }[];
  identifiers: { type: string; value: string }[];
}

describe.each(ERAS)("edit_identifiers (%s)", (era) => {
  const repo = useRepository({ seed: "none" });
  const curator = useMcp({ user: "curator", flags: ["--toolsets", "all"], era, repo });
  const reader = useMcp({ user: "reader", flags: ["--toolsets", "all"], era, repo });

  const idsOf = async (ref: string) =>
    (
      await curator.call<{ identifiers: { type: string; value: string }[] }>("get_entity", {
        ref,
        include: ["identifiers"],
      })
    ).identifiers;

  it("adds without asking; changes and removes after a preview that changes nothing, saying exactly what changed", async () => {
    const a = asset(repo);
    const added = await curator.call<Answer>("edit_identifiers", {
      ref: a.ref,
      add: [{ type: "barcode", value: "B-1" }],
    });
    expect(added.changes).toEqual([{ action: "added", type: "barcode", value: "B-1" }]);
    addIdentifier(repo.svc.db, a.ref, "accession", "A-17");
    const args = {
      ref: a.ref,
      add: [
        { type: "catalogue", value: HOSTILE },
        { type: "accession", value: "A-17" },
      ],
      change: [{ type: "accession", to: "A-18" }],
      remove: [{ type: "barcode" }],
    };
    const before = storeDigest(repo);
    const p = await curator.call<Preview>("edit_identifiers", args);
    expect(storeDigest(repo)).toBe(before);
    expect(p.confirmationRequired.summary).toBe(`Change the identifiers of the asset “Minute book” ${a.ref}`);
    expect(p.confirmationRequired.details).toEqual([
      "  change accession “A-17” to “A-18”",
      "  remove barcode “B-1”",
      `  add catalogue “${HOSTILE}”`,
    ]);
    const res = await curator.raw("edit_identifiers", {
      ...args,
      confirmation: p.confirmationRequired.token,
    });
    expect(res.isError, textOf(res)).toBeFalsy();
    const out = res.structuredContent as unknown as Answer;
    expect(out.changes).toEqual([
      { action: "changed", type: "accession", value: "A-17", to: "A-18" },
      { action: "removed", type: "barcode", value: "B-1" },
      { action: "added", type: "catalogue", value: HOSTILE },
      { action: "already_there", type: "accession", value: "A-17" },
    ]);
    expect(textOf(res)).toContain("  changed accession: “A-17” → “A-18”");
    expect(textOf(res)).toContain("  removed barcode “B-1”");
    const now = await idsOf(a.ref);
    expect(now).toEqual(
      expect.arrayContaining([
        { type: "accession", value: "A-18" },
        { type: "catalogue", value: HOSTILE },
      ]),
    );
    expect(now).toHaveLength(2);
    // find_by_identifier finds it by the new value.
    const found = await curator.call<{ entities: { ref: string }[] }>("find_by_identifier", {
      value: "A-18",
    });
    expect(found.entities.map((i) => i.ref)).toEqual([a.ref]);
  });

  it("resolves everything before writing: an ambiguous or missing identifier changes nothing", async () => {
    const a = asset(repo);
    addIdentifier(repo.svc.db, a.ref, "code", "1");
    addIdentifier(repo.svc.db, a.ref, "code", "2");
    const before = storeDigest(repo);
    const ambiguous = await curator.raw("edit_identifiers", {
      ref: a.ref,
      add: [{ type: "new", value: "x" }],
      remove: [{ type: "code" }],
    });
    expect(textOf(ambiguous)).toMatch(
      /has 2 identifiers of type code \(code “1”; code “2”\); say which by its value\. Nothing was changed\./,
    );
    const missing = await curator.raw("edit_identifiers", {
      ref: a.ref,
      change: [{ type: "isbn", to: "9" }],
    });
    expect(textOf(missing)).toMatch(/has no identifier of type isbn; it has: code “1”; code “2”/);
    const twice = await curator.raw("edit_identifiers", {
      ref: a.ref,
      change: [{ type: "code", from: "1", to: "3" }],
      remove: [{ type: "code", value: "1" }],
    });
    expect(textOf(twice)).toMatch(/named twice/);
    const control = await curator.raw("edit_identifiers", {
      ref: a.ref,
      remove: [{ type: "code", value: "1" }],
      add: [{ type: "new", value: "bell\u0007" }],
    });
    expect(textOf(control)).toMatch(/The value of new holds the character U\+0007.*Nothing was changed/);
    expect(textOf(await curator.raw("edit_identifiers", { ref: a.ref }))).toMatch(/at least one of `add`/);
    expect(
      textOf(
        await curator.raw("edit_identifiers", {
          ref: "11111111-2222-4333-8444-555555555555",
          add: [{ type: "a", value: "b" }],
        }),
      ),
    ).toMatch(/^Nothing with ref/);
    expect(storeDigest(repo)).toBe(before);
    const args = { ref: a.ref, remove: [{ type: "code", value: "2" }] };
    const p = await curator.call<Preview>("edit_identifiers", args);
    addIdentifier(repo.svc.db, a.ref, "code", "3"); // changed since the preview
    const stale = await curator.raw("edit_identifiers", {
      ...args,
      confirmation: p.confirmationRequired.token,
    });
    expect(textOf(stale)).toMatch(/changed since the preview; nothing was changed/);
    const p2 = await curator.call<Preview>("edit_identifiers", args);
    const ok = await curator.call<Answer>("edit_identifiers", {
      ...args,
      confirmation: p2.confirmationRequired.token,
    });
    expect(ok.identifiers).toEqual([
      { type: "code", value: "1" },
      { type: "code", value: "3" },
    ]);
  });

  it("numbers several assets in one call with one preview and one confirmation ({nn} in the value)", async () => {
    const box = insertEntity(repo.svc.db, {
      type: "SO",
      title: `Harbour memories ${era}`,
      securityTag: "open",
    });
    const put = (title: string, type: "IO" | "SO" = "IO") =>
      insertEntity(repo.svc.db, { type, title, securityTag: "open", parentRef: box.ref });
    const tapes = ["Tape one", "Tape two", "Tape three"].map((t) => put(t));
    put("Transcripts", "SO");
    addIdentifier(repo.svc.db, tapes[1]?.ref ?? "", "accession", "HM-02");
    const args = { refs: tapes.map((t) => t.ref), add: [{ type: "accession", value: "HM-{nn}" }] };
    const before = storeDigest(repo);
    const p = await curator.call<Preview>("edit_identifiers", args);
    expect(storeDigest(repo)).toBe(before);
    expect(p.confirmationRequired.summary).toBe("Change the identifiers of 2 (3 refs)");
    expect(p.confirmationRequired.details).toEqual([
      `  asset “Tape one” ${tapes[0]?.ref}: add accession “HM-01”`,
      `  asset “Tape three” ${tapes[2]?.ref}: add accession “HM-03”`,
      "Already so (1, left alone):",
      `  asset “Tape two” ${tapes[1]?.ref}: has accession “HM-02”`,
    ]);
    const res = await curator.raw("edit_identifiers", {
      ...args,
      confirmation: p.confirmationRequired.token,
    });
    expect(res.isError, textOf(res)).toBeFalsy();
    expect(textOf(res).split("\n")[0]).toBe("Identifiers (3 refs): 2 done, 1 already so.");
    const found = await curator.call<{ hits?: { ref: string }[]; entities?: { ref: string }[] }>(
      "find_by_identifier",
      {
        type: "accession",
        value: "HM-03",
      },
    );
    expect(JSON.stringify(found)).toContain(tapes[2]?.ref);
  });

  it("is not offered to a reader", async () => {
    const names = (await reader.client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain("edit_identifiers");
  });
});
