import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addFragment, insertEntity } from "../../repository/store/entities/write.js";
import { authed, login, startTestRepository } from "../helpers/repository.js";
import { type ContentFixture, LETTER_TEXT, objectId, startContentFixture } from "./content-fixture.js";

/** Content API listings over real HTTP: search, search-within, top-level-list, object-children. */

let fx: ContentFixture;
let managerToken: string;
let readerToken: string;

beforeAll(async () => {
  fx = await startContentFixture();
  managerToken = (await login(fx.repo.url, "manager")).token;
  readerToken = (await login(fx.repo.url, "reader")).token;
});
afterAll(async () => {
  await fx?.repo.close();
});

type ParamValue = string | string[] | object;
interface Reply {
  status: number;
  body: {
    success: boolean;
    message?: string;
    version?: number;
    value: {
      objectIds: string[];
      totalHits: number;
      metadata: { name: string; value: string | string[] }[][];
      facets: {
        name: string;
        displayName: string;
        terms: { name: string; value: string; count: number }[];
      }[];
      simpleChildSearch: boolean;
      highlighting?: Record<string, string[]>;
    };
  };
}

/** Calls a listing endpoint with GET (query string) or POST (form body); objects are sent as JSON. */
async function call(
  endpoint: string,
  params: Record<string, ParamValue>,
  opts: { token?: string; method?: "GET" | "POST" } = {},
): Promise<Reply> {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (Array.isArray(v)) for (const item of v) form.append(k, item);
    else form.append(k, typeof v === "string" ? v : JSON.stringify(v));
  }
  const headers: Record<string, string> = {};
  if (opts.token !== "") headers["Preservica-Access-Token"] = opts.token ?? managerToken;
  const method = opts.method ?? "GET";
  const res =
    method === "GET"
      ? await fetch(`${fx.repo.url}/api/content/${endpoint}?${form}`, { headers })
      : await fetch(`${fx.repo.url}/api/content/${endpoint}`, {
          method: "POST",
          headers: { ...headers, "Content-Type": "application/x-www-form-urlencoded" },
          body: form,
        });
  return { status: res.status, body: (await res.json()) as Reply["body"] };
}

async function ok(
  endpoint: string,
  params: Record<string, ParamValue>,
  opts: Parameters<typeof call>[2] = {},
) {
  const r = await call(endpoint, params, opts);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.success).toBe(true);
  return r.body.value;
}

const reader = { token: "" };
beforeAll(() => {
  reader.token = readerToken;
});

const sorted = (ids: string[]) => [...ids].sort();

describe.each(["GET", "POST"] as const)("search via %s", (method) => {
  it("finds words in titles, descriptions and Dublin Core metadata", async () => {
    const byTitle = await ok("search", { q: { q: "harbour" } }, { method });
    expect(sorted(byTitle.objectIds)).toEqual(
      sorted([objectId(fx.chart), objectId(fx.letter), objectId(fx.secret)]),
    );
    expect(byTitle.totalHits).toBe(3);
    expect(byTitle.simpleChildSearch).toBe(false);

    const byDescription = await ok("search", { q: { q: "complaint" } }, { method });
    expect(byDescription.objectIds).toEqual([objectId(fx.letter)]);

    const byDublinCore = await ok("search", { q: { q: "hydrographic" } }, { method });
    expect(sorted(byDublinCore.objectIds)).toEqual(sorted([objectId(fx.chart), objectId(fx.estate)]));

    // Plain text (not JSON) in q is the text query.
    const plain = await ok("search", { q: "lighthouses" }, { method });
    expect(plain.objectIds).toEqual([objectId(fx.sketch)]);
  });

  it("ranks title matches first and highlights the matched words", async () => {
    const v = await ok("search", { q: { q: "harbour" }, metadata: "xip.title" }, { method });
    // Two titles contain the word; the private letter has it only in its description.
    expect(v.objectIds.at(-1)).toBe(objectId(fx.secret));
    expect(v.highlighting?.[objectId(fx.chart)]?.[0]).toContain("<em>Harbour</em>");
  });

  it("answers a prefix query for a trailing % or *", async () => {
    for (const q of ["light%", "light*", "LIGHT*"]) {
      const v = await ok("search", { q: { q } }, { method });
      expect(v.objectIds, q).toEqual([objectId(fx.sketch)]);
    }
    const v = await ok("search", { q: { q: "harbour%" } }, { method });
    expect(v.totalHits).toBe(3);
  });
});

