import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseXmlBody, type XmlNode } from "../../../repository/http/xml-body.js";
import type { RunningRepository } from "../../../repository/server.js";
import { insertEntity } from "../../../repository/store/entities/write.js";
import { blockingRetention } from "../../../repository/store/retention/read.js";
import { authed, login, startTestRepository } from "../../helpers/repository.js";
import { arr, ENTITY_NS, getXml, jsonError, parseXml, text } from "../entity-xml.js";
import { storeHash } from "./store-hash.js";

/**
 * Retention over real HTTP: policies (manager-only writes), assignments on assets (Update Metadata,
 * assignable policies only), Expired computed against the service's clock, and the events left behind.
 */

const E = "/api/entity";
const RM = "http://preservica.com/RetentionManagement/v6.2";
const DAY = 86_400_000;
type Api = ReturnType<typeof authed>;

let repo: RunningRepository;
let clock = Date.parse("2025-03-01T12:00:00.000Z");
let manager: Api;
let curator: Api;
let reader: Api;
const f = {} as { folder: string; asset: string; oldAsset: string; closedAsset: string };

beforeAll(async () => {
  // Tokens and sessions outlive the clock moves below (a few days).
  repo = await startTestRepository({
    now: () => clock,
    tokenTtlMs: 365 * DAY,
    maxSessionLifetimeMins: 365 * 24 * 60,
  });
  const db = repo.svc.db;
  f.folder = insertEntity(db, { type: "SO", title: "Records", securityTag: "open" }).ref;
  const asset = (title: string, securityTag: string, created: string) =>
    insertEntity(db, { type: "IO", title, securityTag, parentRef: f.folder, created }).ref;
  f.asset = asset("Ledger", "open", "2025-01-01T00:00:00.000Z");
  f.oldAsset = asset("Old ledger", "open", "2020-06-01T00:00:00.000Z");
  f.closedAsset = asset("Payroll", "closed", "2025-01-01T00:00:00.000Z");
  manager = authed(repo.url, (await login(repo.url, "manager")).token);
  curator = authed(repo.url, (await login(repo.url, "curator")).token);
  reader = authed(repo.url, (await login(repo.url, "reader")).token);
});

afterAll(async () => {
  await repo?.close();
});

// --- helpers ----------------------------------------------------------------------------------------

/** The body pyPreservica's create_policy/update_policy send (ElementTree: stray spaces, `True`, empty = None). */
function policyXml(fields: Record<string, string | null>): string {
  let body = `<RetentionPolicy  xmlns="${RM}">`;
  for (const [k, v] of Object.entries(fields)) body += v === null ? `<${k} />` : `<${k}>${v}</${k}>`;
  return `${body}</RetentionPolicy >`;
}

const BASE_FIELDS = {
  Name: "API Created Policy",
  Description: "Policy Description",
  SecurityTag: "open",
  StartDateField: "xip.created",
  Period: "6",
  PeriodUnit: "YEAR",
  ExpiryAction: "REVIEW",
  ExpiryActionParameters: '{"EmailAddress":["a@example.com"]}',
  Restriction: "DELETE",
  Assignable: "True",
};

function send(api: Api, method: string, path: string, body: string, type = "application/xml;charset=UTF-8") {
  return api(path, { method, body, headers: { "Content-Type": type } });
}

/** A namespace-aware read, like ElementTree's `find('.//{ns}A/{ns}B')`: the first match in document order. */
function find(root: XmlNode, ...steps: [string, string][]): XmlNode | undefined {
  const [first, ...rest] = steps;
  if (!first) return root;
  const matchesAt = (n: XmlNode): XmlNode | undefined => {
    let cur: XmlNode | undefined = n;
    for (const [ns, name] of rest) cur = cur?.children.find((c) => c.ns === ns && c.name === name);
    return cur;
  };
  const walk = (n: XmlNode): XmlNode | undefined => {
    for (const c of n.children) {
      if (c.ns === first[0] && c.name === first[1]) {
        const hit = matchesAt(c);
        if (hit) return hit;
      }
      const deeper = walk(c);
      if (deeper) return deeper;
    }
    return undefined;
  };
  return walk(root);
}
function findAll(root: XmlNode, ns: string, name: string): XmlNode[] {
  const out: XmlNode[] = [];
  const walk = (n: XmlNode) => {
    for (const c of n.children) {
      if (c.ns === ns && c.name === name) out.push(c);
      walk(c);
    }
  };
  walk(root);
  return out;
}

