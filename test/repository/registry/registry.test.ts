import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { identifyFormat } from "../../../repository/formats.js";
import type { RunningRepository } from "../../../repository/server.js";
import { login, startTestRepository } from "../../helpers/repository.js";
import { storeHash } from "../writes/store-hash.js";

/**
 * The PAR (registry) API over HTTP: open reads at both mounts, the built-in content (every format the
 * service identifies), and writes guarded by the Registry Admin role, by token or by deprecated Basic
 * credentials, each recording a config event; refusals leave the store unchanged.
 */

let repo: RunningRepository;
let managerToken: string;
let curatorToken: string;
const P = "/Registry/par";

const basic = (user: string, pw: string) => `Basic ${Buffer.from(`${user}:${pw}`).toString("base64")}`;
const MANAGER_BASIC = basic("manager", "manager-demo-pw");

beforeAll(async () => {
  repo = await startTestRepository();
  managerToken = (await login(repo.url, "manager")).token;
  curatorToken = (await login(repo.url, "curator")).token;
});
afterAll(async () => {
  await repo?.close();
});

async function get(path: string, headers: Record<string, string> = {}) {
  return fetch(`${repo.url}${path}`, { headers });
}
async function send(method: string, path: string, body: unknown, headers: Record<string, string>) {
  return fetch(`${repo.url}${path}`, {
    method,
    headers: { "Content-Type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}
const asManager = { "Preservica-Access-Token": "" };
function managerHeaders() {
  return { ...asManager, "Preservica-Access-Token": managerToken };
}
function configEvents(subject: string) {
  return repo.svc.db
    .prepare(
      "SELECT username, category, command_type, summary FROM config_events WHERE subject = ? ORDER BY id",
    )
    .all(subject) as { username: string; category: string; command_type: string; summary: string }[];
}

/** Inputs reaching every branch of the service's format identification. */
function identifiedPuids(): string[] {
  const b = (s: string) => Buffer.from(s, "latin1");
  const jfif = (major: number, minor: number) =>
    Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, ...b("JFIF\0"), major, minor]);
  const wav = (fmtSize: number) => {
    const head = Buffer.alloc(24);
    head.write("RIFF", 0, "latin1");
    head.write("WAVE", 8, "latin1");
    head.write("fmt ", 12, "latin1");
    head.writeUInt32LE(fmtSize, 16);
    return head;
  };
  const heads: [Buffer, string][] = [
    ...["1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7", "2.0", "9.9"].map(
      (v) => [b(`%PDF-${v}\n`), "a.pdf"] as [Buffer, string],
    ),
    [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), "a.png"],
    [Buffer.from([0xff, 0xd8, 0xff, 0xdb]), "a.jpg"],
    [jfif(1, 0), "a.jpg"],
    [jfif(1, 1), "a.jpg"],
    [jfif(1, 2), "a.jpg"],
    [Buffer.from([0x49, 0x49, 0x2a, 0x00]), "a.tif"],
    [b("GIF89a"), "a.gif"],
    [b("GIF87a"), "a.gif"],
    [wav(16), "a.wav"],
    [wav(18), "a.wav"],
    [wav(40), "a.wav"],
    [wav(99), "a.wav"],
    [Buffer.from([0x50, 0x4b, 0x03, 0x04]), "a.zip"],
    [b("<?xml version='1.0'?><a/>"), "a.xml"],
    [b("a,b\n1,2\n"), "a.csv"],
    [b('{"a":1}'), "a.json"],
    [b("hello"), "a.txt"],
    [Buffer.alloc(0), "a.zip"],
  ];
  const puids = heads.map(([head, name]) => identifyFormat(head, name).puid);
  return [...new Set(puids.filter((p): p is string => p !== null))];
}

describe("reads", () => {
  it("lists format families without a token, at /Registry/par and at /api/Registry/par", async () => {
    for (const base of [P, "/api/Registry/par"]) {
      const res = await get(`${base}/format-families`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        formatFamilies: { id: { name: string }; fileFormats: { name: string }[] }[];
      };
      const doc = body.formatFamilies.find((f) => f.id.name === "document");
      expect(doc?.fileFormats.map((f) => f.name)).toContain("fmt/18");
    }
  });

  it("answers every list under the key the client reads", async () => {
    const keys: Record<string, string> = {
      "format-families": "formatFamilies",
      "preservation-action-types": "preservationActionTypes",
      properties: "parProperties",
      "representation-formats": "representationFormats",
      "file-formats": "fileFormats",
      tools: "tools",
      "preservation-actions": "preservationActions",
      "business-rules": "businessRules",
      rulesets: "ruleSets",
    };
    for (const [path, key] of Object.entries(keys)) {
      const body = (await (await get(`${P}/${path}`)).json()) as Record<string, unknown>;
      expect(Array.isArray(body[key]), path).toBe(true);
    }
  });

  it("holds every format the service identifies, by PUID with its slash, and by GUID", async () => {
    const puids = identifiedPuids();
    expect(puids.length).toBeGreaterThan(20);
    for (const puid of puids) {
      const res = await get(`${P}/file-formats/${puid}`);
      expect(res.status, puid).toBe(200);
      const doc = (await res.json()) as { id: { guid: string; name: string; namespace: string } };
      expect(doc.id.name).toBe(puid);
      expect(doc.id.namespace).toBe("http://www.nationalarchives.gov.uk");
      const byGuid = (await (await get(`${P}/file-formats/${doc.id.guid}`)).json()) as {
        id: { name: string };
      };
      expect(byGuid.id.name).toBe(puid);
    }
  });

  it("answers 404 for an unknown guid, PUID or kind", async () => {
    expect((await get(`${P}/tools/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    expect((await get(`${P}/file-formats/fmt/99999`)).status).toBe(404);
    expect((await get(`${P}/tools/not-a-guid`)).status).toBe(404);
    expect((await get(`${P}/widgets`)).status).toBe(404);
  });

  it("filters business rules by preservation action type and by file format (headers)", async () => {
    const types = (await (await get(`${P}/preservation-action-types`)).json()) as {
      preservationActionTypes: { id: { guid: string }; label: string }[];
    };
    const identification =
      types.preservationActionTypes.find((t) => t.label === "Identification")?.id.guid ?? "";
    const migration = types.preservationActionTypes.find((t) => t.label === "Migration")?.id.guid ?? "";
    const count = async (headers: Record<string, string>) =>
      ((await (await get(`${P}/business-rules`, headers)).json()) as { businessRules: unknown[] })
        .businessRules.length;
    expect(await count({ "preservation-action-type": identification })).toBe(1);
    expect(await count({ "preservation-action-type": migration })).toBe(0);
    expect(await count({ "file-format": "fmt/11" })).toBe(1);
    expect(await count({ "file-format": "fmt/99999" })).toBe(0);
  });
});

describe("writes", () => {
  const tool = { toolName: "ImageMagick", toolVersion: "7.1", toolPublisher: "ImageMagick Studio" };

  it("refuses a write without credentials (401) and a non-registry-admin (403, never 401)", async () => {
    const before = storeHash(repo.svc.db);
    expect((await send("POST", `${P}/tools`, tool, {})).status).toBe(401);
    expect((await send("POST", `${P}/tools`, tool, { "Preservica-Access-Token": curatorToken })).status).toBe(
      403,
    );
    const basicCurator = await send("POST", `${P}/tools`, tool, {
      Authorization: basic("curator", "curator-demo-pw"),
    });
    expect(basicCurator.status).toBe(403);
    expect(basicCurator.headers.get("deprecation")).toBe("true");
    expect(
      (await send("POST", `${P}/tools`, tool, { Authorization: basic("manager", "wrong") })).status,
    ).toBe(401);
    expect(storeHash(repo.svc.db)).toBe(before);
  });

  it("adds, updates and deletes a tool with a token; each change is a config event", async () => {
    const added = await send("POST", `/api/Registry/par/tools`, tool, managerHeaders());
    expect(added.status).toBe(201);
    expect(added.headers.get("deprecation")).toBeNull();
    const doc = (await added.json()) as {
      id: { guid: string; name: string; namespace: string };
      toolName: string;
    };
    expect(doc.id).toMatchObject({ name: "ImageMagick", namespace: "http://par.preservica.com" });
    expect(
      ((await (await get(`${P}/tools/${doc.id.guid}`)).json()) as { toolVersion: string }).toolVersion,
    ).toBe("7.1");

    const updated = await send(
      "PUT",
      `${P}/tools/${doc.id.guid}`,
      { ...tool, toolVersion: "7.2" },
      managerHeaders(),
    );
    expect(updated.status).toBe(201);
    const after = (await (await get(`${P}/tools/${doc.id.guid}`)).json()) as {
      toolVersion: string;
      id: { guid: string };
    };
    expect(after).toMatchObject({ toolVersion: "7.2", id: { guid: doc.id.guid } });

    expect((await send("DELETE", `${P}/tools/${doc.id.guid}`, undefined, managerHeaders())).status).toBe(204);
    expect((await get(`${P}/tools/${doc.id.guid}`)).status).toBe(404);
    expect(configEvents("tools/ImageMagick").map((e) => [e.username, e.category, e.command_type])).toEqual([
      ["manager", "REGISTRY", "CREATE"],
      ["manager", "REGISTRY", "UPDATE"],
      ["manager", "REGISTRY", "DELETE"],
    ]);
  });

  it("accepts Basic credentials and marks them deprecated", async () => {
    const res = await send(
      "POST",
      `${P}/preservation-action-types`,
      { label: "Rendering" },
      { Authorization: MANAGER_BASIC },
    );
    expect(res.status).toBe(201);
    expect(res.headers.get("deprecation")).toBe("true");
    expect(res.headers.get("warning")).toMatch(/deprecated/);
    const types = (await (await get(`${P}/preservation-action-types`)).json()) as {
      preservationActionTypes: { label: string }[];
    };
    expect(types.preservationActionTypes.map((t) => t.label)).toContain("Rendering");
  });

  it("adds a file format by PUID and updates it at its PUID path; a duplicate PUID is 409", async () => {
    const word = { id: { name: "fmt/40" }, name: "Microsoft Word Document", version: "97-2003" };
    expect((await send("POST", `${P}/file-formats`, word, managerHeaders())).status).toBe(201);
    const before = storeHash(repo.svc.db);
    expect((await send("POST", `${P}/file-formats`, word, managerHeaders())).status).toBe(409);
    expect((await send("POST", `${P}/file-formats`, { id: { name: "word" } }, managerHeaders())).status).toBe(
      400,
    );
    expect(storeHash(repo.svc.db)).toBe(before);
    const put = await send("PUT", `${P}/file-formats/fmt/40`, { ...word, version: "97" }, managerHeaders());
    expect(put.status).toBe(201);
    expect(((await (await get(`${P}/file-formats/fmt/40`)).json()) as { version: string }).version).toBe(
      "97",
    );
  });

  it("refuses bad documents with 400 and changes nothing", async () => {
    const before = storeHash(repo.svc.db);
    const h = managerHeaders();
    expect((await send("POST", `${P}/tools`, { toolVersion: "1" }, h)).status).toBe(400);
    expect(
      (await fetch(`${repo.url}${P}/tools`, { method: "POST", headers: h, body: "{not json" })).status,
    ).toBe(400);
    expect((await send("POST", `${P}/tools`, [tool], h)).status).toBe(400);
    expect((await send("POST", `${P}/tools`, { ...tool, id: { guid: "nope" } }, h)).status).toBe(400);
    const tools = (await (await get(`${P}/tools`)).json()) as { tools: { id: { guid: string } }[] };
    const guid = tools.tools[0]?.id.guid ?? "";
    const other = "00000000-0000-4000-8000-000000000001";
    expect((await send("PUT", `${P}/tools/${guid}`, { ...tool, id: { guid: other } }, h)).status).toBe(400);
    expect((await send("PUT", `${P}/tools/${other}`, tool, h)).status).toBe(404);
    expect(storeHash(repo.svc.db)).toBe(before);
  });

  it("keeps built-in items and items a rule set names from deletion (409)", async () => {
    const h = managerHeaders();
    const before = storeHash(repo.svc.db);
    expect((await send("DELETE", `${P}/file-formats/fmt/18`, undefined, h)).status).toBe(409);
    expect(storeHash(repo.svc.db)).toBe(before);

    const action = (await (await get(`${P}/preservation-actions`)).json()) as {
      preservationActions: { id: { guid: string; name: string } }[];
    };
    const rule = await send(
      "POST",
      `${P}/business-rules`,
      {
        id: { name: "png-migration" },
        formats: [{ name: "fmt/11" }],
        preservationActions: [{ preservationAction: action.preservationActions[0]?.id, priority: 1 }],
      },
      h,
    );
    expect(rule.status).toBe(201);
    const ruleId = ((await rule.json()) as { id: { guid: string } }).id;
    const set = await send(
      "POST",
      `${P}/rulesets`,
      { name: "Images", rules: [{ format: { name: "fmt/11" }, businessRule: { guid: ruleId.guid } }] },
      h,
    );
    expect(set.status).toBe(201);
    const setDoc = (await set.json()) as {
      id: { guid: string };
      rules: { format: { guid: string; name: string }; businessRule: { name: string } }[];
    };
    expect(setDoc.rules[0]?.format.name).toBe("fmt/11");
    expect(setDoc.rules[0]?.businessRule.name).toBe("png-migration");

    const mid = storeHash(repo.svc.db);
    const refused = await send("DELETE", `${P}/business-rules/${ruleId.guid}`, undefined, h);
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { message: string }).message).toMatch(/Images/);
    expect(
      (
        await send(
          "POST",
          `${P}/rulesets`,
          { name: "Bad", rules: [{ format: { name: "fmt/99999" }, businessRule: ruleId }] },
          h,
        )
      ).status,
    ).toBe(400);
    expect(storeHash(repo.svc.db)).toBe(mid);

    expect((await send("DELETE", `${P}/rulesets/${setDoc.id.guid}`, undefined, h)).status).toBe(204);
    expect((await send("DELETE", `${P}/business-rules/${ruleId.guid}`, undefined, h)).status).toBe(204);
  });
});