describe("everything, and what a reader may see", () => {
  it("matches everything for an empty query, % or no q at all", async () => {
    const all = [
      ...[fx.maps, fx.charts, fx.chart, fx.sketch, fx.estate, fx.letters, fx.letter, fx.secret],
      ...[fx.staff, fx.handbook, fx.notice],
    ];
    const variants: Record<string, ParamValue>[] = [{ q: { q: "%" } }, { q: { q: "" } }, { q: "%" }, {}];
    for (const params of variants) {
      const v = await ok("search", { ...params, max: "-1" });
      expect(sorted(v.objectIds), JSON.stringify(params)).toEqual(sorted(all.map(objectId)));
      expect(v.totalHits).toBe(11);
    }
  });

  it("never shows a reader a closed or staff entity, not even in totals", async () => {
    const v = await ok("search", { q: { q: "%" }, max: "-1" }, reader);
    expect(sorted(v.objectIds)).toEqual(
      sorted([fx.maps, fx.charts, fx.chart, fx.sketch, fx.letters, fx.letter, fx.notice].map(objectId)),
    );
    expect(v.totalHits).toBe(7);
    const harbour = await ok("search", { q: { q: "harbour" } }, reader);
    expect(sorted(harbour.objectIds)).toEqual(sorted([objectId(fx.chart), objectId(fx.letter)]));
    expect(harbour.totalHits).toBe(2);
    const estate = await ok("search", { q: { q: "pennington" } }, reader);
    expect(estate).toMatchObject({ objectIds: [], totalHits: 0 });
  });

  it("never finds a deleted entity", async () => {
    const v = await ok("search", { q: { q: "withdrawn" } });
    expect(v).toMatchObject({ objectIds: [], totalHits: 0 });
  });

  it("answers id:<ref> with that entity and its full text", async () => {
    const v = await ok("search", {
      q: { q: `id:${fx.letter.ref}` },
      metadata: "xip.reference,xip.full_text,xip.document_type",
    });
    expect(v.objectIds).toEqual([objectId(fx.letter)]);
    expect(v.metadata[0]).toEqual([
      { name: "xip.reference", value: fx.letter.ref },
      { name: "xip.full_text", value: LETTER_TEXT },
      { name: "xip.document_type", value: "IO" },
    ]);
    const hidden = await ok("search", { q: `id:${fx.secret.ref}` }, reader);
    expect(hidden.totalHits).toBe(0);
  });
});