async function xmlOf(res: Response, status = 200): Promise<XmlNode> {
  const body = await res.text();
  expect(res.status, body).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/xml/);
  return parseXmlBody(body, "");
}

async function createPolicy(fields: Record<string, string | null>): Promise<string> {
  const root = await xmlOf(await send(manager, "POST", `${E}/retention-policies`, policyXml(fields)));
  return (find(root, [RM, "RetentionPolicy"], [RM, "Ref"]) as XmlNode).text;
}

/** Sends a request, expects a refusal with `status`, and checks that the store did not change. */
async function refused(call: () => Promise<Response>, status: number, message?: RegExp): Promise<string> {
  const before = storeHash(repo.svc.db);
  const res = await call();
  const err = await jsonError(res);
  expect(res.status, err.message).toBe(status);
  if (message) expect(err.message).toMatch(message);
  expect(storeHash(repo.svc.db)).toBe(before);
  return err.message;
}

function retentionEvents(): {
  type: string;
  policy_ref: string;
  entity_ref: string | null;
  detail: string;
}[] {
  return repo.svc.db.prepare("SELECT * FROM retention_events ORDER BY id").all() as never;
}

function rmText(n: XmlNode, name: string): string | undefined {
  return n.children.find((c) => c.ns === RM && c.name === name)?.text;
}

// --- policies ---------------------------------------------------------------------------------------

