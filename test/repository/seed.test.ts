import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { inflateSync } from "node:zlib";
import { XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { isbn13 } from "../../repository/seed/demo-tree.js";
import { crc32, csvFile, pdfFile, pngFile, wavFile, zlibStored } from "../../repository/seed/files.js";
import { Prng, uuidFrom } from "../../repository/seed/ids.js";
import { DEMO_METADATA_GROUP } from "../../repository/seed/metadata-groups.js";
import { DEMO_RETENTION_POLICIES } from "../../repository/seed/retention.js";
import { DEMO_USER_DEFS, ROLE_GRANTS } from "../../repository/seed/users.js";
import {
  DEFAULT_DEMO_PASSWORDS,
  DEMO,
  DEMO_TOTP_SECRET,
  seedDemo,
  seedSynthetic,
  seedUsersAndTags,
} from "../../repository/seed.js";
import {
  ALL_PERMISSIONS,
  checkPassword,
  getUser,
  Permission,
  Permissions,
  Role,
} from "../../repository/store/auth.js";
import { ContentStore } from "../../repository/store/content-store.js";
import { type Db, openDatabase } from "../../repository/store/db.js";
import { reindexEntity } from "../../repository/store/entities/write.js";
import { startTestRepository } from "../helpers/repository.js";
import { tempDir } from "../helpers/temp-dir.js";

interface Store {
  db: Db;
  content: ContentStore;
  contentDir: string;
}
function freshStore(): Store {
  const contentDir = join(tempDir("seed-test-"), "content");
  return { db: openDatabase(null), content: new ContentStore(contentDir), contentDir };
}

function blobPath(contentDir: string, sha256: string): string {
  return join(contentDir, sha256.slice(0, 2), sha256);
}

/** Everything the seed decides, as comparable rows (row ids excluded only where they are internal). */
function snapshot(db: Db) {
  const all = (sql: string) => db.prepare(sql).all();
  return {
    entities: all(
      "SELECT id, ref, type, title, description, security_tag, parent_ref, created, modified FROM entities ORDER BY id",
    ),
    fragments: all(
      "SELECT mref, entity_ref, schema_uri, content, created FROM metadata_fragments ORDER BY id",
    ),
    identifiers: all("SELECT api_id, entity_ref, type, value FROM identifiers ORDER BY id"),
    links: all("SELECT api_id, link_type, from_ref, to_ref FROM links ORDER BY id"),
    events: all(
      "SELECT ref, type, date, username, workflow_name, workflow_instance_id FROM events ORDER BY id",
    ),
    actions: all(
      "SELECT e.ref, a.entity_ref, a.command_type, a.date FROM event_actions a JOIN events e ON e.id = a.event_id ORDER BY a.id",
    ),
    bitstreams: all(
      `SELECT g.co_ref, g.format_puid, b.filename, b.size, b.content_sha256, f.algorithm, f.value
       FROM bitstreams b JOIN generations g ON g.id = b.generation_id JOIN fixities f ON f.bitstream_id = b.id
       ORDER BY b.id, f.algorithm`,
    ),
  };
}

describe("demo seed", () => {
  const a = freshStore();
  const b = freshStore();
  seedDemo(a.db, a.content);
  seedDemo(b.db, b.content);
  const db = a.db;

  it("is deterministic: two fresh stores hold identical refs, titles, dates, metadata and fixities", () => {
    const sa = snapshot(a.db);
    expect(sa.entities.length).toBe(DEMO.counts.total);
    expect(snapshot(b.db)).toEqual(sa);
    // DEMO describes exactly what was written, in insertion order.
    expect(
      (sa.entities as { ref: string; title: string; security_tag: string }[]).map((e) => [
        e.ref,
        e.title,
        e.security_tag,
      ]),
    ).toEqual(DEMO.entities.map((e) => [e.ref, e.title, e.securityTag]));
  });

  it("has a realistic size and the counts DEMO announces", () => {
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    expect(DEMO.counts.total).toBeGreaterThanOrEqual(250);
    expect(DEMO.counts.total).toBeLessThanOrEqual(400);
    const byType = Object.fromEntries(
      (
        db.prepare("SELECT type, count(*) AS n FROM entities GROUP BY type").all() as {
          type: string;
          n: number;
        }[]
      ).map((r) => [r.type, r.n]),
    );
    expect(byType).toEqual(DEMO.counts.byType);
    const byTag = Object.fromEntries(
      (
        db.prepare("SELECT security_tag AS t, count(*) AS n FROM entities GROUP BY t").all() as {
          t: string;
          n: number;
        }[]
      ).map((r) => [r.t, r.n]),
    );
    expect(byTag).toEqual(DEMO.counts.byTag);
    expect(DEMO.counts.byTag.closed).toBeGreaterThan(0);
    expect(DEMO.counts.byTag.staff).toBeGreaterThan(0);
    expect(count("SELECT count(*) AS n FROM metadata_fragments")).toBe(DEMO.counts.fragments);
    expect(count("SELECT count(*) AS n FROM identifiers")).toBe(DEMO.counts.identifiers);
    expect(count("SELECT count(*) AS n FROM links")).toBe(DEMO.counts.links);
    expect(count("SELECT count(*) AS n FROM events")).toBe(DEMO.counts.events);
    expect(count("SELECT count(*) AS n FROM representations")).toBe(DEMO.counts.representations);
    expect(count("SELECT count(*) AS n FROM bitstreams")).toBe(DEMO.counts.bitstreams);
    expect(count("SELECT count(*) AS n FROM entity_fts")).toBe(DEMO.counts.total);
  });

  it("has the announced root folders, and folders nest at least three levels deep", () => {
    const roots = db
      .prepare("SELECT ref, title, security_tag FROM entities WHERE parent_ref IS NULL ORDER BY id")
      .all() as { ref: string; title: string; security_tag: string }[];
    expect(roots.map((r) => ({ ref: r.ref, title: r.title, securityTag: r.security_tag }))).toEqual(
      DEMO.rootFolders,
    );
    expect(roots.map((r) => r.title)).toContain("Harbour Town Council");
    const nested = db
      .prepare(
        `SELECT count(*) AS n FROM entities io JOIN entities f ON f.ref = io.parent_ref JOIN entities s ON s.ref = f.parent_ref
         JOIN entities r ON r.ref = s.parent_ref WHERE io.type = 'IO' AND r.parent_ref IS NULL`,
      )
      .get() as { n: number };
    expect(nested.n).toBeGreaterThan(0);
  });

  it("gives every asset a Preservation representation whose COs are its children, each with one original active generation", () => {
    const ios = db.prepare("SELECT ref FROM entities WHERE type = 'IO'").all() as { ref: string }[];
    for (const { ref } of ios) {
      const reps = db
        .prepare(
          `SELECT r.type, o.co_ref, c.parent_ref FROM representations r JOIN representation_objects o ON o.representation_id = r.id
           JOIN entities c ON c.ref = o.co_ref WHERE r.io_ref = ?`,
        )
        .all(ref) as { type: string; co_ref: string; parent_ref: string }[];
      expect(reps.filter((r) => r.type === "Preservation").length, ref).toBeGreaterThanOrEqual(1);
      for (const r of reps) expect(r.parent_ref).toBe(ref);
    }
    const cos = db
      .prepare(
        `SELECT c.ref, (SELECT count(*) FROM representation_objects o WHERE o.co_ref = c.ref) AS reps,
           (SELECT count(*) FROM generations g WHERE g.co_ref = c.ref AND g.original = 1 AND g.active = 1
              AND g.format_puid IS NOT NULL AND g.format_name IS NOT NULL AND g.format_group IS NOT NULL) AS gens
         FROM entities c WHERE c.type = 'CO'`,
      )
      .all() as { ref: string; reps: number; gens: number }[];
    expect(cos.length).toBe(DEMO.counts.byType.CO);
    for (const co of cos) expect([co.ref, co.reps, co.gens]).toEqual([co.ref, 1, 1]);
    // Some assets also have an access copy.
    const access = db.prepare("SELECT count(*) AS n FROM representations WHERE type = 'Access'").get() as {
      n: number;
    };
    expect(access.n).toBeGreaterThan(10);
  });

  it("stores real files: bytes match the recorded size and every fixity, and formats start with their magic bytes", () => {
    const rows = db
      .prepare(
        `SELECT b.id, b.filename, b.size, b.mime_type, b.content_sha256 AS sha, g.format_puid AS puid FROM bitstreams b
         JOIN generations g ON g.id = b.generation_id`,
      )
      .all() as {
      id: number;
      filename: string;
      size: number;
      mime_type: string;
      sha: string;
      puid: string;
    }[];
    const mimes = new Set<string>();
    for (const r of rows) {
      const bytes = readFileSync(blobPath(a.contentDir, r.sha));
      expect(bytes.length, r.filename).toBe(r.size);
      const fix = Object.fromEntries(
        (
          db.prepare("SELECT algorithm, value FROM fixities WHERE bitstream_id = ?").all(r.id) as {
            algorithm: string;
            value: string;
          }[]
        ).map((f) => [f.algorithm, f.value]),
      );
      expect(fix).toEqual({
        MD5: createHash("md5").update(bytes).digest("hex"),
        SHA1: createHash("sha1").update(bytes).digest("hex"),
        SHA256: createHash("sha256").update(bytes).digest("hex"),
        SHA512: createHash("sha512").update(bytes).digest("hex"),
      });
      mimes.add(r.mime_type);
      const head = bytes.subarray(0, 8);
      if (r.mime_type === "image/png") {
        expect(head).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
        expect(r.puid).toBe("fmt/11");
      }
      if (r.mime_type === "application/pdf") {
        expect(bytes.subarray(0, 8).toString("latin1")).toBe("%PDF-1.4");
        expect(bytes.subarray(-6).toString("latin1")).toBe("%%EOF\n");
      }
      if (r.mime_type === "audio/x-wav") expect(bytes.subarray(8, 12).toString("latin1")).toBe("WAVE");
      if (r.mime_type === "application/xml") expect(XMLValidator.validate(bytes.toString("utf8"))).toBe(true);
    }
    expect([...mimes].sort()).toEqual([
      "application/pdf",
      "application/xml",
      "audio/x-wav",
      "image/png",
      "text/csv",
      "text/plain",
    ]);
  });

  it("has well-formed Dublin Core on most assets and some folders, plus a second schema on some", () => {
    const frags = db
      .prepare(
        "SELECT f.entity_ref, f.schema_uri, f.content, e.type FROM metadata_fragments f JOIN entities e ON e.ref = f.entity_ref",
      )
      .all() as { entity_ref: string; schema_uri: string; content: string; type: string }[];
    for (const f of frags) expect(XMLValidator.validate(f.content), f.content).toBe(true);
    const dc = frags.filter((f) => f.schema_uri === "http://www.openarchives.org/OAI/2.0/oai_dc/");
    expect(
      dc.every((f) => f.content.startsWith("<oai_dc:dc xmlns:oai_dc=") && f.content.includes("<dc:title>")),
    ).toBe(true);
    const ioWithDc = new Set(dc.filter((f) => f.type === "IO").map((f) => f.entity_ref));
    expect(ioWithDc.size / DEMO.counts.byType.IO).toBeGreaterThan(0.8);
    expect(dc.some((f) => f.type === "SO")).toBe(true);
    const local = frags.filter((f) => f.schema_uri === "http://harbourtown.example.org/schema/accession/v1");
    expect(local.length).toBeGreaterThan(0);
    expect(local.some((f) => ioWithDc.has(f.entity_ref))).toBe(true);
  });

  it("names well-known entities in DEMO.refs with the right types, tags and formats", () => {
    const entity = (ref: string) =>
      db.prepare("SELECT type, title, security_tag FROM entities WHERE ref = ?").get(ref) as
        | { type: string; title: string; security_tag: string }
        | undefined;
    for (const [key, ref] of Object.entries(DEMO.refs)) expect(entity(ref), key).toBeDefined();
    expect(entity(DEMO.refs.councilMinutes1851)).toMatchObject({
      type: "IO",
      title: "Council minutes 1851",
      security_tag: "open",
    });
    expect(entity(DEMO.refs.harbourBoardMinutes1851)?.title).toBe("Harbour Board minutes 1851");
    expect(entity(DEMO.refs.mapNorthQuay1850)?.title).toBe("Map of the North Quay 1850");
    expect(entity(DEMO.refs.closedAsset)?.security_tag).toBe("closed");
    expect(entity(DEMO.refs.councilMinutes1866Confidential)?.security_tag).toBe("closed");
    expect(entity(DEMO.refs.staffAsset)?.security_tag).toBe("staff");
    expect(entity(DEMO.refs.councilMinutesSeries)?.type).toBe("SO");
    const mimesOf = (ref: string) =>
      (
        db
          .prepare(
            `SELECT b.mime_type FROM representations r JOIN representation_objects o ON o.representation_id = r.id
             JOIN generations g ON g.co_ref = o.co_ref JOIN bitstreams b ON b.generation_id = g.id
             WHERE r.io_ref = ? AND r.type = 'Preservation'`,
          )
          .all(ref) as { mime_type: string }[]
      ).map((r) => r.mime_type);
    expect(mimesOf(DEMO.refs.pdfAsset)).toEqual(["application/pdf"]);
    expect(mimesOf(DEMO.refs.pngAsset)).toEqual(["image/png"]);
    expect(mimesOf(DEMO.refs.textAsset)).toEqual(["text/plain"]);
    expect(mimesOf(DEMO.refs.csvAsset)).toEqual(["text/csv"]);
    expect(mimesOf(DEMO.refs.xmlAsset)).toContain("application/xml");
    expect(mimesOf(DEMO.refs.wavAsset)).toContain("audio/x-wav");
  });

  it("has identifiers of several types, links between existing assets, and a searchable index", () => {
    const types = (
      db.prepare("SELECT DISTINCT type FROM identifiers ORDER BY type").all() as { type: string }[]
    ).map((r) => r.type);
    expect(types).toEqual(["accession", "code", "isbn"]);
    const isbn = db
      .prepare("SELECT value FROM identifiers WHERE entity_ref = ? AND type = 'isbn'")
      .get(DEMO.refs.historyOfHarbourTown) as { value: string };
    expect(isbn.value).toMatch(/^97[89]\d{10}$/);
    expect(isbn13(isbn.value.slice(0, 12))).toBe(isbn.value);

    const links = db
      .prepare(
        `SELECT l.link_type, f.type AS ft, t.type AS tt FROM links l JOIN entities f ON f.ref = l.from_ref
         JOIN entities t ON t.ref = l.to_ref`,
      )
      .all() as { link_type: string; ft: string; tt: string }[];
    expect(links.length).toBe(DEMO.counts.links);
    expect(links.every((l) => l.link_type.startsWith("http://purl.org/dc/terms/"))).toBe(true);
    expect(new Set(links.map((l) => l.link_type)).size).toBeGreaterThanOrEqual(2);

    const search = (q: string) =>
      (
        db
          .prepare(
            "SELECT e.ref FROM entity_fts JOIN entities e ON e.id = entity_fts.rowid WHERE entity_fts MATCH ?",
          )
          .all(q) as { ref: string }[]
      ).map((r) => r.ref);
    expect(search("harbour board minutes 1851")).toContain(DEMO.refs.harbourBoardMinutes1851);
    expect(search("north quay map 1850")).toContain(DEMO.refs.mapNorthQuay1850);
    // Metadata text is indexed too: the net maker's interview is found by its DC subject.
    expect(search("herring")).toContain(DEMO.refs.interviewDoyle);
  });

  it("has retention policies to assign (none assigned yet) and a metadata group with a controlled field", () => {
    const policies = db
      .prepare(
        "SELECT ref, name, period, period_unit, assignable FROM retention_policies ORDER BY created, name",
      )
      .all() as { ref: string; name: string; period: number | null; period_unit: string | null }[];
    expect(policies.map((p) => [p.ref, p.name])).toEqual(
      DEMO_RETENTION_POLICIES.map((p) => [p.ref, p.name]).sort((x, y) =>
        String(x[1]).localeCompare(String(y[1])),
      ),
    );
    const byName = new Map(policies.map((p) => [p.name, p]));
    expect(byName.get("Board minutes — permanent")?.period).toBeNull();
    expect(byName.get("Personnel files — 75 years")).toMatchObject({ period: 75, period_unit: "YEARS" });
    expect(db.prepare("SELECT count(*) AS n FROM retention_assignments").get()).toEqual({ n: 0 });
    expect(policies.every((p) => (p as unknown as { assignable: number }).assignable === 1)).toBe(true);

    const group = db.prepare("SELECT id, name, schema_uri, definition FROM metadata_groups").all() as {
      id: string;
      name: string;
      schema_uri: string;
      definition: string;
    }[];
    expect(group.map((g) => [g.id, g.name, g.schema_uri])).toEqual([
      [
        DEMO_METADATA_GROUP.id,
        "Location and condition",
        "http://www.preservica.com/metadata/group/location_and_condition",
      ],
    ]);
    const fields = JSON.parse(group[0]?.definition ?? "{}").fields as { id: string; values?: string[] }[];
    expect(fields.map((f) => f.id)).toEqual(["box", "shelf", "condition", "surveyed"]);
    expect(fields.find((f) => f.id === "condition")?.values).toEqual(["Good", "Fair", "Poor", "Fragile"]);
  });

  it("records ingest events covering every entity once, then later events, spread over 2023-2026", () => {
    const created = db
      .prepare(
        `SELECT a.entity_ref, count(*) AS n FROM event_actions a JOIN events e ON e.id = a.event_id
         WHERE e.type = 'Ingest' GROUP BY a.entity_ref`,
      )
      .all() as { entity_ref: string; n: number }[];
    expect(created.length).toBe(DEMO.counts.total);
    expect(created.every((c) => c.n === 1)).toBe(true);
    const events = db.prepare("SELECT type, date, username FROM events ORDER BY date").all() as {
      type: string;
      date: string;
      username: string;
    }[];
    expect(new Set(events.map((e) => e.type))).toEqual(
      new Set(["Ingest", "Characterise", "Modified", "IntegrityCheck"]),
    );
    expect(new Set(events.map((e) => e.username))).toEqual(new Set(["manager", "curator"]));
    const years = new Set(events.map((e) => e.date.slice(0, 4)));
    expect(years).toEqual(new Set(["2023", "2024", "2025", "2026"]));
    // An entity is never acted on before it exists.
    const early = db
      .prepare(
        "SELECT count(*) AS n FROM event_actions a JOIN entities e ON e.ref = a.entity_ref WHERE a.date < e.created",
      )
      .get() as { n: number };
    expect(early.n).toBe(0);
    const touched = db.prepare("SELECT count(*) AS n FROM entities WHERE modified > created").get() as {
      n: number;
    };
    expect(touched.n).toBeGreaterThan(0);
  });
});

describe("file generators", () => {
  it("computes the PNG CRC-32 and writes zlib streams any inflater reads", () => {
    expect(crc32(Buffer.from("IEND", "ascii"))).toBe(0xae426082);
    const data = Buffer.alloc(70_000, 7); // more than one stored block
    expect(inflateSync(zlibStored(data)).equals(data)).toBe(true);
    expect(inflateSync(zlibStored(Buffer.alloc(0))).length).toBe(0);
  });

  it("writes PNG chunks with valid CRCs and pixel data of the declared size", () => {
    const png = pngFile(5, 3, (x, y) => [x * 10, y * 20, 200]);
    let pos = 8;
    const types: string[] = [];
    let idat = Buffer.alloc(0);
    while (pos < png.length) {
      const len = png.readUInt32BE(pos);
      const typed = png.subarray(pos + 4, pos + 8 + len);
      expect(png.readUInt32BE(pos + 8 + len)).toBe(crc32(typed));
      const type = typed.subarray(0, 4).toString("ascii");
      types.push(type);
      if (type === "IDAT") idat = Buffer.concat([idat, typed.subarray(4)]);
      pos += 12 + len;
    }
    expect(types).toEqual(["IHDR", "IDAT", "IEND"]);
    const raw = inflateSync(idat);
    expect(raw.length).toBe(3 * (1 + 5 * 3));
    expect([...raw.subarray(1, 4)]).toEqual([0, 0, 200]);
  });

  it("writes PDFs whose cross-reference offsets point at their objects", () => {
    const pdf = pdfFile({
      title: "Map (North Quay)",
      author: "A\\B",
      date: "1850-01-01T00:00:00Z",
      lines: ["one", "two"],
    });
    const s = pdf.toString("latin1");
    const startxref = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(s)?.[1]);
    expect(s.slice(startxref, startxref + 4)).toBe("xref");
    const offsets = [...s.matchAll(/(\d{10}) 00000 n \n/g)].map((m) => Number(m[1]));
    expect(offsets.length).toBe(6);
    offsets.forEach((o, i) => {
      expect(s.slice(o).startsWith(`${i + 1} 0 obj`)).toBe(true);
    });
    expect(s).toContain("(Map \\(North Quay\\)) Tj");
    const m = /\/Length (\d+) >>\nstream\n/.exec(s);
    expect(m).not.toBeNull();
    const end = (m?.index ?? 0) + (m?.[0].length ?? 0) + Number(m?.[1]);
    expect(s.slice(end, end + 10)).toBe("\nendstream");
  });

  it("writes WAV headers that agree with the data, and CSV with RFC 4180 quoting", () => {
    const wav = wavFile(3, 100);
    expect(wav.subarray(0, 4).toString("latin1")).toBe("RIFF");
    expect(wav.readUInt32LE(4)).toBe(wav.length - 8);
    expect(wav.readUInt32LE(40)).toBe(wav.length - 44);
    expect(
      csvFile([
        ["a", 'say "hi"', "x,y"],
        [1, 2, 3],
      ]).toString(),
    ).toBe('a,"say ""hi""","x,y"\r\n1,2,3\r\n');
  });

  it("derives stable v4-shaped UUIDs and a repeatable random sequence", () => {
    expect(uuidFrom("demo:x")).toBe(uuidFrom("demo:x"));
    expect(uuidFrom("demo:x")).not.toBe(uuidFrom("demo:y"));
    expect(uuidFrom("demo:x")).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    const seq = (seed: string) => {
      const r = new Prng(seed);
      return Array.from({ length: 5 }, () => r.int(0, 1000));
    };
    expect(seq("s")).toEqual(seq("s"));
    expect(seq("s")).not.toEqual(seq("t"));
  });
});