describe("field filters", () => {
  const search = (fields: object[], who = reader) => ok("search", { q: { q: "%", fields }, max: "-1" }, who);

  it("filters on document type, with NOT", async () => {
    const folders = await search([{ name: "xip.document_type", values: ["SO"] }]);
    expect(sorted(folders.objectIds)).toEqual(sorted([fx.maps, fx.charts, fx.letters].map(objectId)));
    const assets = await search([{ name: "xip.document_type", values: ["SO"], operator: "NOT" }]);
    expect(sorted(assets.objectIds)).toEqual(
      sorted([fx.chart, fx.sketch, fx.letter, fx.notice].map(objectId)),
    );
  });

  it("matches Dublin Core values exactly (case-insensitive) or with % wildcards, in any namespace prefix", async () => {
    const admiralty = await search([{ name: "oai_dc.creator", values: ["admiralty hydrographic office"] }], {
      token: managerToken,
    });
    expect(sorted(admiralty.objectIds)).toEqual(sorted([objectId(fx.chart), objectId(fx.estate)]));
    const smith = await search([{ name: "oai_dc.creator", values: ["J.%"] }]);
    expect(smith.objectIds).toEqual([objectId(fx.sketch)]);
    const partial = await search([{ name: "oai_dc.creator", values: ["Admiralty"] }]);
    expect(partial.totalHits).toBe(0);
    const either = await search([{ name: "oai_dc.subject", values: ["lighthouses", "navigation"] }]);
    expect(sorted(either.objectIds)).toEqual(sorted([objectId(fx.chart), objectId(fx.sketch)]));
  });

  it("combines filters with AND and ignores filters without values", async () => {
    const v = await search([
      { name: "oai_dc.subject", values: ["harbours"] },
      { name: "xip.document_type", values: ["IO"] },
      { name: "xip.title", values: [] },
      { name: "xip.description", values: [""] },
      { name: "custom.unknown_index", values: [] },
    ]);
    expect(sorted(v.objectIds)).toEqual(sorted([objectId(fx.chart), objectId(fx.letter)]));
    const notHarbours = await search([
      { name: "oai_dc.subject", values: ["harbours"], operator: "NOT" },
      { name: "xip.document_type", values: ["IO"] },
    ]);
    expect(notHarbours.objectIds).toEqual([objectId(fx.sketch), objectId(fx.notice)]);
  });

  it("filters on identifiers, titles, parents and security tags", async () => {
    expect((await search([{ name: "xip.identifier", values: ["MAP-0001"] }])).objectIds).toEqual([
      objectId(fx.chart),
    ]);
    expect((await search([{ name: "xip.identifier", values: ["code MAP-0002"] }])).objectIds).toEqual([
      objectId(fx.sketch),
    ]);
    expect((await search([{ name: "xip.identifier", values: ["map-%"] }])).totalHits).toBe(2);
    expect((await search([{ name: "xip.title", values: ["Lighthouse%"] }])).objectIds).toEqual([
      objectId(fx.sketch),
    ]);
    expect((await search([{ name: "xip.parent_ref", values: [fx.letters.ref] }])).objectIds).toEqual([
      objectId(fx.letter),
    ]);
    const closed = await search([{ name: "xip.security_descriptor", values: ["closed"] }], {
      token: managerToken,
    });
    expect(sorted(closed.objectIds)).toEqual(sorted([objectId(fx.estate), objectId(fx.secret)]));
  });

  it("filters on xip.parent_hierarchy: everything below a folder, as pyPreservica searches within one", async () => {
    // search_index_filter_list(filter_values={"xip.document_type": "IO", "xip.parent_hierarchy": FOLDER})
    const below = await search([{ name: "xip.parent_hierarchy", values: [fx.maps.ref] }]);
    expect(sorted(below.objectIds)).toEqual(sorted([fx.charts, fx.chart, fx.sketch].map(objectId)));
    const assets = await search([
      { name: "xip.document_type", values: ["IO"] },
      { name: "xip.parent_hierarchy", values: [fx.maps.ref.toUpperCase()] },
      { name: "xip.security_descriptor", values: ["open"] },
    ]);
    expect(sorted(assets.objectIds)).toEqual(sorted([fx.chart, fx.sketch].map(objectId)));
    const either = await search([{ name: "xip.parent_hierarchy", values: [fx.charts.ref, fx.letters.ref] }]);
    expect(sorted(either.objectIds)).toEqual(sorted([fx.chart, fx.sketch, fx.letter].map(objectId)));
    const hierarchy = await ok(
      "search",
      {
        q: { q: "%", fields: [{ name: "xip.parent_hierarchy", values: [fx.charts.ref] }] },
        metadata: "xip.parent_hierarchy",
      },
      reader,
    );
    expect(hierarchy.metadata[hierarchy.objectIds.indexOf(objectId(fx.chart))]).toEqual([
      { name: "xip.parent_hierarchy", value: [fx.charts.ref, fx.maps.ref] },
    ]);
  });

  it("filters xip.created by [FROM TO UNTIL] ranges and date prefixes", async () => {
    const range = await search([{ name: "xip.created", values: ["[2020-01-01 TO 2021-12-31]"] }]);
    expect(sorted(range.objectIds)).toEqual(sorted([objectId(fx.chart), objectId(fx.sketch)]));
    // A bare date as the upper bound covers that whole day.
    const day = await search([{ name: "xip.created", values: ["[* TO 2020-03-01]"] }]);
    expect(day.objectIds).toContain(objectId(fx.chart));
    const year = await search([{ name: "xip.created", values: ["2022"] }], { token: managerToken });
    expect(sorted(year.objectIds)).toEqual(sorted([objectId(fx.letter), objectId(fx.secret)]));
    // Bounds with a time compare as instants, whatever their zone or precision (chart: 09:00:00.000Z).
    for (const bounds of [
      "[2020-03-01T10:00:00+01:00 TO 2020-03-01T09:00:00Z]",
      "[2020-03-01T09:00Z TO 2020-03-01T09:00]",
    ]) {
      const instant = await search([{ name: "xip.created", values: [bounds] }]);
      expect(instant.objectIds, bounds).toEqual([objectId(fx.chart)]);
    }
    const bad = await call("search", {
      q: { q: "%", fields: [{ name: "xip.created", values: ["last week"] }] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/xip\.created/);
  });

  it("takes field terms written in the text", async () => {
    const v = await ok(
      "search",
      { q: "harbour xip.document_type:IO -oai_dc.subject:harbours" },
      { token: managerToken },
    );
    expect(v.objectIds).toEqual([objectId(fx.secret)]);
  });
});

describe("sorting", () => {
  const assets = { name: "xip.document_type", values: ["IO"] };
  it("sorts by title ascending and descending", async () => {
    const asc = await ok(
      "search",
      { q: { q: "%", fields: [assets], sort: [{ sortFields: ["xip.title"], sortOrder: "asc" }] } },
      reader,
    );
    expect(asc.objectIds).toEqual([fx.chart, fx.letter, fx.sketch, fx.notice].map(objectId));
    const desc = await ok(
      "search",
      { q: { q: "%", fields: [assets], sort: [{ sortFields: ["xip.title"], sortOrder: "DESC" }] } },
      reader,
    );
    expect(desc.objectIds).toEqual([fx.notice, fx.sketch, fx.letter, fx.chart].map(objectId));
  });

  it("sorts by creation date and by Dublin Core values", async () => {
    const byDate = await ok(
      "search",
      { q: { q: "%", fields: [assets], sort: [{ sortFields: ["xip.created"], sortOrder: "desc" }] } },
      reader,
    );
    expect(byDate.objectIds).toEqual([fx.letter, fx.sketch, fx.chart, fx.notice].map(objectId));
    const byCreator = await ok(
      "search",
      { q: { q: "%", fields: [assets], sort: [{ sortFields: ["oai_dc.creator"], sortOrder: "asc" }] } },
      reader,
    );
    // Entities without the value come last, whichever the direction.
    expect(byCreator.objectIds).toEqual([fx.chart, fx.letter, fx.sketch, fx.notice].map(objectId));
  });

  it("rejects an unknown sort field or order with a 400 that names it", async () => {
    const field = await call("search", {
      q: { q: "%", sort: [{ sortFields: ["xip.colour"], sortOrder: "asc" }] },
    });
    expect(field.status).toBe(400);
    expect(field.body.message).toContain("xip.colour");
    const order = await call("search", {
      q: { q: "%", sort: [{ sortFields: ["xip.title"], sortOrder: "sideways" }] },
    });
    expect(order.status).toBe(400);
    expect(order.body.message).toContain("sideways");
  });
});

describe("metadata of each hit", () => {
  it("returns the asked-for fields in a list parallel to objectIds", async () => {
    const fields = [
      "xip.reference",
      "xip.title",
      "xip.document_type",
      "xip.parent_ref",
      "xip.security_descriptor",
      "xip.top_level_so",
      "xip.identifier",
      "oai_dc.subject",
      "xip.format_group",
    ];
    const v = await ok("search", { q: { q: "harbour" }, metadata: fields.join(",") }, reader);
    expect(v.metadata).toHaveLength(v.objectIds.length);
    const byId = Object.fromEntries(
      v.objectIds.map((id, i) => [
        id,
        Object.fromEntries((v.metadata[i] ?? []).map((m) => [m.name, m.value])),
      ]),
    );
    v.metadata.forEach((row) => {
      expect(row.map((m) => m.name)).toEqual(fields);
    });
    expect(byId[objectId(fx.chart)]).toEqual({
      "xip.reference": fx.chart.ref,
      "xip.title": "Harbour chart of 1850",
      "xip.document_type": "IO",
      "xip.parent_ref": fx.charts.ref,
      "xip.security_descriptor": "open",
      "xip.top_level_so": fx.maps.ref,
      "xip.identifier": ["code MAP-0001"],
      "oai_dc.subject": ["harbours", "navigation"],
      "xip.format_group": ["Image"],
    });
    expect(byId[objectId(fx.letter)]?.["xip.top_level_so"]).toBe(fx.letters.ref);
    expect(byId[objectId(fx.letter)]?.["xip.identifier"]).toEqual([]);
  });

  it("accepts metadata as repeated keys in a form body", async () => {
    const v = await ok(
      "search",
      { q: { q: "lighthouse" }, metadata: ["xip.title", "xip.created", "oai_dc.creator"] },
      { method: "POST", token: readerToken },
    );
    expect(v.metadata).toEqual([
      [
        { name: "xip.title", value: "Lighthouse sketch" },
        { name: "xip.created", value: "2021-06-15T12:00:00.000Z" },
        { name: "oai_dc.creator", value: ["J. Smith"] },
      ],
    ]);
  });
});

describe("paging", () => {
  it("pages through every hit with a stable total, and an empty page past the end", async () => {
    const all = await ok("search", { q: { q: "%" }, max: "-1" });
    expect(all.objectIds).toHaveLength(11);
    const seen: string[] = [];
    for (let start = 0; start < 12; start += 3) {
      const page = await ok("search", {
        q: { q: "%" },
        start: String(start),
        max: "3",
        metadata: "xip.title",
      });
      expect(page.totalHits).toBe(11);
      expect(page.metadata).toHaveLength(page.objectIds.length);
      seen.push(...page.objectIds);
    }
    expect(seen).toEqual(all.objectIds);
    const past = await ok("search", { q: { q: "%" }, start: "20", max: "5" });
    expect(past).toMatchObject({ objectIds: [], totalHits: 11, metadata: [] });
    const countOnly = await ok("search", { q: { q: "harbour" }, max: "0" });
    expect(countOnly).toMatchObject({ objectIds: [], totalHits: 3 });
  });

  it("rejects paging that is not a number", async () => {
    const r = await call("search", { q: "%", start: "abc" });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("start");
  });
});

describe("facets", () => {
  const terms = (v: Reply["body"]["value"], name: string) =>
    Object.fromEntries((v.facets.find((f) => f.name === name)?.terms ?? []).map((t) => [t.value, t.count]));

  it("counts values over the hits the caller may see", async () => {
    const q = { q: "%", facets: ["xip.document_type", "xip.security_descriptor", "oai_dc.creator"] };
    const asReader = await ok("search", { q }, reader);
    expect(asReader.facets.map((f) => f.name)).toEqual([
      "xip.document_type",
      "xip.security_descriptor",
      "oai_dc.creator",
    ]);
    expect(terms(asReader, "xip.document_type")).toEqual({ IO: 4, SO: 3 });
    expect(terms(asReader, "xip.security_descriptor")).toEqual({ open: 7 });
    expect(terms(asReader, "oai_dc.creator")).toEqual({
      "Admiralty Hydrographic Office": 1,
      "J. Smith": 1,
      "Ann Other": 1,
    });
    const asManager = await ok("search", { q });
    expect(terms(asManager, "xip.document_type")).toEqual({ IO: 7, SO: 4 });
    expect(terms(asManager, "xip.security_descriptor")).toEqual({ open: 7, closed: 2, staff: 2 });
    expect(terms(asManager, "oai_dc.creator")["Admiralty Hydrographic Office"]).toBe(2);
  });

  it("restricts counts to the hits and takes facets as a request parameter too", async () => {
    const v = await ok(
      "search",
      { q: "harbour", facets: "xip.document_type,xip.format_group,xip.created" },
      reader,
    );
    expect(terms(v, "xip.document_type")).toEqual({ IO: 2 });
    expect(terms(v, "xip.format_group")).toEqual({ Image: 1, Text: 1 });
    expect(terms(v, "xip.created")).toEqual({ "2020": 1, "2022": 1 });
    const unknown = await call("search", { q: "%", facets: "xip.colour" });
    expect(unknown.status).toBe(400);
  });
});

describe("listings", () => {
  it("search-within finds hits anywhere below a folder", async () => {
    const asReader = await ok(
      "search-within",
      { q: { q: "%" }, parenthierarchy: fx.maps.ref, max: "-1" },
      reader,
    );
    expect(sorted(asReader.objectIds)).toEqual(sorted([fx.charts, fx.chart, fx.sketch].map(objectId)));
    const asManager = await ok("search-within", { q: "%", parenthierarchy: objectId(fx.maps), max: "-1" });
    expect(asManager.totalHits).toBe(4);
    const harbour = await ok(
      "search-within",
      { q: "harbour", parenthierarchy: fx.maps.ref },
      { method: "POST" },
    );
    expect(harbour.objectIds).toEqual([objectId(fx.chart)]);
  });

  it("search-within says what is wrong with its folder", async () => {
    const missing = await call("search-within", {
      q: "%",
      parenthierarchy: "0b0b0b0b-0000-4000-8000-000000000000",
    });
    expect(missing.status).toBe(404);
    const malformed = await call("search-within", { q: "%", parenthierarchy: "maps" });
    expect(malformed.status).toBe(400);
    const none = await call("search-within", { q: "%" });
    expect(none.status).toBe(400);
    expect(none.body.message).toContain("parenthierarchy");
    const notAFolder = await call("search-within", { q: "%", parenthierarchy: fx.chart.ref });
    expect(notAFolder.status).toBe(404);
    const forbidden = await call("search-within", { q: "%", parenthierarchy: fx.staff.ref }, reader);
    expect(forbidden.status).toBe(403);
  });

  it("top-level-list lists the root folders", async () => {
    const asReader = await ok("top-level-list", { q: "%", metadata: "xip.title" }, reader);
    expect(sorted(asReader.objectIds)).toEqual(sorted([objectId(fx.maps), objectId(fx.letters)]));
    const asManager = await ok("top-level-list", {}, { method: "POST" });
    expect(asManager.totalHits).toBe(3);
  });

  it("object-children lists direct children only", async () => {
    const asReader = await ok("object-children", { id: objectId(fx.maps) }, reader);
    expect(asReader.objectIds).toEqual([objectId(fx.charts)]);
    const asManager = await ok("object-children", { id: objectId(fx.maps), q: "%" });
    expect(sorted(asManager.objectIds)).toEqual(sorted([objectId(fx.charts), objectId(fx.estate)]));
    const files = await ok("object-children", { id: objectId(fx.chart) });
    expect(sorted(files.objectIds)).toEqual(sorted(fx.chartCos.map(objectId)));
    const forbidden = await call("object-children", { id: objectId(fx.estate) }, reader);
    expect(forbidden.status).toBe(403);
  });
});

describe("bad requests", () => {
  it("answers 401 without a token", async () => {
    const r = await call("search", { q: "%" }, { token: "" });
    expect(r.status).toBe(401);
    expect(r.body.success).toBe(false);
  });

  it("answers 400 with a clear message when q starts like JSON but does not parse", async () => {
    const r = await call("search", { q: '{ "q":  "say "hello"" }' });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/not valid JSON/);
    const shape = await call("search", { q: { q: "%", fields: "xip.title" } });
    expect(shape.status).toBe(400);
    expect(shape.body.message).toContain("fields");
  });

  it("rejects filters on fields that are not indexed, naming the list of fields", async () => {
    const r = await call("search", { q: { q: "%", fields: [{ name: "xip.colour", values: ["red"] }] } });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("indexed-fields");
    const op = await call("search", {
      q: { q: "%", fields: [{ name: "xip.title", values: ["x"], operator: "MAYBE" }] },
    });
    expect(op.status).toBe(400);
  });

  it("never turns search text into an error, whatever it holds", async () => {
    const junk = [
      '"(AND OR NOT *)',
      "NEAR(a b",
      "title:^x",
      "-",
      "OR",
      "***",
      "%%%",
      "harbour -",
      '"unterminated phrase',
      "a\u0000b",
      "col:value ^ $ { }",
      "-harbour",
    ];
    for (const q of junk) {
      for (const sent of [q, { q }]) {
        const r = await call("search", { q: sent });
        expect(r.status, `${JSON.stringify(sent)}: ${r.body.message}`).toBe(200);
      }
    }
    // Only exclusions: everything visible except the matches.
    const notHarbour = await ok("search", { q: "-harbour", max: "-1" }, reader);
    expect(notHarbour.totalHits).toBe(5);
    // Nothing searchable at all matches nothing rather than everything.
    const punctuation = await ok("search", { q: "!!! ???" }, reader);
    expect(punctuation.totalHits).toBe(0);
  });
});

describe("totals after the store changes", () => {
  it("counts again once an entity is added or deleted", async () => {
    const repo = await startTestRepository();
    try {
      const { db } = repo.svc;
      for (const title of ["North quay", "South quay", "East quay"]) {
        insertEntity(db, { type: "SO", title, securityTag: "open" });
      }
      const get = authed(repo.url, (await login(repo.url, "manager")).token);
      const total = async () => {
        const q = encodeURIComponent(JSON.stringify({ q: "quay", facets: ["xip.document_type"] }));
        const body = (await (await get(`/api/content/search?q=${q}&max=1`)).json()) as Reply["body"];
        return { hits: body.value.totalHits, facet: body.value.facets[0]?.terms[0]?.count };
      };
      expect(await total()).toEqual({ hits: 3, facet: 3 });
      const west = insertEntity(db, { type: "SO", title: "West quay", securityTag: "open" });
      expect(await total()).toEqual({ hits: 4, facet: 4 });
      db.prepare("UPDATE entities SET deleted = 1 WHERE ref = ?").run(west.ref);
      expect(await total()).toEqual({ hits: 3, facet: 3 });
    } finally {
      await repo.close();
    }
  });
});

describe("full text of metadata documents", () => {
  it("indexes the documents' text: character references decoded, CDATA included, markup left out", async () => {
    const repo = await startTestRepository();
    try {
      const { db } = repo.svc;
      const e = insertEntity(db, { type: "IO", title: "Accession", securityTag: "open" });
      addFragment(
        db,
        e.ref,
        "urn:example:notes",
        `<notes xmlns="urn:example:notes"><a>Caf&#233; Royal</a><b><![CDATA[lighthouse keeper]]></b><c>fish &amp; chips</c></notes>`,
      );
      const get = authed(repo.url, (await login(repo.url, "manager")).token);
      const hits = async (text: string) => {
        const body = (await (
          await get(`/api/content/search?q=${encodeURIComponent(text)}`)
        ).json()) as Reply["body"];
        return body.value.totalHits;
      };
      expect(await hits("café")).toBe(1);
      expect(await hits("keeper")).toBe(1);
      expect(await hits("chips")).toBe(1);
      expect(await hits("amp")).toBe(0);
      expect(await hits("notes")).toBe(0);
    } finally {
      await repo.close();
    }
  });
});
