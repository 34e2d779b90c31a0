import { utcInstant } from "../http/dates.js";
import type { ActionItemRow } from "../store/actions/read.js";
import { recordItems, setActionStatus, setActionTotal } from "../store/actions/write.js";
import { saveGenerationProperties } from "../store/characterisation/properties.js";
import type { Db } from "../store/db.js";
import {
  addBitstream,
  addFragment,
  addGeneration,
  addIdentifier,
  addRepresentation,
  insertEntity,
} from "../store/entities/write.js";
import { recordChange } from "../store/events/write.js";
import { type BlobCost, checkQuota, quotaMessage } from "../store/storage/quota.js";
import { checkPlan, type Depositor } from "./check.js";
import { filesOf, type IngestPlan, type PlannedAsset, type PlannedFile } from "./plan.js";
import { PackageRefused } from "./zip.js";

/**
 * Creates everything a checked, streamed plan describes in ONE transaction: folders, assets, content
 * objects, representations, generations, bitstreams (with the fixities computed while streaming),
 * identifiers and metadata fragments, the Ingest event (one `command_create` action per entity), the
 * action's items (one per file, plus one per promised-but-missing file and per failed folder), its
 * counts and its final status. Until it commits nothing of the package is visible; a crash before then
 * leaves only blobs in the content store (unreferenced, harmless) and the action ACTIVE, to run again.
 */

export const INGEST_EVENT_TYPE = "Ingest";
export const INGEST_COMMAND = "command_create";

export const WORKFLOW_NAMES = {
  zip: "Ingest zipped folder",
  opex: "Ingest OPEX",
  xip: "Ingest XIP package",
} as const;

export interface CommitInput {
  plan: IngestPlan;
  actionId: string;
  depositor: Depositor;
  packageName: string;
  now: string;
}

export interface CommitResult {
  status: "COMPLETED" | "FINISHED_MIXED_OUTCOME" | "FAILED";
  message: string;
  folders: number;
  assets: number;
}

export function commitPlan(db: Db, input: CommitInput): CommitResult {
  return db.transaction(() => {
    const { plan, now } = input;
    // Checked again under the write lock: a folder deleted, a tag removed, a ref taken meanwhile.
    checkPlan(db, plan, input.depositor);
    // The quota again, under the write lock: another write may have used the room since the first check.
    // Refused here, the transaction creates nothing; the streamed blobs stay on disk unnamed (not counted),
    // as after a crash: removing them could take a blob from a concurrent write that found it there.
    const quota = checkQuota(db, storedBlobs(plan));
    if (!quota.fits) {
      throw new PackageRefused(
        quotaMessage(quota, `the package "${input.packageName}"`, "nothing was ingested"),
      );
    }
    const created: string[] = [];
    const refOf = new Map<string, string>();
    const parentRef = (p: PlannedAsset["parent"]) =>
      p.kind === "target" ? p.ref : (refOf.get(p.key) ?? null);
    let folders = 0;
    let assets = 0;

    for (const f of plan.folders) {
      if (f.problem) continue;
      const e = insertEntity(db, {
        ...(f.ref ? { ref: f.ref } : {}),
        type: "SO",
        title: f.title,
        description: f.description,
        securityTag: f.tag as string,
        customType: f.customType,
        parentRef: parentRef(f.parent),
        created: now,
      });
      refOf.set(f.key, e.ref);
      describe(db, e.ref, f, now);
      created.push(e.ref);
      folders++;
    }

    const assetRefs = new Map<PlannedAsset, string>();
    for (const a of plan.assets) {
      if (a.problem) continue;
      const io = insertEntity(db, {
        ...(a.ref ? { ref: a.ref } : {}),
        type: "IO",
        title: a.title,
        description: a.description,
        securityTag: a.tag as string,
        customType: a.customType,
        parentRef: parentRef(a.parent),
        created: now,
      });
      describe(db, io.ref, a, now);
      created.push(io.ref);
      for (const rep of a.representations) {
        const coRefs: string[] = [];
        for (const co of rep.contentObjects) {
          const e = insertEntity(db, {
            ...(co.ref ? { ref: co.ref } : {}),
            type: "CO",
            title: co.title,
            description: co.description,
            securityTag: co.tag as string,
            customType: co.customType,
            parentRef: io.ref,
            created: now,
          });
          describe(db, e.ref, co, now);
          created.push(e.ref);
          coRefs.push(e.ref);
          for (const g of co.generations) addGenerationOf(db, e.ref, g, now);
        }
        addRepresentation(db, io.ref, rep.type, rep.name, coRefs);
      }
      assetRefs.set(a, io.ref);
      assets++;
    }

    if (created.length > 0) {
      recordChange(db, {
        username: input.depositor.username,
        date: now,
        type: INGEST_EVENT_TYPE,
        commandType: INGEST_COMMAND,
        entityRefs: created,
        detail: `Ingested from package "${input.packageName}" (${plan.kind})`,
        workflowName: WORKFLOW_NAMES[plan.kind],
        workflowInstanceId: input.actionId,
      });
    }

    const items = itemsOf(plan, assetRefs);
    db.prepare("UPDATE actions SET done = 0, failed = 0 WHERE id = ?").run(input.actionId);
    setActionTotal(db, input.actionId, items.length, now);
    recordItems(db, input.actionId, items, now);
    const result = outcome(plan, items, folders, assets, input.packageName);
    setActionStatus(db, input.actionId, result.status, now, result.message);
    return result;
  })();
}

