import { expect } from "vitest";
import { send, target } from "./client.js";
import type { Harness } from "./harness.js";
import { checkReply } from "./reply-checks.js";
import { C, E, FORM } from "./wire.js";

/**
 * Seeded random loops over the inputs whose shape is open-ended: `q` strings, paging values and Range
 * headers. Each checks every answer as the table does, and that the service still serves after the loop
 * (`stillServing`, from the harness).
 */

/** A small seeded PRNG (mulberry32) so property loops reproduce. */
function prng(seed: number) {
  let s = seed | 0;
  const next = () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T,
  };
}

/** 300 random q strings: 200, or 400 for broken JSON (seed 20240601). */
export async function randomQueries(h: Harness): Promise<void> {
  const logged = h.logged();
  const rnd = prng(20240601);
  const atoms = [
    '"',
    "*",
    "(",
    ")",
    ":",
    "^",
    "NEAR",
    "AND",
    "OR",
    "NOT",
    "-",
    "%",
    "{",
    "}",
    "[",
    "]",
    "\\",
    "'",
    " ",
    "  ",
    "maps",
    "charts",
    "é",
    "\u0000",
    "\u0007",
    "\t",
    "\n",
    "xip.title:",
    "id:",
    "oai_dc.subject:",
    ",",
    "+",
    "&",
    "=",
    "#",
    "?",
    "🗺",
  ];
  for (let i = 0; i < 300; i++) {
    let q = "";
    for (let n = rnd.int(1, 12); n > 0; n--) q += rnd.pick(atoms);
    const listing = rnd.pick(["/search", "/top-level-list", "/search-within?parenthierarchy={so}"]);
    const r = await send({
      name: `random q #${i}`,
      method: "POST",
      path: C + listing,
      headers: FORM,
      body: new URLSearchParams({ q }).toString(),
    });
    checkReply(`random q #${i} ${JSON.stringify(q)}`, "POST", r);
    const allowed = q.trim().startsWith("{") ? [200, 400] : [200];
    expect(
      allowed,
      `random q #${i} ${JSON.stringify(q)}: ${r.body.toString("utf8").slice(0, 200)}`,
    ).toContain(r.status);
  }
  await h.stillServing("the loop", logged);
}

/** 200 random start/max values, read exactly as documented (seed 7). */
export async function randomPaging(h: Harness): Promise<void> {
  const logged = h.logged();
  const rnd = prng(7);
  const atoms = ["0", "1", "9", "-", "+", "%2B", ".", "e", "%20", "x", "%00", "99999999"];
  for (let i = 0; i < 200; i++) {
    let v = "";
    for (let n = rnd.int(1, 5); n > 0; n--) v += rnd.pick(atoms);
    const p = rnd.pick(["start", "max"]);
    // Empty means the default; otherwise digits (surrounding blanks forgiven), or max=-1 for "all".
    const raw = new URLSearchParams(`v=${v}`).get("v") ?? "";
    const decoded = raw.trim();
    const valid =
      raw === "" ||
      (/^\d+$/.test(decoded) && Number.isSafeInteger(Number(decoded))) ||
      (p === "max" && decoded === "-1");
    const path = rnd.pick([`${E}/root/children`, `${C}/search`, `${E}/events`]);
    const r = await send({ name: `random ${p}=${v}`, path: `${path}?${p}=${v}` });
    checkReply(`random ${p}=${v}`, "GET", r);
    expect(r.status, `${path}?${p}=${v}`).toBe(valid ? 200 : 400);
  }
  await h.stillServing("the loop", logged);
}

/** 150 random Range headers, each a consistent 200, 206 or 416 (seed 99). */
export async function randomRanges(h: Harness): Promise<void> {
  const logged = h.logged();
  const rnd = prng(99);
  const atoms = ["bytes", "=", "-", ",", " ", "0", "1", "5", "100", "99999999999", "x", "e"];
  const { size } = h.repo.svc.db
    .prepare(
      "SELECT b.size FROM bitstreams b JOIN generations g ON g.id = b.generation_id WHERE g.co_ref = ? AND g.idx = 1 AND b.idx = 1",
    )
    .get(target.fx.co) as { size: number };
  for (let i = 0; i < 150; i++) {
    let range = "";
    for (let n = rnd.int(1, 6); n > 0; n--) range += rnd.pick(atoms);
    if (rnd.next() < 0.5) range = `bytes=${range}`;
    const r = await send({
      name: `Range ${range}`,
      path: `${E}/content-objects/{co}/generations/1/bitstreams/1/content`,
      headers: { Range: range },
    });
    checkReply(`Range ${range}`, "GET", r);
    expect([200, 206, 416], range).toContain(r.status);
    if (r.status === 200) expect(r.body.length, range).toBe(size);
    if (r.status === 206) {
      const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(r.headers["content-range"]));
      expect(m, range).not.toBeNull();
      expect(r.body.length, range).toBe(Number(m?.[2]) - Number(m?.[1]) + 1);
      expect(Number(m?.[3])).toBe(size);
    }
    if (r.status === 416) expect(r.headers["content-range"], range).toBe(`bytes */${size}`);
  }
  await h.stillServing("the loop", logged);
}
