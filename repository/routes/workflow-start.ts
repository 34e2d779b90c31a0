import { HTTPException } from "hono/http-exception";
import { isUuid } from "../http/params.js";
import { INTEGRITY_CHECK_KIND, type IntegrityCheckParams } from "../jobs/integrity-check.js";
import { Permission } from "../store/auth.js";
import { findEntity } from "../store/entities/read.js";
import type { OpsContext } from "./operations-common.js";

/**
 * Workflows that start through `POST /sdb/rest/workflow/instances`. Each startable kind of action
 * reads its parameters (context defaults overlaid by the request's), checks them (400 / 403 / 404
 * before anything is stored) and says what action to create. Every other kind starts through the API
 * that offers it (an upload, an export request, a move…): its definition's start_hint says where.
 */

export interface StartPlan {
  entityRef: string | null;
  entityType: string | null;
  params: unknown;
}

type Starter = (c: OpsContext, params: ReadonlyMap<string, string>) => StartPlan;

function badRequest(message: string): HTTPException {
  return new HTTPException(400, { message });
}

/** The whole repository, for the Integrity Check's `folder` parameter. */
export const WHOLE_REPOSITORY = "@root@";

const startIntegrityCheck: Starter = (c, params) => {
  const accepted = ["folder"];
  const unknown = [...params.keys()].filter((k) => !accepted.includes(k));
  if (unknown.length > 0) {
    throw badRequest(
      `The Integrity Check takes one parameter, folder; it does not know ${unknown.map((k) => `"${k.slice(0, 40)}"`).join(", ")}`,
    );
  }
  const raw = params.get("folder")?.trim();
  const example = `<Parameter><Key>folder</Key><Value>{folder ref, or ${WHOLE_REPOSITORY} for the whole repository}</Value></Parameter>`;
  if (!raw) throw badRequest(`The Integrity Check needs the folder to check; send ${example}`);
  if (raw === WHOLE_REPOSITORY) {
    const p: IntegrityCheckParams = { folder: null };
    return { entityRef: null, entityType: null, params: p };
  }
  if (!isUuid(raw)) {
    throw badRequest(
      `Parameter folder "${raw.slice(0, 80)}" is not a folder reference (a UUID); send ${example}`,
    );
  }
  const ref = raw.toLowerCase();
  const e = findEntity(c.get("svc").db, ref);
  if (!e)
    throw new HTTPException(404, { message: `Folder ${ref} not found; the folder parameter names a folder` });
  if (e.type !== "SO") {
    throw badRequest(
      `Entity ${ref} is not a folder (it is ${e.type === "IO" ? "an asset" : "a content object"}); the Integrity Check takes a folder`,
    );
  }
  const caller = c.get("caller");
  if (!caller.permissions.permits(e.security_tag, Permission.READ_METADATA)) {
    throw new HTTPException(403, {
      message: `User ${caller.user.username} lacks the ${Permission.READ_METADATA} permission on security tag "${e.security_tag}" of folder ${ref}`,
    });
  }
  const p: IntegrityCheckParams = { folder: ref };
  return { entityRef: ref, entityType: "SO", params: p };
};

const STARTERS: Readonly<Record<string, Starter>> = {
  [INTEGRITY_CHECK_KIND]: startIntegrityCheck,
};

export function starterOf(kind: string | null): Starter | undefined {
  return kind === null ? undefined : STARTERS[kind];
}