/** The blobs the commit will name: the streamed files of the assets it creates. */
function storedBlobs(plan: IngestPlan): BlobCost[] {
  const out: BlobCost[] = [];
  for (const a of plan.assets) {
    if (a.problem) continue;
    for (const f of filesOf(a)) if (f.blob) out.push({ sha256: f.blob.sha256, size: f.blob.size });
  }
  return out;
}

function describe(
  db: Db,
  ref: string,
  e: { identifiers: { type: string; value: string }[]; fragments: { schemaUri: string; content: string }[] },
  now: string,
): void {
  for (const id of e.identifiers) addIdentifier(db, ref, id.type, id.value);
  for (const f of e.fragments) addFragment(db, ref, f.schemaUri, f.content, { date: now });
}

function addGenerationOf(
  db: Db,
  coRef: string,
  g: IngestPlan["assets"][number]["representations"][number]["contentObjects"][number]["generations"][number],
  now: string,
): void {
  const format = g.files[0]?.format;
  const id = addGeneration(db, coRef, {
    original: g.original,
    active: g.active,
    label: g.label,
    formatGroup: format?.formatGroup ?? null,
    effectiveDate: (g.effectiveDate && utcInstant(g.effectiveDate)) || now,
    formatPuid: format?.puid ?? null,
    formatName: format?.formatName ?? null,
    formatVersion: format?.formatVersion ?? null,
  });
  for (const f of g.files) {
    addBitstream(db, id, {
      filename: f.filename,
      originalName: f.originalName,
      mimeType: f.format?.mimeType ?? "application/octet-stream",
      blob: f.blob as NonNullable<PlannedFile["blob"]>,
    });
  }
  // A generation is described by its first file (as its format is).
  const properties = g.files[0]?.properties;
  if (properties) saveGenerationProperties(db, id, properties);
}

/** One item per file (its asset's ref when done), per missing file, and per failed empty folder. */
function itemsOf(plan: IngestPlan, assetRefs: Map<PlannedAsset, string>): ActionItemRow[] {
  const items: ActionItemRow[] = [];
  const seen = new Set<PlannedFile>();
  const foldersWithContent = new Set<string>();
  for (const f of plan.folders) if (f.parent.kind === "planned") foldersWithContent.add(f.parent.key);
  for (const a of plan.assets) {
    if (a.parent.kind === "planned") foldersWithContent.add(a.parent.key);
    const ref = assetRefs.get(a);
    for (const f of filesOf(a)) {
      if (seen.has(f)) continue;
      seen.add(f);
      items.push(
        ref
          ? { seq: items.length + 1, entity_ref: ref, outcome: "done", message: `${f.entryPath} ingested` }
          : {
              seq: items.length + 1,
              entity_ref: null,
              outcome: "failed",
              message: (f.problem ?? a.problem ?? `${f.entryPath} was not ingested`).slice(0, 4000),
            },
      );
    }
  }
  for (const m of plan.missing) {
    items.push({ seq: items.length + 1, entity_ref: null, outcome: "failed", message: m.message });
  }
  // A failed folder's files already say why; a failed folder with no files would say nothing otherwise.
  for (const f of plan.folders) {
    if (f.problem && !foldersWithContent.has(f.key)) {
      items.push({
        seq: items.length + 1,
        entity_ref: null,
        outcome: "failed",
        message: f.problem.slice(0, 4000),
      });
    }
  }
  return items;
}

function outcome(
  plan: IngestPlan,
  items: ActionItemRow[],
  folders: number,
  assets: number,
  packageName: string,
): CommitResult {
  const failed = items.filter((i) => i.outcome === "failed").length;
  const done = items.length - failed;
  const made = `${folders} folder${folders === 1 ? "" : "s"} and ${assets} asset${assets === 1 ? "" : "s"} created`;
  const notes = plan.notes.length > 0 ? `. ${plan.notes.join(". ")}` : "";
  const what = `package "${packageName}" (${plan.kind})`;
  if (failed === 0) {
    if (folders + assets === 0) {
      return {
        status: "FAILED",
        message: `Nothing to ingest: ${what} holds no files or folders${notes}`,
        folders,
        assets,
      };
    }
    return { status: "COMPLETED", message: `Ingested ${what}: ${made}${notes}`, folders, assets };
  }
  if (done === 0 && folders === 0) {
    return {
      status: "FAILED",
      message: `Nothing of ${what} was ingested: ${failed} of ${items.length} item${items.length === 1 ? "" : "s"} failed (see the errors)${notes}`,
      folders,
      assets,
    };
  }
  return {
    status: "FINISHED_MIXED_OUTCOME",
    message: `Ingested part of ${what}: ${made}; ${failed} of ${items.length} item${items.length === 1 ? "" : "s"} failed (see the errors)${notes}`,
    folders,
    assets,
  };
}
