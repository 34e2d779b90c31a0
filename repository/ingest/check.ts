import { Permission, type Permissions } from "../store/auth.js";
import type { Db } from "../store/db.js";
import { getEntity, refInUse, securityTagExists } from "../store/entities/read.js";
import {
  filesOf,
  type IngestPlan,
  type PlannedAsset,
  type PlannedFolder,
  type PlannedParent,
} from "./plan.js";

/**
 * Checks a plan against the store and the depositor's rights, marking what cannot be created (and,
 * with it, everything inside it): a security tag that does not exist, a ref the package asks for that
 * is in use (or asked for twice), a destination folder that is gone or that the depositor may not
 * ingest into, an asset with no folder, a file with a problem of its own. Sets each remaining entity's
 * `tag` to the one it will carry (declared, else its parent's). Synchronous and repeatable: the commit
 * runs it again inside its transaction, so what changed meanwhile is caught there.
 */

export interface Depositor {
  username: string;
  permissions: Permissions;
}

/** Tag of folders created at the top level when the package names none. */
const TOP_LEVEL_DEFAULT_TAG = "open";

interface Resolved {
  /** The tag the entity will carry. */
  tag: string;
}

export function checkPlan(db: Db, plan: IngestPlan, who: Depositor): void {
  const tagNames = () =>
    (db.prepare("SELECT name FROM security_tags ORDER BY name").pluck().all() as string[]).join(", ");
  const seenRefs = new Map<string, string>();
  const claimRef = (ref: string | undefined, source: string): string | undefined => {
    if (ref === undefined) return undefined;
    const other = seenRefs.get(ref);
    if (other !== undefined) return `${source}: the package asks for ref ${ref} twice (also ${other})`;
    seenRefs.set(ref, source);
    if (refInUse(db, ref)) {
      return `${source}: an entity with ref ${ref} already exists (was this package ingested before?); give it a new ref or leave the ref out`;
    }
    return undefined;
  };
  const tagProblem = (tag: string, source: string): string | undefined =>
    securityTagExists(db, tag)
      ? undefined
      : `${source}: security tag "${tag}" does not exist; use one of: ${tagNames()}`;

  const folders = new Map<string, PlannedFolder & Partial<Resolved>>();
  /** Why a folder failed at the root of the trouble (so nested folders do not repeat a chain of reasons). */
  const causes = new Map<string, string>();
  /** Where a top-level entity goes: its folder's tag, or why it cannot go there. */
  const destination = (
    parent: PlannedParent & { kind: "target" },
    type: "SO" | "IO",
    tag: string | undefined,
  ) => {
    if (parent.ref === null) {
      if (type === "IO") return { problem: "an asset must go into a folder; send the package to a folder" };
      const own = tag ?? TOP_LEVEL_DEFAULT_TAG;
      if (!who.permissions.permits(own, Permission.INGEST)) {
        return {
          problem: `user ${who.username} lacks the ${Permission.INGEST} permission on security tag "${own}", needed to create a top-level folder with it`,
        };
      }
      return { tag: own };
    }
    const folder = getEntity(db, parent.ref);
    if (folder?.type !== "SO") {
      return { problem: `the destination folder ${parent.ref} does not exist (or is not a folder)` };
    }
    if (!who.permissions.permits(folder.security_tag, Permission.INGEST)) {
      return {
        problem: `user ${who.username} lacks the ${Permission.INGEST} permission on security tag "${folder.security_tag}" of destination folder ${folder.ref}`,
      };
    }
    return { tag: folder.security_tag };
  };
  /** The parent's tag, or why the entity cannot be created under it. */
  const parentTag = (
    parent: PlannedParent,
    type: "SO" | "IO",
    own: string | undefined,
  ): { tag: string } | { problem: string } => {
    if (parent.kind === "target")
      return destination(parent, type, own) as { tag: string } | { problem: string };
    const p = folders.get(parent.key);
    if (!p) return { problem: `its folder ${parent.key} is not described before it in the package` };
    if (p.problem) {
      return {
        problem: `not ingested because its folder ${p.source} is not (${causes.get(p.key) ?? p.problem})`,
      };
    }
    return { tag: p.tag as string };
  };

  for (const f of plan.folders) {
    if (!f.problem) {
      const parent = parentTag(f.parent, "SO", f.tag);
      if ("problem" in parent) {
        f.problem = `${f.source}: ${parent.problem}`;
        const inherited = f.parent.kind === "planned" ? causes.get(f.parent.key) : undefined;
        if (inherited) causes.set(f.key, inherited);
      } else {
        f.tag ??= parent.tag;
        f.problem = tagProblem(f.tag, f.source) ?? claimRef(f.ref, f.source);
      }
    }
    if (f.problem && !causes.has(f.key)) causes.set(f.key, f.problem);
    folders.set(f.key, f);
  }
  for (const a of plan.assets) checkAsset(a);

  function checkAsset(a: PlannedAsset): void {
    if (a.problem) return;
    const parent = parentTag(a.parent, "IO", a.tag);
    if ("problem" in parent) {
      a.problem = `${a.source}: ${parent.problem}`;
      return;
    }
    a.tag ??= parent.tag;
    a.problem = tagProblem(a.tag, a.source) ?? claimRef(a.ref, a.source);
    for (const co of a.representations.flatMap((r) => r.contentObjects)) {
      if (a.problem) return;
      co.tag ??= a.tag;
      a.problem = co.problem ?? tagProblem(co.tag, co.source) ?? claimRef(co.ref, co.source);
    }
    a.problem ??= filesOf(a).find((f) => f.problem)?.problem;
  }
}