describe("retention policies", () => {
  let ref: string;

  it("lists none yet, with TotalResults and no Next", async () => {
    const reply = await getXml(reader, `${E}/retention-policies`);
    expect(reply.rootName).toBe("RetentionPoliciesResponse");
    expect(reply.ns.entity).toBe(ENTITY_NS("7.7"));
    expect(reply.root.Paging.TotalResults).toBe("0");
    expect(reply.root.Paging.Next).toBeUndefined();
  });

  it("needs a token to read", async () => {
    expect((await fetch(`${repo.url}${E}/retention-policies`)).status).toBe(401);
  });

  it("creates a policy from pyPreservica's body and answers the nested RM RetentionPolicy/Ref", async () => {
    const before = retentionEvents().length;
    ref = await createPolicy(BASE_FIELDS);
    expect(ref).toMatch(/^[0-9a-f-]{36}$/);
    const root = await xmlOf(await reader(`${E}/retention-policies/${ref}`));
    const p = find(root, [RM, "RetentionPolicy"]) as XmlNode;
    expect(root.ns).toBe(ENTITY_NS("7.7"));
    expect(rmText(p, "Ref")).toBe(ref);
    expect(rmText(p, "Name")).toBe("API Created Policy");
    expect(rmText(p, "Description")).toBe("Policy Description");
    expect(rmText(p, "SecurityTag")).toBe("open");
    expect(rmText(p, "StartDateField")).toBe("xip.created");
    expect(rmText(p, "Period")).toBe("6");
    // Read back as sent: pyPreservica's docs and tests send YEAR and compare what they read.
    expect(rmText(p, "PeriodUnit")).toBe("YEAR");
    expect(rmText(p, "ExpiryAction")).toBe("REVIEW");
    expect(rmText(p, "ExpiryActionParameters")).toBe('{"EmailAddress":["a@example.com"]}');
    expect(rmText(p, "Restriction")).toBe("DELETE");
    expect(rmText(p, "Assignable")).toBe("true");
    const events = retentionEvents();
    expect(events).toHaveLength(before + 1);
    expect(events.at(-1)).toMatchObject({
      type: "Created",
      policy_ref: ref,
      entity_ref: null,
      username: "manager",
    });
  });

  it("leaves out optional fields sent empty (Python None) and reads Assignable in any case", async () => {
    const sparse = await createPolicy({
      ...BASE_FIELDS,
      Name: "Sparse",
      StartDateField: null,
      Period: null,
      PeriodUnit: null,
      ExpiryAction: null,
      ExpiryActionParameters: null,
      Restriction: null,
      Assignable: "FALSE",
    });
    const p = find(await xmlOf(await reader(`${E}/retention-policies/${sparse}`)), [
      RM,
      "RetentionPolicy",
    ]) as XmlNode;
    expect(p.children.map((c) => c.name)).toEqual([
      "Ref",
      "Name",
      "Description",
      "SecurityTag",
      "Assignable",
    ]);
    expect(rmText(p, "Assignable")).toBe("false");
  });

  it("refuses policy writes to users without the manager role, changing nothing", async () => {
    const body = policyXml({ ...BASE_FIELDS, Name: "Curated" });
    for (const api of [curator, reader]) {
      await refused(() => send(api, "POST", `${E}/retention-policies`, body), 403, /ROLE_SDB_MANAGER_USER/);
      await refused(() => send(api, "PUT", `${E}/retention-policies/${ref}`, body), 403);
      await refused(
        () => send(api, "PUT", `${E}/retention-policies/${ref}/assignable`, "False", "text/plain"),
        403,
      );
      await refused(() => api(`${E}/retention-policies/${ref}`, { method: "DELETE" }), 403);
    }
  });

  it("says what is wrong with a policy, changing nothing", async () => {
    const post = (fields: Record<string, string | null>) => () =>
      send(manager, "POST", `${E}/retention-policies`, policyXml({ ...BASE_FIELDS, Name: "New", ...fields }));
    for (const period of ["0", "-1", "6.5", "six"]) {
      await refused(post({ Period: period }), 400, /Period must be a positive whole number/);
    }
    await refused(
      post({ PeriodUnit: "FORTNIGHTS" }),
      400,
      /PeriodUnit must be one of DAY, WEEK, MONTH, YEAR \(or the plural\)/,
    );
    await refused(post({ PeriodUnit: null }), 400, /PeriodUnit is required with a Period/);
    await refused(
      post({ SecurityTag: "secret" }),
      400,
      /Security tag "secret" does not exist; use one of .*open/,
    );
    await refused(post({ SecurityTag: null }), 400, /SecurityTag is required/);
    await refused(post({ Name: null }), 400, /Name is required/);
    await refused(post({ Assignable: "maybe" }), 400, /Assignable must be True or False/);
    await refused(post({ Name: "api created POLICY" }), 409, /already exists/);
    await refused(
      () => send(manager, "POST", `${E}/retention-policies`, `<Policy xmlns="${RM}"/>`),
      400,
      /not <RetentionPolicy>/,
    );
    await refused(
      () => send(manager, "POST", `${E}/retention-policies`, "<RetentionPolicy>"),
      400,
      /well-formed/,
    );
  });

  it("updates a policy (pyPreservica sends its Ref too) and records what changed", async () => {
    const res = await send(
      manager,
      "PUT",
      `${E}/retention-policies/${ref}`,
      policyXml({ Ref: ref, ...BASE_FIELDS, Period: "8", Assignable: "True" }),
    );
    const p = find(await xmlOf(res), [RM, "RetentionPolicy"]) as XmlNode;
    expect(rmText(p, "Period")).toBe("8");
    const again = find(await xmlOf(await reader(`${E}/retention-policies/${ref}`)), [RM, "RetentionPolicy"]);
    expect(rmText(again as XmlNode, "Period")).toBe("8");
    expect(retentionEvents().at(-1)).toMatchObject({ type: "Updated", policy_ref: ref });
    expect(retentionEvents().at(-1)?.detail).toMatch(/Period changed/);
  });

  it("refuses an update whose Ref differs, or of a policy that does not exist", async () => {
    const other = "00000000-0000-4000-8000-000000000000";
    await refused(
      () => send(manager, "PUT", `${E}/retention-policies/${ref}`, policyXml({ Ref: other, ...BASE_FIELDS })),
      400,
      /differs from the policy/,
    );
    await refused(
      () => send(manager, "PUT", `${E}/retention-policies/${other}`, policyXml(BASE_FIELDS)),
      404,
      /not found; list the policies/,
    );
    await refused(() => reader(`${E}/retention-policies/not-a-uuid`), 404, /not a UUID/);
  });

  it("makes a policy assignable or not with a text/plain True|False body", async () => {
    for (const [body, shown] of [
      ["False", "false"],
      ["true", "true"],
    ]) {
      const res = await send(
        manager,
        "PUT",
        `${E}/retention-policies/${ref}/assignable`,
        body as string,
        "text/plain",
      );
      expect(res.status).toBe(200);
      const p = find(await xmlOf(await reader(`${E}/retention-policies/${ref}`)), [RM, "RetentionPolicy"]);
      expect(rmText(p as XmlNode, "Assignable")).toBe(shown);
    }
    expect(retentionEvents().at(-1)?.detail).toMatch(/made assignable/);
    await refused(
      () => send(manager, "PUT", `${E}/retention-policies/${ref}/assignable`, "yes", "text/plain"),
      400,
      /True or False/,
    );
  });

  it("answers in the RM v6.2 namespace under every API version, with the version's EntityAPI namespace", async () => {
    for (const v of ["7.7", "6.5"]) {
      const one = await xmlOf(await reader(`${E}/v${v}/retention-policies/${ref}`));
      expect(one.ns).toBe(ENTITY_NS(v));
      expect(find(one, [RM, "RetentionPolicy"], [RM, "Ref"])?.text).toBe(ref);
      const list = await xmlOf(await reader(`${E}/v${v}/retention-policies`));
      expect(list.ns).toBe(ENTITY_NS(v));
      const items = findAll(list, ENTITY_NS(v), "RetentionPolicy");
      const mine = items.find((i) => i.attrs.ref === ref) as XmlNode;
      expect(mine.attrs.name).toBe("API Created Policy");
      expect(mine.text).toBe(`${repo.url}${E}/v${v}/retention-policies/${ref}`);
      expect(find(list, [ENTITY_NS(v), "Paging"], [ENTITY_NS(v), "TotalResults"])?.text).toBe("2");
    }
  });

  it("pages the list: Next only while more remain, TotalResults always", async () => {
    await createPolicy({ ...BASE_FIELDS, Name: "Zebra" });
    const first = await getXml(reader, `${E}/retention-policies?start=0&max=2`);
    expect(arr(first.root.RetentionPolicies.RetentionPolicy).map((p) => p["@name"])).toEqual([
      "API Created Policy",
      "Sparse",
    ]);
    expect(first.root.Paging.TotalResults).toBe("3");
    const next = new URL(text(first.root.Paging.Next));
    expect(next.searchParams.get("start")).toBe("2");
    const last = await getXml(reader, `${next.pathname}${next.search}`);
    expect(arr(last.root.RetentionPolicies.RetentionPolicy).map((p) => p["@name"])).toEqual(["Zebra"]);
    expect(last.root.Paging.Next).toBeUndefined();
    expect(last.root.Paging.TotalResults).toBe("3");
  });

  it("reads start/max from a form body on the GET, as pyPreservica's policy_by_name sends them", async () => {
    const token = (await login(repo.url, "reader")).token;
    const body = "start=1&max=1";
    const reply = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(
        `${repo.url}${E}/retention-policies`,
        {
          method: "GET",
          headers: {
            "Preservica-Access-Token": token,
            "Content-Type": "application/xml;charset=UTF-8",
            "Content-Length": Buffer.byteLength(body),
          },
        },
        (res) => {
          let out = "";
          res.setEncoding("utf8");
          res.on("data", (d) => {
            out += d;
          });
          res.on("end", () =>
            res.statusCode === 200 ? resolve(out) : reject(new Error(`${res.statusCode} ${out}`)),
          );
        },
      );
      req.on("error", reject);
      req.end(body);
    });
    const parsed = parseXml(reply);
    expect(arr(parsed.root.RetentionPolicies.RetentionPolicy).map((p) => p["@name"])).toEqual(["Sparse"]);
    expect(parsed.root.Paging.TotalResults).toBe("3");
  });
});

