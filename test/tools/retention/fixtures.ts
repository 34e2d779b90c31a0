import type { RunningRepository } from "../../../repository/server.js";
import { insertEntity } from "../../../repository/store/entities/write.js";
import { readPolicy } from "../../../src/api/retention.js";
import { parseXml } from "../../../src/api/xml.js";
import { authed, login } from "../../helpers/repository.js";

/** Test fixtures of the retention tools: policies made as the manager over the wire, assets in the store. */

const RM = "http://preservica.com/RetentionManagement/v6.2";

export interface PolicyFixture {
  name: string;
  period?: number;
  unit?: string;
  startDateField?: string;
  assignable?: boolean;
  expiryAction?: string;
}

/** Creates a policy as the manager over HTTP (the wire pyPreservica uses); returns its ref. */
export async function createPolicy(repo: RunningRepository, fields: PolicyFixture): Promise<string> {
  const { token } = await login(repo.url, "manager");
  const el = (name: string, v: string | number | undefined) =>
    v === undefined ? `<${name}/>` : `<${name}>${v}</${name}>`;
  const body = `<RetentionPolicy xmlns="${RM}">${el("Name", fields.name)}${el("Description", `About ${fields.name}`)}<SecurityTag>open</SecurityTag>${el("StartDateField", fields.startDateField)}${el("Period", fields.period)}${el("PeriodUnit", fields.unit)}${el("ExpiryAction", fields.expiryAction ?? "REVIEW")}<Restriction>DELETE</Restriction><Assignable>${fields.assignable === false ? "False" : "True"}</Assignable></RetentionPolicy>`;
  const res = await authed(repo.url, token)("/api/entity/retention-policies", {
    method: "POST",
    headers: { "content-type": "application/xml;charset=UTF-8" },
    body,
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`creating policy ${fields.name}: ${res.status} ${text}`);
  return readPolicy(parseXml(text)).ref;
}

/** A new asset of its own for one test. */
export function newAsset(repo: RunningRepository, title: string, created?: string, securityTag = "open") {
  return insertEntity(repo.svc.db, {
    type: "IO",
    title,
    securityTag,
    ...(created ? { created } : {}),
  });
}

export function newFolder(repo: RunningRepository, title: string) {
  return insertEntity(repo.svc.db, { type: "SO", title, securityTag: "open" });
}

/** The asset's assignments as the service lists them (read back over HTTP as the manager). */
export async function assignmentsOnWire(repo: RunningRepository, assetRef: string): Promise<string> {
  const { token } = await login(repo.url, "manager");
  const res = await authed(
    repo.url,
    token,
  )(`/api/entity/information-objects/${assetRef}/retention-assignments`);
  return res.text();
}

/** The policy refs assigned to an asset, read back over HTTP. */
export async function assignedPolicies(repo: RunningRepository, assetRef: string): Promise<string[]> {
  const xml = await assignmentsOnWire(repo, assetRef);
  return [...xml.matchAll(/<(?:\w+:)?RetentionPolicy>([^<]+)</g)].map((m) => m[1] as string);
}

/** Makes a policy assignable or not as the manager over HTTP (`PUT …/assignable`, text body True/False). */
export async function setAssignable(repo: RunningRepository, policyRef: string, assignable: boolean) {
  const { token } = await login(repo.url, "manager");
  const res = await authed(repo.url, token)(`/api/entity/retention-policies/${policyRef}/assignable`, {
    method: "PUT",
    headers: { "content-type": "text/plain" },
    body: assignable ? "True" : "False",
  });
  if (res.status !== 200) throw new Error(`setting assignable: ${res.status} ${await res.text()}`);
}
