import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileOf } from "../../../repository/search/files.js";
import type { RunningRepository } from "../../../repository/server.js";
import { DEMO_USERS, type DemoUser, login, startTestRepository } from "../../helpers/repository.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { storeHash } from "../writes/store-hash.js";

/**
 * The read-only CMIS endpoint driven by a real CMIS client: Debian's `cmis-client` (libcmis, package
 * cmis-client) over loopback with HTTP Basic. It lists the repository, the root's children, shows a
 * folder and an asset, downloads content byte-exact, and is refused when it tries to write (libcmis
 * refuses what the allowable actions forbid; what it sends anyway, the service refuses). Skipped with a
 * note when the package is not installed (`apt-get install -y cmis-client`).
 */

const run = promisify(execFile);
const HAS_CLIENT = await run("cmis-client", ["--help"]).then(
  () => true,
  () => false,
);
if (!HAS_CLIENT)
  console.warn("CMIS client tests skipped: install Debian's cmis-client (libcmis) to run them");

let repo: RunningRepository;

interface Ran {
  code: number;
  out: string;
}

/** Runs cmis-client as a demo user (Basic), in `cwd`; never prompts (stdin closed). */
async function cmis(who: DemoUser | { username: string; password: string }, args: string[], cwd = tmpdir()) {
  const { username, password } = typeof who === "string" ? DEMO_USERS[who] : who;
  const child = run(
    "cmis-client",
    ["--url", `${repo.url}/api/cmis/atom`, "-u", username, "-p", password, ...args],
    {
      cwd,
      timeout: 30_000,
    },
  );
  child.child.stdin?.end();
  return child.then(
    (r): Ran => ({ code: 0, out: r.stdout + r.stderr }),
    (e: { code?: number; stdout?: string; stderr?: string }): Ran => ({
      code: e.code ?? -1,
      out: `${e.stdout ?? ""}${e.stderr ?? ""}`,
    }),
  );
}

/** Ids of the readable folders and assets under `parent` (null: the top level), for the given tags. */
function childIds(parent: string | null, tags: string[]): string[] {
  return (
    repo.svc.db
      .prepare(
        `SELECT type, ref FROM entities WHERE type IN ('SO','IO') AND deleted = 0
           AND parent_ref IS ? AND security_tag IN (${tags.map(() => "?").join(",")}) ORDER BY id`,
      )
      .all(parent, ...tags) as { type: string; ref: string }[]
  ).map((r) => `sdb:${r.type}|${r.ref}`);
}

/** The `Children [Name (Id)]` lines of a folder dump, as ids. */
function listedChildren(out: string): string[] {
  const section = out.split("Children [Name (Id)]:")[1] ?? "";
  return [...section.matchAll(/\((sdb:(?:SO|IO)\|[0-9a-f-]{36})\)\s*$/gm)].map((m) => m[1] as string);
}

function entity(where: string): {
  ref: string;
  title: string;
  parent_ref: string | null;
  security_tag: string;
} {
  return repo.svc.db
    .prepare(`SELECT * FROM entities WHERE deleted = 0 AND ${where} ORDER BY id LIMIT 1`)
    .get() as {
    ref: string;
    title: string;
    parent_ref: string | null;
    security_tag: string;
  };
}