// --- assignments ------------------------------------------------------------------------------------

describe("retention assignments", () => {
  let open: string; // assignable, 1 DAYS from the assignment
  let locked: string; // not assignable
  let fromCreation: string; // 1 DAYS from the asset's creation (xip.created)
  let apiId: string;
  const assignBody = (policy: string) =>
    `<RetentionAssignment xmlns="${RM}"><RetentionPolicy>${policy}</RetentionPolicy></RetentionAssignment>`;
  const assignments = (asset: string) => `${E}/information-objects/${asset}/retention-assignments`;

  beforeAll(async () => {
    const base = { ...BASE_FIELDS, StartDateField: null, Period: "1", PeriodUnit: "DAYS" };
    open = await createPolicy({ ...base, Name: "One day" });
    locked = await createPolicy({ ...base, Name: "Locked", Assignable: "False" });
    fromCreation = await createPolicy({
      ...base,
      Name: "One day from creation",
      StartDateField: "xip.created",
    });
  });

  it("lists none yet, with TotalResults", async () => {
    const reply = await getXml(reader, assignments(f.asset));
    expect(reply.rootName).toBe("RetentionAssignmentsResponse");
    expect(reply.root.Paging.TotalResults).toBe("0");
  });

  it("assigns a policy to an asset and echoes RetentionPolicy, Entity, ApiId and StartDate", async () => {
    const res = await send(curator, "POST", assignments(f.asset), assignBody(open));
    const root = await xmlOf(res);
    expect(find(root, [RM, "RetentionPolicy"])?.text).toBe(open);
    expect(find(root, [RM, "Entity"])?.text).toBe(f.asset);
    expect(find(root, [RM, "StartDate"])?.text).toBe(new Date(clock).toISOString());
    expect(find(root, [RM, "Expired"])?.text).toBe("false");
    apiId = (find(root, [RM, "ApiId"]) as XmlNode).text;
    expect(apiId).not.toBe("");

    const list = await xmlOf(await reader(assignments(f.asset)));
    const items = findAll(list, RM, "RetentionAssignment");
    expect(items).toHaveLength(1);
    const item = items[0] as XmlNode;
    expect(item.children.map((c) => c.name)).toEqual([
      "Entity",
      "RetentionPolicy",
      "StartDate",
      "Expired",
      "ApiId",
    ]);
    expect(rmText(item, "ApiId")).toBe(apiId);
    expect(rmText(item, "Expired")).toBe("false");
    expect(find(list, [ENTITY_NS("7.7"), "Paging"], [ENTITY_NS("7.7"), "TotalResults"])?.text).toBe("1");
    // The v6.5 path answers in the same RM namespace.
    const old = await xmlOf(await reader(`${E}/v6.5/information-objects/${f.asset}/retention-assignments`));
    expect(old.ns).toBe(ENTITY_NS("6.5"));
    expect(findAll(old, RM, "ApiId").map((n) => n.text)).toEqual([apiId]);
  });

  it("records the assignment in the asset's history, updated-since and the retention events", async () => {
    const history = await getXml(reader, `${E}/information-objects/${f.asset}/event-actions`);
    const actions = arr(history.root.EventActions.EventAction);
    const last = actions.at(-1);
    expect(last["@commandType"]).toBe("AddRetentionAssignment");
    expect(last.Event["@type"]).toBe("Retention");
    expect(last.Event.User).toBe("curator");
    expect(last.Entity).toBe(f.asset);
    const since = new Date(clock - 1000).toISOString();
    const changed = await getXml(reader, `${E}/entities/updated-since?date=${encodeURIComponent(since)}`);
    expect(arr(changed.root.Entities.Entity).map((e) => e["@ref"])).toContain(f.asset);
    expect(retentionEvents().at(-1)).toMatchObject({
      type: "Assigned",
      policy_ref: open,
      entity_ref: f.asset,
      assignment_id: apiId,
      username: "curator",
    });
  });

  it("refuses assigning without Update Metadata, a policy not assignable, twice, or to a folder", async () => {
    await refused(() => send(reader, "POST", assignments(f.asset), assignBody(open)), 403, /Update Metadata/);
    await refused(
      () => send(curator, "POST", assignments(f.oldAsset), assignBody(locked)),
      409,
      /not assignable/,
    );
    await refused(
      () => send(curator, "POST", assignments(f.asset), assignBody(open)),
      409,
      /already assigned/,
    );
    const unknown = "00000000-0000-4000-8000-000000000000";
    await refused(() => send(curator, "POST", assignments(f.asset), assignBody(unknown)), 404, /not found/);
    await refused(
      () => send(curator, "POST", assignments(f.asset), `<RetentionAssignment xmlns="${RM}"/>`),
      400,
      /RetentionPolicy .* is required/,
    );
    const onFolder = `${E}/structural-objects/${f.folder}/retention-assignments`;
    await refused(() => curator(onFolder), 400, /assigned to assets only/);
    await refused(() => send(curator, "POST", onFolder, assignBody(open)), 400, /assigned to assets only/);
  });

  it("computes Expired against the service's clock, and stops blocking deletion once expired", async () => {
    const db = repo.svc.db;
    expect(blockingRetention(db, [f.asset], new Date(clock).toISOString()).map((b) => b.apiId)).toEqual([
      apiId,
    ]);
    clock += 2 * DAY;
    try {
      const list = await xmlOf(await reader(assignments(f.asset)));
      expect(findAll(list, RM, "Expired").map((n) => n.text)).toEqual(["true"]);
      expect(blockingRetention(db, [f.asset], new Date(clock).toISOString())).toEqual([]);
    } finally {
      clock -= 2 * DAY;
    }
  });

  it("starts from the asset's creation when the policy counts from xip.created (so an old asset has expired)", async () => {
    const root = await xmlOf(await send(curator, "POST", assignments(f.oldAsset), assignBody(fromCreation)));
    expect(find(root, [RM, "StartDate"])?.text).toBe("2020-06-01T00:00:00.000Z");
    expect(find(root, [RM, "Expired"])?.text).toBe("true");
    const list = await xmlOf(await reader(assignments(f.oldAsset)));
    expect(findAll(list, RM, "Expired").map((n) => n.text)).toEqual(["true"]);
  });

  it("treats a period ending past year 9999 as never ending (not as long expired)", async () => {
    const ages = await createPolicy({ ...BASE_FIELDS, Name: "Ages", Period: "100000", PeriodUnit: "YEARS" });
    const root = await xmlOf(await send(curator, "POST", assignments(f.oldAsset), assignBody(ages)));
    expect(find(root, [RM, "Expired"])?.text).toBe("false");
    const blocking = blockingRetention(repo.svc.db, [f.oldAsset], new Date(clock).toISOString());
    expect(blocking.map((b) => [b.policyName, b.expires])).toEqual([["Ages", null]]);
  });

  it("refuses deleting a policy while assignments use it, saying how many and on what", async () => {
    const message = await refused(
      () => manager(`${E}/retention-policies/${open}`, { method: "DELETE" }),
      409,
    );
    expect(message).toContain("1 assignment");
    expect(message).toContain(f.asset);
  });

  it("refuses removing without Update Metadata, an unknown ApiId, or while the policy is not assignable", async () => {
    await refused(() => reader(`${assignments(f.asset)}/${apiId}`, { method: "DELETE" }), 403);
    await refused(
      () => curator(`${assignments(f.oldAsset)}/${apiId}`, { method: "DELETE" }),
      404,
      /not found on asset/,
    );
    await send(manager, "PUT", `${E}/retention-policies/${open}/assignable`, "False", "text/plain");
    try {
      await refused(
        () => curator(`${assignments(f.asset)}/${apiId}`, { method: "DELETE" }),
        409,
        /not assignable/,
      );
    } finally {
      await send(manager, "PUT", `${E}/retention-policies/${open}/assignable`, "True", "text/plain");
    }
  });

  it("removes an assignment (204) and records it", async () => {
    const res = await curator(`${assignments(f.asset)}/${apiId}`, { method: "DELETE" });
    expect(res.status).toBe(204);
    const list = await getXml(reader, assignments(f.asset));
    expect(list.root.Paging.TotalResults).toBe("0");
    const history = await getXml(reader, `${E}/information-objects/${f.asset}/event-actions`);
    expect(arr(history.root.EventActions.EventAction).at(-1)["@commandType"]).toBe(
      "RemoveRetentionAssignment",
    );
    expect(retentionEvents().at(-1)).toMatchObject({
      type: "Unassigned",
      entity_ref: f.asset,
      assignment_id: apiId,
    });
  });

  it("deletes an unused policy (204) for a manager; it is then gone", async () => {
    const res = await manager(`${E}/retention-policies/${open}`, { method: "DELETE" });
    expect(res.status).toBe(204);
    expect((await reader(`${E}/retention-policies/${open}`)).status).toBe(404);
    expect(retentionEvents().at(-1)).toMatchObject({
      type: "Deleted",
      policy_ref: open,
      username: "manager",
    });
  });
});

