import type { RunningRepository } from "../../../repository/server.js";
import { insertEntity } from "../../../repository/store/entities/write.js";
import type { Preview } from "../../helpers/preview.js";
import { authed, login } from "../../helpers/repository.js";

/** Shared by the lifecycle tool tests: fresh targets of their own, and waiting for an action to settle. */

/** A folder holding a subfolder and two assets (one in each), all open. */
export function makeTree(repo: RunningRepository, title: string) {
  const db = repo.svc.db;
  const folder = insertEntity(db, { type: "SO", title, securityTag: "open" });
  const sub = insertEntity(db, {
    type: "SO",
    title: `${title} — sub`,
    securityTag: "open",
    parentRef: folder.ref,
  });
  const a1 = insertEntity(db, {
    type: "IO",
    title: `${title} — asset 1`,
    securityTag: "open",
    parentRef: folder.ref,
  });
  const a2 = insertEntity(db, {
    type: "IO",
    title: `${title} — asset 2`,
    securityTag: "open",
    parentRef: sub.ref,
  });
  return { folder, sub, a1, a2 };
}

/** Polls an action's progress until it is no longer ACTIVE; returns its status (PENDING, COMPLETED, …). */
export async function settle(repo: RunningRepository, token: string): Promise<string> {
  const { token: access } = await login(repo.url, "manager");
  const get = authed(repo.url, access);
  for (let i = 0; i < 400; i++) {
    const body = await (await get(`/api/entity/progress/${token}`)).text();
    const status = /<Status>([A-Z_]+)<\/Status>/.exec(body)?.[1] ?? "";
    if (status !== "ACTIVE") return status;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`action ${token} did not settle`);
}

/** Whether the service still shows the entity (deleted ones are 404). */
export async function exists(repo: RunningRepository, path: string, ref: string): Promise<boolean> {
  const { token } = await login(repo.url, "manager");
  const res = await authed(repo.url, token)(`/api/entity/${path}/${ref}`);
  await res.body?.cancel();
  return res.status === 200;
}

/** Refs at the top of the recycle bin, as the service lists them. */
export async function binRefs(repo: RunningRepository): Promise<string[]> {
  const { token } = await login(repo.url, "manager");
  const body = await (await authed(repo.url, token)("/api/entity/recycle-bin?max=1000")).text();
  return [...body.matchAll(/<DeletedEntity ref="([^"]+)"/g)].map((m) => m[1] as string);
}

/** Deletes `ref` to the recycle bin through the tools (a manager's one confirmation submits and approves); returns the deletion job. */
export async function deleteToBin(
  mcp: { call<T>(name: string, args?: Record<string, unknown>): Promise<T> },
  repo: RunningRepository,
  ref: string,
): Promise<string> {
  const p = await mcp.call<Preview>("delete_entity", { ref });
  const { job } = await mcp.call<{ job: string }>("delete_entity", {
    ref,
    confirmation: p.confirmationRequired.token,
  });
  if ((await settle(repo, job)) !== "COMPLETED") throw new Error(`deletion ${job} did not complete`);
  return job;
}
