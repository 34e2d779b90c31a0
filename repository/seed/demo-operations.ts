import { createHash } from "node:crypto";
import type { ExportOptions } from "../export/options.js";
import type { IngestParams } from "../ingest/params.js";
import type { CsvEditPlan } from "../metadata-groups/csv.js";
import { findReport } from "../reports/catalogue.js";
import type { ReportParameters } from "../reports/definitions.js";
import { executeReport, type ReportRunParams } from "../reports/execute.js";
import type { ActionItemRow, ActionStatus } from "../store/actions/read.js";
import { createAction, recordItems, setActionParams, setActionStatus } from "../store/actions/write.js";
import type { Db } from "../store/db.js";
import { REPORT_ACTION_KIND } from "../store/reports/read.js";
import { addSeconds, uuidFrom } from "./ids.js";
import { ACCESSION_SCHEMA } from "./metadata.js";
import { SECURITY_TAGS } from "./users.js";

/**
 * The demo collection's operations history: long-running actions as the service would have recorded
 * them, so an administrator's questions ("which ingests failed lately, and why?", "which reports were
 * run, by whom?") have true answers out of the box. Every action agrees with what the demo already
 * holds: the two ingests are those of the first two fonds (dated like their Ingest events, one item
 * per file they created), the metadata CSV edit is the pass that added the accession records (dated like
 * its Modified event), the export names the folder and assets it wrote; the failed ingest created
 * nothing (its items say why, file by file); the two report runs are real runs of the reports over the
 * demo store, their result files written when the store is seeded. Nothing here adds or changes an
 * entity or an event. All ids and dates are fixed (derived from keys), so every store holds the same.
 */

/** What the plan needs to know of the demo tree and its events (demo.ts passes its plan). */
export interface OpsEntity {
  ref: string;
  type: "SO" | "IO" | "CO";
  title: string;
  path: string;
  parentRef: string | null;
  created: string;
}

export interface OpsEvent {
  ref: string;
  type: string;
  date: string;
  user: string;
  actions: readonly { entityRef: string }[];
}

export interface OpsInput {
  entities: readonly OpsEntity[];
  events: readonly OpsEvent[];
  /** File name of each content object's file. */
  filenames: ReadonlyMap<string, string>;
  /** Assets given an accession record by the later metadata pass, with the record's fields. */
  accessions: readonly { ref: string; path: string; record: Readonly<Record<string, string>> }[];
  /** The Modified event of that pass. */
  accessionEventRef: string;
  photographsRef: string;
}

interface PlannedAction {
  id: string;
  kind: string;
  status: ActionStatus;
  username: "manager" | "curator";
  entityRef: string | null;
  entityType: "SO" | "IO" | null;
  params: unknown;
  created: string;
  completed: string;
  message: string | null;
  items: ActionItemRow[];
  /** Report runs: the report run at seed time over the seeded store. */
  report?: { id: string; parameters: ReportParameters; rowCount: number };
}

/** Tags the demo's manager and curator read: all of them. */
const EVERY_TAG = [...SECURITY_TAGS].sort();

const EXPORT_OPTIONS: ExportOptions = {
  includeContent: "Content",
  includeMetadata: "Metadata",
  includedGenerations: "LatestActive",
  includeParentHierarchy: "false",
};

/** The failed ingest: an OPEX transfer of two new photographs that arrived damaged. */
const FAILED_INGEST = {
  packageName: "photographs-accession-2026-01.zip",
  created: "2026-01-19T11:02:00.000Z",
  seconds: 41,
  mismatched: {
    entryPath:
      "Harbour regatta 1911.pax/Representation_Preservation/harbour-regatta-1911/harbour-regatta-1911.png",
    manifest: "Harbour regatta 1911.pax.opex",
    size: 18_432,
  },
  missing: {
    entryPath:
      "Lifeboat launch 1912.pax/Representation_Preservation/lifeboat-launch-1912/lifeboat-launch-1912.png",
    manifest: "Lifeboat launch 1912.pax.opex",
  },
};