// --- retention events -------------------------------------------------------------------------------

describe("retention events", () => {
  it("lists policy and assignment changes in order, with TotalResults and from/to", async () => {
    const all = await getXml(manager, `${E}/retention-events?max=1000`);
    expect(all.rootName).toBe("RetentionEventsResponse");
    const events = arr(all.root.RetentionEvents.RetentionEvent);
    expect(all.root.Paging.TotalResults).toBe(String(events.length));
    expect(events.length).toBe(retentionEvents().length);
    const types = new Set(events.map((e) => e["@type"]));
    expect([...types].sort()).toEqual(["Assigned", "Created", "Deleted", "Unassigned", "Updated"]);
    const assigned = events.find((e) => e["@type"] === "Assigned");
    expect(assigned).toMatchObject({ User: "curator", Entity: f.asset });
    expect(assigned.ApiId).toBeTruthy();
    expect(assigned.RetentionPolicy).toBeTruthy();
    const paged = await getXml(manager, `${E}/retention-events?max=2`);
    expect(arr(paged.root.RetentionEvents.RetentionEvent)).toHaveLength(2);
    expect(paged.root.Paging.Next).toBeDefined();
    const future = new Date(clock + DAY).toISOString();
    const none = await getXml(manager, `${E}/retention-events?from=${encodeURIComponent(future)}`);
    expect(none.root.Paging.TotalResults).toBe("0");
    const past = await getXml(manager, `${E}/retention-events?to=2000-01-01`);
    expect(past.root.Paging.TotalResults).toBe("0");
  });

  it("hides assignment events on assets the caller may not read", async () => {
    const policy = await createPolicy({ ...BASE_FIELDS, Name: "Payroll policy" });
    const res = await send(
      manager,
      "POST",
      `${E}/information-objects/${f.closedAsset}/retention-assignments`,
      `<RetentionAssignment xmlns="${RM}"><RetentionPolicy>${policy}</RetentionPolicy></RetentionAssignment>`,
    );
    expect(res.status).toBe(200);
    const entitiesSeen = async (api: Api) =>
      arr((await getXml(api, `${E}/retention-events?max=1000`)).root.RetentionEvents.RetentionEvent).map(
        (e) => e.Entity,
      );
    expect(await entitiesSeen(manager)).toContain(f.closedAsset);
    expect(await entitiesSeen(reader)).not.toContain(f.closedAsset);
  });
});
