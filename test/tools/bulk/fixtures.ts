import type { RunningRepository } from "../../../repository/server.js";
import { addFragment, insertEntity } from "../../../repository/store/entities/write.js";
import { authed, login } from "../../helpers/repository.js";

/** Test fixtures of the bulk tools: a metadata group made as the manager over the wire, entities in the store. */

export const GROUP_NAME = "Accession";
export const SCHEMA = "http://www.preservica.com/metadata/group/accession";
export const col = (field: string) => `${SCHEMA};/ns:accession/ns:${field}`;
export const HEADER = [
  "PRESERVICA_CSV_TEMPLATE",
  "PRESERVICA_ENTITY_REF",
  col("number"),
  col("received"),
  col("boxes"),
  col("status"),
]
  .map((h) => `"${h}"`)
  .join(",");

/** The group: number (STRING ≤ 20), received (DATE), boxes (NUMBER), status (open|closed, required, default open). */
export async function createAccessionGroup(repo: RunningRepository): Promise<string> {
  const { token } = await login(repo.url, "manager");
  const res = await authed(repo.url, token)("/api/metadata/groups/", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      name: GROUP_NAME,
      description: "Accession details",
      fields: [
        { id: "number", name: "Accession number", type: "STRING", maxLength: "20" },
        { id: "received", name: "Date received", type: "DATE" },
        { id: "boxes", name: "Boxes", type: "NUMBER" },
        {
          id: "status",
          name: "Status",
          type: "STRING",
          minOccurs: "1",
          values: ["open", "closed"],
          defaultValue: "open",
        },
      ],
    }),
  });
  const body = (await res.json()) as { id: string; schemaUri: string };
  if (res.status !== 201) throw new Error(`creating the group: ${res.status} ${JSON.stringify(body)}`);
  if (body.schemaUri !== SCHEMA) throw new Error(`unexpected schema URI ${body.schemaUri}`);
  return body.id;
}

export function accessionXml(fields: Record<string, string>): string {
  return `<accession xmlns="${SCHEMA}">${Object.entries(fields)
    .map(([k, v]) => `<${k}>${v}</${k}>`)
    .join("")}</accession>`;
}

/** A new asset (or folder) of its own, optionally with an accession document already. */
export function newEntity(
  repo: RunningRepository,
  title: string,
  opts: { type?: "IO" | "SO" | "CO"; accession?: Record<string, string>; parentRef?: string } = {},
) {
  const e = insertEntity(repo.svc.db, {
    type: opts.type ?? "IO",
    title,
    securityTag: "open",
    ...(opts.parentRef ? { parentRef: opts.parentRef } : {}),
  });
  if (opts.accession) addFragment(repo.svc.db, e.ref, SCHEMA, accessionXml(opts.accession));
  return e;
}

/** The accession documents of an entity, as stored. */
export function accessionDocs(repo: RunningRepository, ref: string): string[] {
  return (
    repo.svc.db
      .prepare("SELECT content FROM metadata_fragments WHERE entity_ref = ? AND schema_uri = ? ORDER BY id")
      .all(ref, SCHEMA) as { content: string }[]
  ).map((r) => r.content);
}

/** A field's value in the entity's first accession document, as stored. */
export function fieldOf(repo: RunningRepository, ref: string, field: string): string | undefined {
  const doc = accessionDocs(repo, ref)[0];
  return doc?.match(new RegExp(`<(?:\\w+:)?${field}>([^<]*)</`))?.[1];
}

/** A digest of everything the CSV edit could touch: every fragment and every entity's modified date. */
export function storeState(repo: RunningRepository): string {
  const frags = repo.svc.db
    .prepare("SELECT mref, content, modified FROM metadata_fragments ORDER BY id")
    .all();
  const ents = repo.svc.db.prepare("SELECT ref, modified FROM entities ORDER BY id").all();
  const events = repo.svc.db.prepare("SELECT COUNT(*) AS n FROM events").get();
  return JSON.stringify([frags, ents, events]);
}

/** Polls the progress of a job until it is no longer ACTIVE/PENDING; returns the final status. */
export async function waitForJob(repo: RunningRepository, token: string): Promise<string> {
  const { token: access } = await login(repo.url, "manager");
  const get = authed(repo.url, access);
  for (let i = 0; i < 200; i++) {
    const xml = await (await get(`/api/entity/progress/${token}`)).text();
    const status = xml.match(/<(?:\w+:)?Status>([^<]+)</)?.[1] ?? "";
    if (status && status !== "ACTIVE" && status !== "PENDING") return status;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`job ${token} did not finish`);
}

/** The items of a finished CSV edit: seq → outcome, as the service recorded them. */
export async function jobItems(
  repo: RunningRepository,
  token: string,
): Promise<{ seq: number; outcome: string; text: string }[]> {
  const { token: access } = await login(repo.url, "manager");
  const xml = await (
    await authed(repo.url, access)(`/api/entity/actions/metadata-csv-edits/${token}?max=1000`)
  ).text();
  return [...xml.matchAll(/<(?:\w+:)?Item\b([^>]*)>([^<]*)</g)].map((m) => ({
    seq: Number(m[1]?.match(/seq="(\d+)"/)?.[1]),
    outcome: m[1]?.match(/outcome="(\w+)"/)?.[1] ?? "",
    text: m[2] ?? "",
  }));
}