describe.skipIf(!HAS_CLIENT)("CMIS with Debian's cmis-client (libcmis)", () => {
  beforeAll(async () => {
    repo = await startTestRepository({ seed: "demo" });
  });
  afterAll(async () => {
    await repo?.close();
  });

  it("lists the one repository and its information: CMIS 1.1, root folder, read-only capabilities, queries", async () => {
    const repos = await cmis("reader", ["list-repos"]);
    expect(repos.code, repos.out).toBe(0);
    expect(repos.out).toMatch(/Preservation repository .* \(preservica\)/);
    const info = await cmis("reader", ["repo-infos"]);
    expect(info.out).toMatch(/Root Id:\s+root/);
    expect(info.out).toMatch(/Supported CMIS Version: 1\.1/);
    expect(info.out).toMatch(/ContentStreamUpdatability: none/);
    expect(info.out).toMatch(/Query: bothcombined/);
    expect(info.out).toMatch(/ACL: none/);
  });

  it("shows the root's children: the top level, as far as each user may read", async () => {
    const asReader = listedChildren((await cmis("reader", ["show-root"])).out);
    expect(asReader).toEqual(childIds(null, ["open"]));
    const asManager = listedChildren((await cmis("manager", ["show-root"])).out);
    expect(asManager).toEqual(childIds(null, ["open", "closed", "staff"]));
    expect(asReader.length).toBeGreaterThan(0);
  });

  it("shows a folder: name, path, parent, children and read-only allowable actions", async () => {
    const folder = entity("type = 'SO' AND security_tag = 'open' AND parent_ref IS NOT NULL");
    const parent = entity(`ref = '${folder.parent_ref}'`);
    const r = await cmis("reader", ["show-by-id", `sdb:SO|${folder.ref}`]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain("Folder Object:");
    expect(r.out).toContain(`Name: ${folder.title}`);
    expect(r.out).toContain("Type: cmis:folder");
    expect(r.out).toMatch(new RegExp(`Folder Parent Id: sdb:SO\\|${parent.ref}`));
    expect(r.out).toMatch(/Path: \/.+\//);
    expect(r.out).toContain("canGetChildren: 1");
    for (const action of [
      "canCreateFolder",
      "canCreateDocument",
      "canDeleteObject",
      "canUpdateProperties",
      "canMoveObject",
    ]) {
      expect(r.out).toContain(`${action}: 0`);
    }
    expect(listedChildren(r.out)).toEqual(childIds(folder.ref, ["open"]));
  });

  it("shows an asset with the Content API's property names and its content stream", async () => {
    const asset = entity("type = 'IO' AND security_tag = 'open'");
    const file = fileOf(repo.svc.db, { ref: asset.ref, type: "IO" });
    const r = await cmis("reader", ["show-by-id", `sdb:IO|${asset.ref}`]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain("Document Object:");
    expect(r.out).toContain(`Name: ${asset.title}`);
    expect(r.out).toMatch(/Created on \d{4}-\w{3}-\d\d .* by \w+/);
    expect(r.out).toContain(`Parents ids: 'sdb:SO|${asset.parent_ref}'`);
    expect(r.out).toContain(`Content Type: ${file?.mimeType}`);
    expect(r.out).toContain(`Content Length: ${file?.size}`);
    expect(r.out).toContain(`Content Filename: ${file?.filename}`);
    expect(r.out).toMatch(/Security Tag\( sdbcmis:securityDescriptor \):\s+open/);
    expect(r.out).toMatch(/Downloadable\( sdbcmis:downloadable \):\s+true/);
    expect(r.out).toContain("canGetContentStream: 1");
    expect(r.out).toContain("canSetContentStream: 0");
  });

  it("downloads content byte-exact, text and binary", async () => {
    const assets = repo.svc.db
      .prepare(
        "SELECT ref FROM entities WHERE type = 'IO' AND security_tag = 'open' AND deleted = 0 ORDER BY id",
      )
      .all() as { ref: string }[];
    const withFiles = assets.flatMap((a) => {
      const f = fileOf(repo.svc.db, { ref: a.ref, type: "IO" });
      return f ? [{ ref: a.ref, file: f }] : [];
    });
    const text = withFiles.find((a) => a.file.mimeType.startsWith("text/"));
    const binary = withFiles.find((a) => !a.file.mimeType.startsWith("text/"));
    expect(text && binary).toBeTruthy();
    for (const a of [text, binary]) {
      if (!a) continue;
      const dir = tempDir("cmis-get-");
      const r = await cmis("reader", ["get-content", `sdb:IO|${a.ref}`], dir);
      expect(r.code, r.out).toBe(0);
      expect(readdirSync(dir)).toEqual([a.file.filename]);
      const bytes = readFileSync(join(dir, a.file.filename));
      expect(bytes.length).toBe(a.file.size);
      expect(createHash("sha256").update(bytes).digest("hex")).toBe(a.file.sha256);
    }
  });

  it("honours the configured CMIS transform for Title and Description", async () => {
    const { token } = await login(repo.url, "manager");
    const put = (body: object) =>
      fetch(`${repo.url}/api/admin/cmis-transform`, {
        method: "PUT",
        headers: { "Preservica-Access-Token": token, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
    const asset = repo.svc.db
      .prepare(
        `SELECT e.ref, e.title FROM entities e JOIN metadata_fragments f ON f.entity_ref = e.ref
          WHERE e.type = 'IO' AND e.security_tag = 'open' AND e.deleted = 0 AND f.content LIKE '%<dc:creator>%'
          ORDER BY e.id LIMIT 1`,
      )
      .get() as { ref: string; title: string };
    const creator = /<dc:creator>([^<]+)<\/dc:creator>/.exec(
      (
        repo.svc.db
          .prepare(
            "SELECT content FROM metadata_fragments WHERE entity_ref = ? AND content LIKE '%<dc:creator>%'",
          )
          .get(asset.ref) as { content: string }
      ).content,
    )?.[1];
    expect(creator).toBeTruthy();
    try {
      expect((await put({ titleField: "oai_dc.creator" })).status).toBe(200);
      const r = await cmis("reader", ["show-by-id", `sdb:IO|${asset.ref}`]);
      expect(r.out).toContain(`Name: ${creator}`);
    } finally {
      expect((await put({ titleField: "xip.title" })).status).toBe(200);
    }
    expect((await cmis("reader", ["show-by-id", `sdb:IO|${asset.ref}`])).out).toContain(
      `Name: ${asset.title}`,
    );
  });

  it("is refused when it tries to write, and nothing changes", async () => {
    const asset = entity("type = 'IO' AND security_tag = 'open'");
    const folder = entity("type = 'SO' AND security_tag = 'open'");
    const before = storeHash(repo.svc.db);
    const dir = tempDir("cmis-write-");
    const input = join(dir, "new.txt");
    writeFileSync(input, "replacement");
    const tries: [string[], RegExp][] = [
      [["create-folder", `sdb:SO|${folder.ref}`, "New folder"], /CreateFolder not allowed/],
      [
        [
          "create-document",
          `sdb:SO|${folder.ref}`,
          "New doc",
          "--input-file",
          input,
          "--input-type",
          "text/plain",
        ],
        /CreateDocument not allowed/,
      ],
      [["delete", `sdb:IO|${asset.ref}`], /DeleteObject not allowed/],
      [
        ["update-object", `sdb:IO|${asset.ref}`, "--object-property", "cmis:name=Renamed"],
        /UpdateProperties is not allowed/,
      ],
      [
        ["move-object", `sdb:IO|${asset.ref}`, `sdb:SO|${asset.parent_ref}`, `sdb:SO|${folder.ref}`],
        /MoveObject not allowed/,
      ],
      // libcmis checks the wrong action before setting content, so this one reaches the service: 405.
      [
        ["set-content", `sdb:IO|${asset.ref}`, "--input-file", input, "--input-type", "text/plain"],
        /returned error: 405/,
      ],
    ];
    for (const [args, refusal] of tries) {
      const r = await cmis("manager", args, dir);
      expect(r.out, args.join(" ")).toMatch(refusal);
      expect(r.out, args.join(" ")).not.toMatch(/^Id: /m);
    }
    expect(storeHash(repo.svc.db)).toBe(before);
  });

  it("refuses wrong credentials, two-step accounts over Basic, and objects the user may not read", async () => {
    for (const who of [{ username: "reader", password: "wrong" }, DEMO_USERS.twofactor]) {
      const r = await cmis(who, ["list-repos"]);
      expect(r.out).not.toContain("(preservica)");
      expect(r.out).toContain("Authentication failure");
    }
    const closed = entity("type = 'IO' AND security_tag = 'closed'");
    const r = await cmis("reader", ["show-by-id", `sdb:IO|${closed.ref}`]);
    expect(r.out).not.toContain("Document Object:");
    // libcmis words a 403 as "Invalid credentials".
    expect(r.out).toContain("ERROR: Invalid credentials");
    expect((await cmis("manager", ["show-by-id", `sdb:IO|${closed.ref}`])).out).toContain("Document Object:");
  });
});