describe("users, tags and grants", () => {
  const db = openDatabase(null);
  seedUsersAndTags(db, DEFAULT_DEMO_PASSWORDS);
  const perms = (username: string) => new Permissions(db, getUser(db, username)?.roles ?? []);

  it("creates the security tags and the demo users in tenant DEMO", () => {
    const tags = (db.prepare("SELECT name FROM security_tags ORDER BY name").all() as { name: string }[]).map(
      (r) => r.name,
    );
    expect(tags).toEqual(["closed", "open", "staff"]);
    for (const [name, password] of Object.entries(DEFAULT_DEMO_PASSWORDS)) {
      const user = checkPassword(db, name, password);
      expect(user?.tenant, name).toBe("DEMO");
      expect(user?.email).toMatch(/@example\.org$/);
      expect(user?.fullName).toMatch(/^\S+ \S+/);
    }
    expect(checkPassword(db, "reader", "wrong")).toBeUndefined();
  });

  it("lets the reader read and download open material only", () => {
    const reader = perms("reader");
    expect(reader.permits("open", Permission.READ_METADATA)).toBe(true);
    expect(reader.permits("open", Permission.DOWNLOAD)).toBe(true);
    expect(reader.permits("open", Permission.UPDATE_METADATA)).toBe(false);
    expect(reader.permits("closed", Permission.READ_METADATA)).toBe(false);
    expect(reader.permits("staff", Permission.READ_METADATA)).toBe(false);
    expect(reader.tagsWith(Permission.READ_METADATA)).toEqual(["open"]);
  });

  it("lets the curator curate everywhere but not delete or change security", () => {
    const curator = perms("curator");
    for (const tag of ["open", "closed", "staff"]) {
      for (const p of [
        Permission.READ_METADATA,
        Permission.DOWNLOAD,
        Permission.UPDATE_METADATA,
        Permission.INGEST,
        Permission.MOVE,
      ]) {
        expect(curator.permits(tag, p), `${tag} ${p}`).toBe(true);
      }
      expect(curator.permits(tag, Permission.DELETE)).toBe(false);
      expect(curator.permits(tag, Permission.CHANGE_SECURITY)).toBe(false);
    }
    expect(getUser(db, "curator")?.roles).not.toContain("ROLE_SDB_ADMIN_USER");
  });

  it("gives the manager every permission on every tag and all five roles", () => {
    const manager = perms("manager");
    for (const tag of ["open", "closed", "staff"]) {
      for (const p of ALL_PERMISSIONS) expect(manager.permits(tag, p), `${tag} ${p}`).toBe(true);
    }
    expect(getUser(db, "manager")?.roles).toEqual([
      "ROLE_SDB_ACCESS_USER",
      "ROLE_SDB_DATA_MANAGEMENT_USER",
      "ROLE_SDB_MANAGER_USER",
      "ROLE_SDB_ADMIN_USER",
      "ROLE_SDB_REGISTRY_ADMIN_USER",
    ]);
  });

  it("makes guest a temporary user that must answer a challenge, and twofactor a reader with a TOTP secret", () => {
    const guest = getUser(db, "guest");
    expect(guest?.temporary).toBe(true);
    expect(guest?.needsChallenge).toBe(true);
    const expires = Date.parse(guest?.expires ?? "");
    expect(Math.abs(expires - (Date.now() + 365 * 86_400_000))).toBeLessThan(60_000);
    expect(guest?.roles).toEqual(["ROLE_SDB_ACCESS_USER"]);
    const tf = getUser(db, "twofactor");
    expect(tf?.totpSecret).toBe(DEMO_TOTP_SECRET);
    expect(DEMO_TOTP_SECRET).toMatch(/^[A-Z2-7]+$/);
    expect(tf?.roles).toEqual(["ROLE_SDB_ACCESS_USER"]);
    expect(perms("twofactor").tagsWith(Permission.READ_METADATA)).toEqual(["open"]);
  });

  it("is idempotent and keeps stored hashes when passwords are unchanged", () => {
    const hashes = () => db.prepare("SELECT username, password_hash FROM users ORDER BY username").all();
    const grants = () => db.prepare("SELECT * FROM tag_permissions ORDER BY role, tag, permission").all();
    const before = { h: hashes(), g: grants() };
    db.prepare("UPDATE users SET needs_challenge = 0 WHERE username = 'guest'").run();
    const t0 = performance.now();
    seedUsersAndTags(db, DEFAULT_DEMO_PASSWORDS);
    const elapsed = performance.now() - t0;
    expect(hashes()).toEqual(before.h);
    expect(grants()).toEqual(before.g);
    // No scrypt at all on an unchanged start (each one costs tens of milliseconds).
    expect(elapsed).toBeLessThan(25);
    // A challenge already answered is not asked again after a restart.
    expect(getUser(db, "guest")?.needsChallenge).toBe(false);
  });

  it("applies password overrides, and restores a default that was changed behind its back", () => {
    seedUsersAndTags(db, { ...DEFAULT_DEMO_PASSWORDS, reader: "a-secret-override" });
    expect(checkPassword(db, "reader", "a-secret-override")).toBeDefined();
    expect(checkPassword(db, "reader", DEFAULT_DEMO_PASSWORDS.reader)).toBeUndefined();
    // Overridden passwords leave no fast-hash marker behind.
    expect(db.prepare("SELECT count(*) AS n FROM meta WHERE key LIKE '%reader%'").get()).toEqual({ n: 0 });
    seedUsersAndTags(db, { ...DEFAULT_DEMO_PASSWORDS, reader: "a-secret-override" });
    expect(checkPassword(db, "reader", "a-secret-override")).toBeDefined();

    seedUsersAndTags(db, DEFAULT_DEMO_PASSWORDS);
    expect(checkPassword(db, "reader", DEFAULT_DEMO_PASSWORDS.reader)).toBeDefined();
    const other = freshStore().db;
    seedUsersAndTags(other, { ...DEFAULT_DEMO_PASSWORDS, curator: "elsewhere" });
    const foreignHash = (
      other.prepare("SELECT password_hash FROM users WHERE username = 'curator'").get() as {
        password_hash: string;
      }
    ).password_hash;
    db.prepare("UPDATE users SET password_hash = ? WHERE username = 'curator'").run(foreignHash);
    seedUsersAndTags(db, DEFAULT_DEMO_PASSWORDS);
    expect(checkPassword(db, "curator", DEFAULT_DEMO_PASSWORDS.curator)).toBeDefined();
  });
});

