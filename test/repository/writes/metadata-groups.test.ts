import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { authed, login, startTestRepository } from "../../helpers/repository.js";
import { storeHash } from "./store-hash.js";

/** The JSON metadata API over real HTTP: groups, forms and CSV templates, with the right role and the wrong one. */

const M = "/api/metadata";
let repo: RunningRepository;
let manager: ReturnType<typeof authed>;
let curator: ReturnType<typeof authed>;

beforeAll(async () => {
  repo = await startTestRepository();
  manager = authed(repo.url, (await login(repo.url, "manager")).token);
  curator = authed(repo.url, (await login(repo.url, "curator")).token);
});
afterAll(async () => {
  await repo?.close();
});

const JSON_HEADERS = { "Content-Type": "application/json;charset=UTF-8" };

function send(as: ReturnType<typeof authed>, method: string, path: string, body: unknown) {
  return as(path, {
    method,
    headers: JSON_HEADERS,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** A field as pyPreservica's _json_from_object_ writes it: every number and boolean a string. */
function clientField(id: string, name: string, type: string) {
  return {
    id,
    name,
    type,
    minOccurs: "0",
    maxOccurs: "1",
    visible: "True",
    editable: "True",
    defaultValue: "",
    indexed: "True",
  };
}

interface GroupReply {
  id: string;
  name: string;
  description: string;
  schemaUri: string;
  fields: Record<string, unknown>[];
}

async function createGroup(body: unknown): Promise<GroupReply> {
  const res = await send(manager, "POST", `${M}/groups/`, body);
  const text = await res.text();
  expect(res.status, text).toBe(201);
  return JSON.parse(text) as GroupReply;
}

/** Sends a request that must be refused with `status`, and checks that the store did not change. */
async function refused(
  as: ReturnType<typeof authed>,
  method: string,
  path: string,
  body: unknown,
  status: number,
  message?: RegExp,
): Promise<string> {
  const before = storeHash(repo.svc.db);
  const res = body === undefined ? await as(path, { method }) : await send(as, method, path, body);
  const reply = (await res.json()) as { success: boolean; message: string };
  expect(res.status, reply.message).toBe(status);
  expect(reply.success).toBe(false);
  if (message) expect(reply.message).toMatch(message);
  expect(storeHash(repo.svc.db)).toBe(before);
  return reply.message;
}

describe("metadata groups", () => {
  it("needs a token", async () => {
    const res = await fetch(`${repo.url}${M}/groups`);
    expect(res.status).toBe(401);
  });

  it("creates a group sent as the Python client sends it (numbers and booleans as strings)", async () => {
    const g = await createGroup({
      name: "McD Metadata",
      description: "Accession details",
      fields: [
        clientField("attribute_1", "Attribute 1", "STRING"),
        clientField("attribute_2", "Attribute 2", "NUMBER"),
        { ...clientField("attribute_3", "Attribute 3", "DATE"), minOccurs: "1", visible: "False" },
      ],
    });
    expect(g.id).toMatch(/^[0-9a-f]{32}$/);
    expect(g.name).toBe("McD Metadata");
    expect(g.description).toBe("Accession details");
    expect(g.schemaUri).toBe("http://www.preservica.com/metadata/group/mcd_metadata");
    expect(g.fields).toHaveLength(3);
    expect(g.fields[2]).toEqual({
      id: "attribute_3",
      name: "Attribute 3",
      type: "DATE",
      minOccurs: 1,
      maxOccurs: 1,
      visible: false,
      editable: true,
      defaultValue: "",
      indexed: true,
    });

    const one = (await (await manager(`${M}/groups/${g.id}`)).json()) as GroupReply;
    expect(one).toEqual(g);
    // Listed without fields, as the real service lists groups; readable by anyone signed in.
    const list = (await (await curator(`${M}/groups`)).json()) as { groups: Record<string, unknown>[] };
    expect(list.groups).toContainEqual({
      id: g.id,
      name: "McD Metadata",
      description: "Accession details",
      schemaUri: g.schemaUri,
    });
  });

  it("accepts real JSON numbers, booleans and a list of values", async () => {
    const g = await createGroup({
      name: "Passport",
      description: "A group with a controlled list",
      fields: [
        {
          id: "issuing_country",
          name: "Issuing Country",
          type: "STRING",
          defaultValue: "Albania",
          minOccurs: 1,
          maxOccurs: 1,
          values: ["Afghanistan", "Albania", "Algeria"],
          indexed: true,
        },
      ],
    });
    expect(g.fields[0]).toMatchObject({
      minOccurs: 1,
      values: ["Afghanistan", "Albania", "Algeria"],
      visible: true,
    });
    // The route without a trailing slash creates too.
    const res = await send(manager, "POST", `${M}/groups`, { name: "No Slash", fields: [] });
    expect(res.status).toBe(201);
    expect(((await res.json()) as GroupReply).description).toBe("");
  });

  it("refuses writes without the manager or administrator role, changing nothing", async () => {
    const g = await createGroup({ name: "Guarded", fields: [clientField("a", "A", "STRING")] });
    await refused(curator, "POST", `${M}/groups/`, { name: "Sneaky", fields: [] }, 403, /managers/);
    await refused(curator, "PUT", `${M}/groups/${g.id}`, { name: "Renamed", fields: [] }, 403);
    await refused(curator, "DELETE", `${M}/groups/${g.id}`, undefined, 403);
  });

  it("says exactly what is wrong with a group, changing nothing", async () => {
    const field = clientField("f", "F", "STRING");
    await refused(manager, "POST", `${M}/groups/`, { fields: [] }, 400, /name is required/);
    await refused(manager, "POST", `${M}/groups/`, "{not json", 400, /not valid JSON/);
    await refused(manager, "POST", `${M}/groups/`, "[1]", 400, /JSON object/);
    await refused(manager, "POST", `${M}/groups/`, { name: "2024 data" }, 400, /start with a letter/);
    await refused(
      manager,
      "POST",
      `${M}/groups/`,
      { name: "Typed", fields: [{ ...field, type: "TEXT" }] },
      400,
      /Field "f": type must be one of STRING, LONGSTRING, DATE, NUMBER, got "TEXT"/,
    );
    await refused(
      manager,
      "POST",
      `${M}/groups/`,
      { name: "Counted", fields: [{ ...field, minOccurs: "several" }] },
      400,
      /Field "f": minOccurs must be a whole number/,
    );
    await refused(
      manager,
      "POST",
      `${M}/groups/`,
      { name: "Flagged", fields: [{ ...field, visible: "yes" }] },
      400,
      /Field "f": visible must be true or false/,
    );
    await refused(
      manager,
      "POST",
      `${M}/groups/`,
      { name: "Twice", fields: [field, field] },
      400,
      /Two fields have the id "f"/,
    );
    await refused(
      manager,
      "POST",
      `${M}/groups/`,
      { name: "Spaced", fields: [{ ...field, id: "has space" }] },
      400,
      /not usable as an XML element name/,
    );
    await refused(
      manager,
      "POST",
      `${M}/groups/`,
      { name: "Listless", fields: "f" },
      400,
      /fields must be a list/,
    );
  });

  it("refuses a duplicate name, or a name that gives an existing schema URI, with 409", async () => {
    await createGroup({ name: "Dup", fields: [] });
    await refused(manager, "POST", `${M}/groups/`, { name: "dup", fields: [] }, 409, /A group named "Dup"/);
    await refused(manager, "POST", `${M}/groups/`, { name: "DUP!", fields: [] }, 409, /schema URI/);
  });

  it("replaces a group with PUT (201), keeping its schema URI, and deletes it (204)", async () => {
    const g = await createGroup({
      name: "test_group_1",
      description: "first",
      fields: [clientField("attribute_11", "Attribute 11", "STRING")],
    });
    const res = await send(manager, "PUT", `${M}/groups/${g.id}`, {
      ...g,
      name: "Test group one",
      fields: [
        ...g.fields,
        clientField("attribute_4", "Attribute 4", "LONGSTRING"),
        clientField("attribute_5", "Attribute 5", "NUMBER"),
      ],
    });
    expect(res.status).toBe(201);
    const updated = (await res.json()) as GroupReply;
    expect(updated.fields.map((f) => f.id)).toEqual(["attribute_11", "attribute_4", "attribute_5"]);
    expect(updated.name).toBe("Test group one");
    expect(updated.schemaUri).toBe(g.schemaUri);
    const other = await createGroup({ name: "Other", fields: [] });
    await refused(manager, "PUT", `${M}/groups/${other.id}`, { name: "test group ONE" }, 409);
    await refused(manager, "PUT", `${M}/groups/nope`, { name: "Whatever" }, 404, /No metadata group/);

    expect((await manager(`${M}/groups/${g.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await manager(`${M}/groups/${g.id}`)).status).toBe(404);
    await refused(manager, "DELETE", `${M}/groups/${g.id}`, undefined, 404);
  });
});

describe("metadata forms", () => {
  it("creates (201), lists, filters, reads, replaces (200) and deletes (204) forms", async () => {
    const dc = "http://www.openarchives.org/OAI/2.0/oai_dc/";
    const res = await send(manager, "POST", `${M}/forms/`, {
      title: "Dublin Core form",
      schemaUri: dc,
      sections: [{ title: "Main", fields: ["title"] }],
    });
    expect(res.status).toBe(201);
    const form = (await res.json()) as { id: string; title: string; sections: unknown[] };
    expect(form.id).toMatch(/^[0-9a-f]{32}$/);
    expect(form.sections).toHaveLength(1);
    const other = (await (await send(manager, "POST", `${M}/forms`, { title: "Plain form" })).json()) as {
      id: string;
    };

    const all = (await (await curator(`${M}/forms`)).json()) as {
      metadataForms: { id: string; title: string }[];
    };
    expect(all.metadataForms.map((f) => f.title)).toEqual(["Dublin Core form", "Plain form"]);
    expect(all.metadataForms[0]).toMatchObject({ id: form.id, title: "Dublin Core form" });
    const filtered = (await (await curator(`${M}/forms?schemaUri=${encodeURIComponent(dc)}`)).json()) as {
      metadataForms: { id: string }[];
    };
    expect(filtered.metadataForms.map((f) => f.id)).toEqual([form.id]);
    expect(await (await curator(`${M}/forms/${form.id}`)).json()).toEqual(form);

    const put = await send(manager, "PUT", `${M}/forms/${form.id}`, { ...form, title: "DC form" });
    expect(put.status).toBe(200);
    expect(((await put.json()) as { title: string }).title).toBe("DC form");

    await refused(curator, "POST", `${M}/forms/`, { title: "Mine" }, 403);
    await refused(curator, "PUT", `${M}/forms/${form.id}`, { title: "Mine" }, 403);
    await refused(curator, "DELETE", `${M}/forms/${form.id}`, undefined, 403);
    await refused(manager, "POST", `${M}/forms/`, { schemaUri: dc }, 400, /title is required/);
    await refused(manager, "POST", `${M}/forms/`, { title: "plain FORM" }, 409, /already exists/);
    await refused(manager, "PUT", `${M}/forms/${other.id}`, { title: "DC form" }, 409);

    expect((await manager(`${M}/forms/${form.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await curator(`${M}/forms/${form.id}`)).status).toBe(404);
  });
});

describe("CSV templates", () => {
  it("downloads a template with the columns a CSV edit takes, by group id or by a group's form id", async () => {
    const g = await createGroup({
      name: "Template Group",
      fields: [clientField("ref_no", "Reference number", "STRING"), clientField("when", "When", "DATE")],
    });
    const res = await curator(`${M}/csv-templates/download?ids=${g.id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv;charset=UTF-8");
    expect(res.headers.get("content-disposition")).toContain('filename="template_group.csv"');
    const rows = parse(await res.text()) as string[][];
    expect(rows).toEqual([
      [
        "PRESERVICA_CSV_TEMPLATE",
        "PRESERVICA_ENTITY_REF",
        `${g.schemaUri};/ns:template_group/ns:ref_no`,
        `${g.schemaUri};/ns:template_group/ns:when`,
      ],
      ["file or folder name", "entity ref", "Reference number", "When"],
    ]);

    const form = (await (
      await send(manager, "POST", `${M}/forms/`, {
        title: "Template form",
        schemaUri: g.schemaUri,
      })
    ).json()) as { id: string };
    const byForm = await curator(`${M}/csv-templates/download?ids=${form.id}`);
    expect(byForm.status).toBe(200);
    expect((parse(await byForm.text()) as string[][])[0]).toEqual(rows[0]);

    expect((await curator(`${M}/csv-templates/download`)).status).toBe(400);
    const unknown = await curator(`${M}/csv-templates/download?ids=nope`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { message: string }).message).toContain('"nope"');
  });
});