export function planOperations(input: OpsInput) {
  const byRef = new Map(input.entities.map((e) => [e.ref, e]));
  const entity = (ref: string): OpsEntity => {
    const e = byRef.get(ref);
    if (!e) throw new Error(`demo operations: no entity ${ref}`);
    return e;
  };
  const byPath = (path: string): OpsEntity => {
    const e = input.entities.find((x) => x.path === path);
    if (!e) throw new Error(`demo operations: no entity at ${path}`);
    return e;
  };
  const actions: PlannedAction[] = [];

  // The ingests that created the first two fonds: one item per file, on the asset it became.
  const roots = input.entities.filter((e) => e.type === "SO" && e.parentRef === null).slice(0, 2);
  const ingests = roots.map((root) => {
    const event = input.events.find(
      (ev) => ev.type === "Ingest" && ev.actions.some((a) => a.entityRef === root.ref),
    );
    if (!event) throw new Error(`demo operations: no Ingest event created ${root.title}`);
    const made = event.actions.map((a) => entity(a.entityRef));
    const started = made.reduce((min, e) => (e.created < min ? e.created : min), event.date);
    const files = made.filter((e) => e.type === "CO");
    const packageName = `${slug(root.title)}-${started.slice(0, 10)}.zip`;
    const id = uuidFrom(`demo:action:ingest:${root.path}`);
    const folders = made.filter((e) => e.type === "SO").length;
    const assets = made.filter((e) => e.type === "IO").length;
    const params: IngestParams = {
      package: `${id}.zip`,
      parentRef: null,
      source: "upload",
      packageName,
    };
    actions.push({
      id,
      kind: "ingest",
      status: "COMPLETED",
      username: event.user as "manager" | "curator",
      entityRef: null,
      entityType: null,
      params,
      created: started,
      completed: event.date,
      message: `Ingested package "${packageName}" (xip): ${folders} folder${folders === 1 ? "" : "s"} and ${assets} asset${assets === 1 ? "" : "s"} created`,
      items: files.map((co, i) => {
        const asset = entity(co.parentRef as string);
        return {
          seq: i + 1,
          entity_ref: asset.ref,
          outcome: "done",
          message: `${asset.path}/${input.filenames.get(co.ref) ?? co.title} ingested`,
        };
      }),
    });
    return { id, rootRef: root.ref, eventRef: event.ref, files: files.length };
  });

  // The metadata pass that added the accession records, as the CSV edit it was.
  const accessionEvent = input.events.find((ev) => ev.ref === input.accessionEventRef);
  if (!accessionEvent) throw new Error("demo operations: no accession event");
  const fields = Object.keys(input.accessions[0]?.record ?? {});
  const csvPlan: CsvEditPlan = {
    columns: fields.map((field) => ({ schemaUri: ACCESSION_SCHEMA, field })),
    rows: input.accessions.map((a, i) => ({
      seq: i + 1,
      line: i + 2,
      ref: a.ref,
      values: fields.map((f) => a.record[f] ?? ""),
    })),
  };
  const csvEdit = {
    id: uuidFrom("demo:action:metadata-csv-edit:accession"),
    eventRef: accessionEvent.ref,
    rows: csvPlan.rows.length,
  };
  actions.push({
    id: csvEdit.id,
    kind: "metadata-csv-edit",
    status: "COMPLETED",
    username: accessionEvent.user as "manager" | "curator",
    entityRef: null,
    entityType: null,
    params: csvPlan,
    created: addSeconds(accessionEvent.date, -600),
    completed: accessionEvent.date,
    message: null,
    items: input.accessions.map((a, i) => ({
      seq: i + 1,
      entity_ref: a.ref,
      outcome: "done",
      message: `Line ${i + 2}: added ${ACCESSION_SCHEMA} (fragment ${uuidFrom(`demo:fragment:${a.path}:accession`)}; fields ${fields.join(", ")})`,
    })),
  });

  // A researcher's request: the Town Maps, without the folders above them.
  const townMaps = byPath("Maps and Plans/Town Maps");
  const mapAssets = input.entities.filter((e) => e.parentRef === townMaps.ref && e.type === "IO");
  const filesOf = (io: OpsEntity) =>
    input.entities.filter((e) => e.parentRef === io.ref && e.type === "CO").length;
  const exportFiles = mapAssets.reduce((n, io) => n + filesOf(io), 0);
  const exported = {
    id: uuidFrom("demo:action:export:town-maps"),
    folderRef: townMaps.ref,
    items: 1 + mapAssets.length,
    files: exportFiles,
  };
  actions.push({
    id: exported.id,
    kind: "export",
    status: "COMPLETED",
    username: "manager",
    entityRef: townMaps.ref,
    entityType: "SO",
    params: { options: EXPORT_OPTIONS },
    created: "2025-12-03T10:12:00.000Z",
    completed: "2025-12-03T10:12:38.000Z",
    message: `Exported ${exported.items} folders and assets with ${exportFiles} files. Download it from /api/entity/actions/exports/${exported.id}/content within 7 days`,
    items: [
      { seq: 1, entity_ref: townMaps.ref, outcome: "done", message: "Folder, as Town Maps/Town Maps.opex" },
      ...mapAssets.map(
        (io, i): ActionItemRow => ({
          seq: i + 2,
          entity_ref: io.ref,
          outcome: "done",
          message: `Asset with ${filesOf(io)} file${filesOf(io) === 1 ? "" : "s"}, as Town Maps/${io.title}.pax.opex`,
        }),
      ),
    ],
  });

  // The failed ingest: a damaged transfer, refused file by file; nothing was created.
  const f = FAILED_INGEST;
  const failedId = uuidFrom("demo:action:ingest:failed:photographs-2026-01");
  const declared = createHash("sha256").update("demo:failed-ingest:declared").digest("hex");
  const actual = createHash("sha256").update("demo:failed-ingest:actual").digest("hex");
  const errors = [
    `${f.mismatched.entryPath}: fixity mismatch, ${f.mismatched.manifest} declares SHA256 ${declared} but the file's ${f.mismatched.size} bytes have ${actual}; it was not ingested. Check the file and its declared fixity, and send it again`,
    `${f.missing.entryPath} is listed in the manifest ${f.missing.manifest} but is not in the package`,
  ];
  const failedParams: IngestParams = {
    package: `${failedId}.zip`,
    parentRef: input.photographsRef,
    source: "upload",
    packageName: f.packageName,
  };
  const failedIngest = {
    id: failedId,
    folderRef: input.photographsRef,
    packageName: f.packageName,
    created: f.created,
    errors,
  };
  const failedMessage = `Nothing of package "${f.packageName}" (opex) was ingested: 2 of 2 items failed (see the errors)`;

  // Two report runs, in the weeks after the January integrity check.
  const storageRun = {
    id: uuidFrom("demo:action:report:storage-by-folder:2026-01-16"),
    report: "storage-by-folder",
    username: "manager" as const,
    parameters: {},
    created: "2026-01-16T08:30:00.000Z",
    // One row per fonds (the manager reads them all), and one for assets at the top level, if any.
    rowCount:
      input.entities.filter((e) => e.type === "SO" && e.parentRef === null).length +
      (input.entities.some((e) => e.type === "IO" && e.parentRef === null) ? 1 : 0),
  };
  const historyParameters = { from: "2025-01-01T00:00:00.000Z", to: "2025-12-31T23:59:59.999Z" };
  const historyRun = {
    id: uuidFrom("demo:action:report:ingest-history:2025"),
    report: "ingest-history",
    username: "curator" as const,
    parameters: historyParameters,
    created: "2026-01-20T09:15:00.000Z",
    rowCount: new Set(
      input.events
        .filter(
          (ev) =>
            ev.type === "Ingest" && ev.date >= historyParameters.from && ev.date <= historyParameters.to,
        )
        .map((ev) => ev.date.slice(0, 10)),
    ).size,
  };
  for (const run of [storageRun, historyRun]) {
    actions.push({
      id: run.id,
      kind: REPORT_ACTION_KIND,
      status: "COMPLETED",
      username: run.username,
      entityRef: null,
      entityType: null,
      params: { report: run.report, parameters: run.parameters } satisfies ReportRunParams,
      created: run.created,
      completed: addSeconds(run.created, 2),
      message: `${run.rowCount} row${run.rowCount === 1 ? "" : "s"}; fetch them from /api/reports/results/${run.id}?format=json or ?format=csv`,
      items: [],
      report: { id: run.report, parameters: run.parameters, rowCount: run.rowCount },
    });
  }
  actions.push({
    id: failedId,
    kind: "ingest",
    status: "FAILED",
    username: "curator",
    entityRef: input.photographsRef,
    entityType: "SO",
    params: failedParams,
    created: f.created,
    completed: addSeconds(f.created, f.seconds),
    message: failedMessage,
    items: errors.map((message, i) => ({ seq: i + 1, entity_ref: null, outcome: "failed", message })),
  });

  actions.sort((a, b) => (a.created < b.created ? -1 : a.created > b.created ? 1 : 0));
  const facts = {
    /** Every action of the history in submission order (oldest first). */
    actions: actions.map((a) => ({
      id: a.id,
      kind: a.kind,
      status: a.status,
      username: a.username,
      entityRef: a.entityRef,
      created: a.created,
      completed: a.completed,
      items: a.items.length,
    })),
    ingests,
    csvEdit,
    export: exported,
    failedIngest,
    reportRuns: [storageRun, historyRun].map((r) => ({
      id: r.id,
      report: r.report,
      username: r.username,
      parameters: r.parameters as Readonly<Record<string, string>>,
      created: r.created,
      completed: addSeconds(r.created, 2),
      rowCount: r.rowCount,
    })),
  };
  return { actions, facts };
}