describe("users, tags and grants on a restart", () => {
  const changes = (db: Db) => db.prepare("SELECT total_changes()").pluck().get() as number;
  const seeded = () => {
    const db = openDatabase(null);
    seedUsersAndTags(db, DEFAULT_DEMO_PASSWORDS);
    return db;
  };

  it("writes nothing when users, tags, grants and passwords are already as seeded", () => {
    const db = seeded();
    const before = changes(db);
    seedUsersAndTags(db, DEFAULT_DEMO_PASSWORDS);
    // A day later the guest's expiry is still within the renewal slack: still no write.
    seedUsersAndTags(db, DEFAULT_DEMO_PASSWORDS, Date.now() + 3_600_000);
    expect(changes(db)).toBe(before);
    // An override that already holds is checked, not rewritten.
    const passwords = { ...DEFAULT_DEMO_PASSWORDS, reader: "an-override" };
    seedUsersAndTags(db, passwords);
    const afterOverride = changes(db);
    seedUsersAndTags(db, passwords);
    expect(changes(db)).toBe(afterOverride);
    expect(checkPassword(db, "reader", "an-override")).toBeDefined();
  });

  it("still resets what was changed behind its back, as every start did before", () => {
    const db = seeded();
    db.prepare("UPDATE users SET full_name = 'Someone Else', roles = '[]' WHERE username = 'curator'").run();
    db.prepare("DELETE FROM tag_permissions WHERE role = ? AND tag = 'open'").run(Role.ACCESS);
    db.prepare("DELETE FROM security_tags WHERE name = 'staff'").run();
    db.prepare("DELETE FROM users WHERE username = 'twofactor'").run();
    seedUsersAndTags(db, DEFAULT_DEMO_PASSWORDS);
    expect(getUser(db, "curator")?.fullName).toBe("Daniel Okafor");
    expect(getUser(db, "curator")?.roles).toEqual([Role.ACCESS, Role.DATA_MANAGEMENT]);
    expect(new Permissions(db, [Role.ACCESS]).tagsWith(Permission.READ_METADATA)).toEqual(["open"]);
    expect(db.prepare("SELECT name FROM security_tags WHERE name = 'staff'").pluck().get()).toBe("staff");
    expect(checkPassword(db, "twofactor", DEFAULT_DEMO_PASSWORDS.twofactor)?.totpSecret).toBe(
      DEMO_TOTP_SECRET,
    );
  });

  it("applies a changed seed definition and renews an expiry more than a day old", () => {
    const db = seeded();
    const reader = DEMO_USER_DEFS.find((u) => u.username === "reader");
    const accessGrants = ROLE_GRANTS[Role.ACCESS];
    if (!reader || !accessGrants) throw new Error("the demo seed has no reader or access role");
    const { fullName } = reader;
    const { staff } = accessGrants;
    try {
      (reader as { fullName: string }).fullName = "Ruth Albright-Ng";
      accessGrants.staff = [Permission.READ_METADATA];
      seedUsersAndTags(db, DEFAULT_DEMO_PASSWORDS);
      expect(getUser(db, "reader")?.fullName).toBe("Ruth Albright-Ng");
      expect(new Permissions(db, [Role.ACCESS]).permits("staff", Permission.READ_METADATA)).toBe(true);
    } finally {
      (reader as { fullName: string }).fullName = fullName;
      accessGrants.staff = staff;
    }
    const later = Date.now() + 2 * 86_400_000;
    seedUsersAndTags(db, DEFAULT_DEMO_PASSWORDS, later);
    expect(Date.parse(getUser(db, "guest")?.expires ?? "")).toBe(later + 365 * 86_400_000);
  });
});

describe("synthetic seed", () => {
  it("writes exactly n entities in a realistic shape", () => {
    const s = freshStore();
    seedSynthetic(s.db, s.content, 2000);
    const db = s.db;
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    expect(count("SELECT count(*) AS n FROM entities")).toBe(2000);
    expect(count("SELECT count(*) AS n FROM entity_fts")).toBe(2000);
    const io = count("SELECT count(*) AS n FROM entities WHERE type = 'IO'");
    expect(count("SELECT count(*) AS n FROM entities WHERE type = 'CO'")).toBe(io);
    expect(io).toBeGreaterThan(900);
    // Every asset has a fragment, a code identifier and a preservation CO with a bitstream.
    expect(count("SELECT count(DISTINCT entity_ref) AS n FROM metadata_fragments")).toBe(io);
    expect(
      count(
        "SELECT count(*) AS n FROM identifiers i JOIN entities e ON e.ref = i.entity_ref WHERE e.type = 'IO'",
      ),
    ).toBe(io);
    expect(
      count(
        `SELECT count(*) AS n FROM representations r JOIN representation_objects o ON o.representation_id = r.id
         JOIN generations g ON g.co_ref = o.co_ref JOIN bitstreams b ON b.generation_id = g.id WHERE r.type = 'Preservation'`,
      ),
    ).toBe(io);
    expect(count("SELECT count(*) AS n FROM entities WHERE security_tag = 'closed'")).toBeGreaterThan(0);
    // Folders of 50-200 assets; assets three to five levels down.
    const sizes = db
      .prepare("SELECT count(*) AS n FROM entities WHERE type = 'IO' GROUP BY parent_ref")
      .all() as { n: number }[];
    expect(Math.max(...sizes.map((x) => x.n))).toBeLessThanOrEqual(200);
    const depths = db
      .prepare(
        `WITH RECURSIVE d(ref, depth) AS (SELECT ref, 1 FROM entities WHERE parent_ref IS NULL
           UNION ALL SELECT e.ref, d.depth + 1 FROM entities e JOIN d ON e.parent_ref = d.ref)
         SELECT DISTINCT depth FROM d JOIN entities e ON e.ref = d.ref WHERE e.type = 'IO' ORDER BY depth`,
      )
      .all() as { depth: number }[];
    for (const { depth } of depths) expect([3, 4, 5]).toContain(depth);
    // Ingest events cover every entity.
    expect(count("SELECT count(DISTINCT entity_ref) AS n FROM event_actions")).toBe(2000);
    // The bulk writer leaves the search tables exactly as reindexEntity would have built them.
    const sample = db
      .prepare("SELECT ref, id FROM entities WHERE type = 'IO' ORDER BY id LIMIT 40")
      .all() as {
      ref: string;
      id: number;
    }[];
    const dcRows = (ref: string) =>
      db
        .prepare("SELECT name, value, position FROM entity_dc_values WHERE entity_ref = ? ORDER BY position")
        .all(ref);
    const ftsRow = (id: number) =>
      db.prepare("SELECT title, description, metadata FROM entity_fts WHERE rowid = ?").get(id);
    for (const { ref, id } of sample) {
      const bulk = { dc: dcRows(ref), fts: ftsRow(id) };
      expect(bulk.dc.length).toBeGreaterThan(5);
      reindexEntity(db, ref);
      expect({ dc: dcRows(ref), fts: ftsRow(id) }).toEqual(bulk);
    }
    // The blobs exist in the content store.
    for (const { sha } of db.prepare("SELECT DISTINCT content_sha256 AS sha FROM bitstreams").all() as {
      sha: string;
    }[]) {
      expect(s.content.has(sha)).toBe(true);
    }
  });

  it("is deterministic and exact for awkward sizes", () => {
    const refs = (n: number) => {
      const s = freshStore();
      seedSynthetic(s.db, s.content, n);
      return s.db.prepare("SELECT ref, type, title, created FROM entities ORDER BY id").all();
    };
    expect(refs(501)).toEqual(refs(501));
    for (const n of [0, 1, 2, 3, 4, 203, 999]) expect(refs(n).length, String(n)).toBe(n);
    expect(() => seedSynthetic(openDatabase(null), freshStore().content, -1)).toThrow(/whole number/);
  });
});

describe("repository start-up with the demo seed", () => {
  it("seeds an empty data directory once and restarts on it without reseeding", async () => {
    const dataDir = tempDir("seed-test-");
    const first = await startTestRepository({ dataDir, seed: "demo" });
    try {
      expect(first.seeded).toBe(true);
    } finally {
      await first.close();
    }
    const t0 = performance.now();
    const second = await startTestRepository({ dataDir, seed: "demo" });
    const startMs = performance.now() - t0;
    try {
      expect(second.seeded).toBe(false);
      const n = second.svc.db.prepare("SELECT count(*) AS n FROM entities").get() as { n: number };
      expect(n.n).toBe(DEMO.counts.total);
      expect(startMs).toBeLessThan(1000);
      // A restart on unchanged data writes nothing (no write lock taken, the file left alone).
      expect(second.svc.db.prepare("SELECT total_changes()").pluck().get()).toBe(0);
    } finally {
      await second.close();
    }
  });
});