export type OperationsPlan = ReturnType<typeof planOperations>;

/**
 * Writes the history into a store that already holds the demo collection. Report runs are run for
 * real over that store (with the tags their users read); their result files go to `<dataDir>/reports/`
 * when a data directory is given.
 */
export function writeOperations(db: Db, dataDir: string | null, plan: OperationsPlan): void {
  for (const a of plan.actions) {
    createAction(
      db,
      {
        id: a.id,
        kind: a.kind,
        username: a.username,
        entityRef: a.entityRef,
        entityType: a.entityType,
        params: a.params,
        total: a.items.length,
      },
      a.created,
    );
    recordItems(db, a.id, a.items, a.completed);
    if (a.report) writeReportRun(db, dataDir, a, a.report);
    setActionStatus(db, a.id, a.status, a.completed, a.message);
  }
}

function writeReportRun(
  db: Db,
  dataDir: string | null,
  a: PlannedAction,
  run: NonNullable<PlannedAction["report"]>,
): void {
  const report = findReport(run.id);
  if (!report) throw new Error(`demo operations: no report ${run.id}`);
  const steps = executeReport(
    {
      db,
      dataDir,
      token: a.id,
      report,
      parameters: run.parameters,
      username: a.username,
      readableTags: EVERY_TAG,
      started: a.created,
    },
    () => a.completed,
  );
  let next = steps.next();
  let total = 0;
  while (!next.done) {
    total = next.value.total;
    next = steps.next();
  }
  const result = next.value;
  if (result.rowCount !== run.rowCount) {
    throw new Error(
      `demo operations: the ${run.id} run gave ${result.rowCount} rows where the plan says ${run.rowCount}`,
    );
  }
  setActionParams(
    db,
    a.id,
    { report: run.id, parameters: run.parameters, result } satisfies ReportRunParams,
    a.completed,
  );
  db.prepare("UPDATE actions SET total = ?, done = ? WHERE id = ?").run(total, total, a.id);
}

function slug(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}
