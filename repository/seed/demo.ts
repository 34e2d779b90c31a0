import { joinFileTexts, markFileTextIndexed, storeFileText, textOfFile } from "../search/file-text.js";
import type { ContentStore } from "../store/content-store.js";
import type { Db } from "../store/db.js";
import type { EntityType } from "../store/entities/types.js";
import {
  addBitstream,
  addEvent,
  addFragment,
  addGeneration,
  addIdentifier,
  addLink,
  addRepresentation,
  insertEntity,
} from "../store/entities/write.js";
import { seedAdminDemo } from "./admin.js";
import { planOperations, writeOperations } from "./demo-operations.js";
import {
  type AssetNode,
  DEMO_ROOTS,
  type DemoKey,
  type FileSpec,
  type FolderNode,
  type RootDef,
  rightsStatement,
  type Tag,
} from "./demo-tree.js";
import { FORMATS, type FormatKey } from "./files.js";
import { addDays, addSeconds, apiIdFrom, uuidFrom } from "./ids.js";
import { ACCESSION_SCHEMA, accessionDocument, dcDocument, type LinkType, OAI_DC_SCHEMA } from "./metadata.js";
import { seedMetadataGroups } from "./metadata-groups.js";
import { seedRetention } from "./retention.js";
import { seedSettings } from "./settings.js";
import { seedStorage } from "./storage.js";

/**
 * Turns the demo tree (seed/demo-tree.ts) into a plan with fixed refs, dates and events, and writes
 * that plan to a store. The plan is pure data computed once at import, so DEMO (the facts tests rely
 * on) and the seeded store can never disagree.
 */

export interface PlannedEntity {
  ref: string;
  type: EntityType;
  title: string;
  description: string | null;
  tag: Tag;
  parentRef: string | null;
  created: string;
  /** Title path from the root, the key every derived id is computed from. */
  path: string;
}

interface PlannedFragment {
  mref: string;
  schema: string;
  content: string;
  date: string;
}

interface PlannedCo {
  entity: PlannedEntity;
  representation: "Preservation" | "Access";
  file: FileSpec;
}

type PlannedItem =
  | {
      kind: "folder";
      entity: PlannedEntity;
      node: FolderNode;
      fragments: PlannedFragment[];
      identifiers: PlannedId[];
    }
  | {
      kind: "asset";
      entity: PlannedEntity;
      node: AssetNode;
      fragments: PlannedFragment[];
      identifiers: PlannedId[];
      cos: PlannedCo[];
    };

interface PlannedId {
  apiId: string;
  type: string;
  value: string;
}

interface PlannedLink {
  apiId: string;
  type: LinkType;
  from: string;
  to: string;
}

interface PlannedEvent {
  ref: string;
  type: "Ingest" | "Characterise" | "Modified" | "IntegrityCheck";
  date: string;
  user: "manager" | "curator";
  workflowName: string | null;
  actions: { entityRef: string; commandType: string }[];
}

interface DemoPlan {
  items: PlannedItem[];
  links: PlannedLink[];
  events: PlannedEvent[];
  /** Entities whose `modified` moves past `created` because a later event changed them. */
  modified: Map<string, string>;
  refs: Record<DemoKey, string>;
}

const DC_TYPE: Record<FormatKey, string> = {
  pdf: "Text",
  txt: "Text",
  xml: "Text",
  csv: "Dataset",
  png: "StillImage",
  wav: "Sound",
};

const PUBLISHER = "Harbour Town Archives";

/** The later events of the demo's history, after the ingests (dates fixed, 2025-2026). */
const LATER = {
  accessionRecords: "2025-02-10T15:20:00.000Z",
  isbnIdentifiers: "2025-10-01T10:05:00.000Z",
  links: "2025-11-20T14:40:00.000Z",
  integrityChecks: ["2025-01-15T02:00:00.000Z", "2025-07-15T02:00:00.000Z", "2026-01-15T02:00:00.000Z"],
};

function planDemo(): DemoPlan {
  const items: PlannedItem[] = [];
  const events: PlannedEvent[] = [];
  const modified = new Map<string, string>();
  const refs: Partial<Record<DemoKey, string>> = {};
  const byPath = new Map<string, PlannedEntity>();
  const byRefMap = new Map<string, PlannedEntity>();
  const pendingLinks: { from: PlannedEntity; type: LinkType; to: DemoKey }[] = [];
  const laterIds: { item: PlannedItem; id: PlannedId }[] = [];

  const entity = (e: Omit<PlannedEntity, "ref">): PlannedEntity => {
    if (byPath.has(e.path)) throw new Error(`demo tree: duplicate path ${e.path}`);
    const planned = { ...e, ref: uuidFrom(`demo:${e.path}`) };
    byPath.set(e.path, planned);
    byRefMap.set(planned.ref, planned);
    return planned;
  };

  for (const root of DEMO_ROOTS) {
    let day = 0;
    let current = newIngest(root, day);
    events.push(current);
    // Entities appear seven seconds apart as the ingest workflow runs; the event is dated when it
    // finishes (see below), so no entity is acted on before it exists.
    const stamp = () => addSeconds(current.date, current.actions.length * 7);
    const record = (e: PlannedEntity) =>
      current.actions.push({ entityRef: e.ref, commandType: "command_create" });

    const visitFolder = (node: FolderNode, parent: PlannedEntity | null, tag: Tag) => {
      // Each series of assets is its own ingest, a day after the previous one of the same fonds.
      const holdsAssets = node.children.some((c) => c.kind === "asset");
      if (holdsAssets && current.actions.some((a) => byRef(a.entityRef)?.type === "IO")) {
        current = newIngest(root, ++day);
        events.push(current);
      }
      const path = parent ? `${parent.path}/${node.title}` : node.title;
      const so = entity({
        type: "SO",
        title: node.title,
        description: node.description,
        tag: node.tag ?? tag,
        parentRef: parent?.ref ?? null,
        created: stamp(),
        path,
      });
      record(so);
      if (node.key) refs[node.key] = so.ref;
      const fragments: PlannedFragment[] = [];
      if (node.dc) {
        fragments.push({
          mref: uuidFrom(`demo:fragment:${path}:dc`),
          schema: OAI_DC_SCHEMA,
          date: so.created,
          content: dcDocument({
            title: node.title,
            creator: [node.dc.creator],
            subject: node.dc.subjects,
            description: node.description,
            publisher: PUBLISHER,
            date: node.dc.date,
            type: "Collection",
            identifier: [node.code],
            language: "en",
            rights: rightsStatement(so.tag),
          }),
        });
      }
      if (node.accession) {
        fragments.push({
          mref: uuidFrom(`demo:fragment:${path}:accession`),
          schema: ACCESSION_SCHEMA,
          date: so.created,
          content: accessionDocument(node.accession),
        });
      }
      const identifiers = [
        { apiId: apiIdFrom(`demo:identifier:${path}:code`), type: "code", value: node.code },
      ];
      items.push({ kind: "folder", entity: so, node, fragments, identifiers });
      for (const child of node.children) {
        if (child.kind === "folder") visitFolder(child, so, so.tag);
        else visitAsset(child, so);
      }
    };

    const visitAsset = (node: AssetNode, parent: PlannedEntity) => {
      const path = `${parent.path}/${node.title}`;
      const io = entity({
        type: "IO",
        title: node.title,
        description: node.description,
        tag: node.tag ?? parent.tag,
        parentRef: parent.ref,
        created: stamp(),
        path,
      });
      record(io);
      if (node.key) refs[node.key] = io.ref;
      const cos: PlannedCo[] = [];
      const reps: ["Preservation" | "Access", FileSpec[]][] = [
        ["Preservation", node.files],
        ["Access", node.access ?? []],
      ];
      for (const [representation, files] of reps) {
        files.forEach((file, i) => {
          const co = entity({
            type: "CO",
            title: file.filename,
            description: `${representation === "Preservation" ? "Preservation master" : "Access copy"} of ${node.title} (${FORMATS[file.format].formatName})`,
            tag: io.tag,
            parentRef: io.ref,
            created: stamp(),
            path: `${path}/${representation}/${i + 1}`,
          });
          record(co);
          cos.push({ entity: co, representation, file });
        });
      }
      const fragments: PlannedFragment[] = [];
      const first = node.files[0];
      if (node.dc !== false && first) {
        fragments.push({
          mref: uuidFrom(`demo:fragment:${path}:dc`),
          schema: OAI_DC_SCHEMA,
          date: io.created,
          content: dcDocument({
            title: node.title,
            creator: [node.creator],
            subject: node.subjects,
            description: node.description,
            publisher: PUBLISHER,
            date: node.date,
            type: DC_TYPE[first.format],
            format: FORMATS[first.format].mimeType,
            identifier: [node.code, ...(node.identifiers ?? []).map(([, v]) => v)],
            language: "en",
            rights: rightsStatement(io.tag),
          }),
        });
      }
      if (node.accession) {
        // Accession records were added in one later metadata pass (a Modified event).
        fragments.push({
          mref: uuidFrom(`demo:fragment:${path}:accession`),
          schema: ACCESSION_SCHEMA,
          date: LATER.accessionRecords,
          content: accessionDocument(node.accession),
        });
      }
      const identifiers: PlannedId[] = [
        { apiId: apiIdFrom(`demo:identifier:${path}:code`), type: "code", value: node.code },
      ];
      const item: PlannedItem = { kind: "asset", entity: io, node, fragments, identifiers, cos };
      for (const [type, value] of node.identifiers ?? []) {
        const id = { apiId: apiIdFrom(`demo:identifier:${path}:${type}`), type, value };
        identifiers.push(id);
        if (type === "isbn") laterIds.push({ item, id });
      }
      for (const l of node.links ?? []) pendingLinks.push({ from: io, type: l.type, to: l.to });
      items.push(item);
    };

    visitFolder(root.folder, null, root.folder.tag ?? "open");
  }

  function byRef(ref: string): PlannedEntity | undefined {
    return byRefMap.get(ref);
  }

  function newIngest(root: RootDef, day: number): PlannedEvent {
    return {
      ref: uuidFrom(`demo:event:ingest:${root.folder.code}:${day}`),
      type: "Ingest",
      date: addDays(root.ingested, day),
      user: root.ingestedBy,
      workflowName: "Ingest Harbour Town Archives (XIP)",
      actions: [],
    };
  }

  for (const ingest of events) ingest.date = addSeconds(ingest.date, ingest.actions.length * 7);

  const allRefs = refs as Record<DemoKey, string>;
  const links: PlannedLink[] = pendingLinks.map((l) => {
    const to = allRefs[l.to];
    if (!to) throw new Error(`demo tree: link to unknown key ${l.to}`);
    return {
      apiId: apiIdFrom(`demo:link:${l.from.path}:${l.type}:${l.to}`),
      type: l.type,
      from: l.from.ref,
      to,
    };
  });

  const entities = items.flatMap((i) => [
    i.entity,
    ...(i.kind === "asset" ? i.cos.map((c) => c.entity) : []),
  ]);
  const cosBefore = (date: string) => entities.filter((e) => e.type === "CO" && e.created < date);

  // Characterisation runs half an hour after each ingest, over the content objects it created.
  for (const ingest of events.filter((e) => e.type === "Ingest")) {
    const coRefs = ingest.actions.filter((a) => byRef(a.entityRef)?.type === "CO").map((a) => a.entityRef);
    if (coRefs.length === 0) continue;
    events.push({
      ref: uuidFrom(`demo:event:characterise:${ingest.ref}`),
      type: "Characterise",
      date: addSeconds(ingest.date, 1800),
      user: ingest.user,
      workflowName: "Characterise content",
      actions: coRefs.map((entityRef) => ({ entityRef, commandType: "command_characterise" })),
    });
  }

  // Scheduled integrity checks over everything held at the time.
  for (const date of LATER.integrityChecks) {
    events.push({
      ref: uuidFrom(`demo:event:integrity:${date}`),
      type: "IntegrityCheck",
      date,
      user: "manager",
      workflowName: "Scheduled integrity check",
      actions: cosBefore(date).map((e) => ({ entityRef: e.ref, commandType: "command_integrity_check" })),
    });
  }

  const modifiedEvent = (
    key: string,
    date: string,
    user: "manager" | "curator",
    actions: PlannedEvent["actions"],
  ) => {
    events.push({
      ref: uuidFrom(`demo:event:modified:${key}`),
      type: "Modified",
      date,
      user,
      workflowName: null,
      actions,
    });
    for (const a of actions) modified.set(a.entityRef, date);
  };
  const withAccession = items.filter((i) => i.kind === "asset" && i.node.accession);
  modifiedEvent(
    "accession",
    LATER.accessionRecords,
    "curator",
    withAccession.map((i) => ({ entityRef: i.entity.ref, commandType: "AddMetadata" })),
  );
  modifiedEvent(
    "isbn",
    LATER.isbnIdentifiers,
    "curator",
    laterIds.map(({ item }) => ({ entityRef: item.entity.ref, commandType: "AddIdentifier" })),
  );
  modifiedEvent(
    "links",
    LATER.links,
    "curator",
    links.map((l) => ({ entityRef: l.from, commandType: "AddLink" })),
  );

  events.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));

  for (const key of DEMO_KEYS) if (!allRefs[key]) throw new Error(`demo tree: no node has key ${key}`);
  return { items, links, events, modified, refs: allRefs };
}

/** Every DemoKey, so a key the tree forgets is caught when the module loads. */
const DEMO_KEYS: readonly DemoKey[] = [
  "councilMinutesSeries",
  "councilMinutes1851",
  "councilMinutes1866Confidential",
  "harbourBoardMinutes1851",
  "harbourMasterJournal1852",
  "rateBook1861North",
  "byeLaw1858",
  "southDockReport1862",
  "mapNorthQuay1850",
  "mapNorthQuay1856",
  "planSouthDock1862",
  "photographs",
  "photoNorthQuay1890",
  "photoHerringFleet1905",
  "interviewDoyle",
  "staffRecords",
  "personnelKettering",
  "staffRegister1905",
  "closedCorrespondence",
  "letterAdmiralty1869",
  "historyOfHarbourTown",
];

const PLAN = planDemo();

function allEntities(plan: DemoPlan): PlannedEntity[] {
  return plan.items.flatMap((i) => [i.entity, ...(i.kind === "asset" ? i.cos.map((c) => c.entity) : [])]);
}

function countBy<T extends string>(values: readonly T[], keys: readonly T[]): Record<T, number> {
  const out = Object.fromEntries(keys.map((k) => [k, 0])) as Record<T, number>;
  for (const v of values) out[v] += 1;
  return out;
}

const ENTITIES = allEntities(PLAN);
const ASSETS = PLAN.items.filter((i) => i.kind === "asset");

/** The operations history (past ingests, an export, a failed ingest, a CSV edit, report runs). */
const OPERATIONS = planOperations({
  entities: ENTITIES,
  events: PLAN.events,
  filenames: new Map(ASSETS.flatMap((a) => a.cos.map((c) => [c.entity.ref, c.file.filename] as const))),
  accessions: ASSETS.flatMap((a) =>
    a.node.accession ? [{ ref: a.entity.ref, path: a.entity.path, record: { ...a.node.accession } }] : [],
  ),
  accessionEventRef: uuidFrom("demo:event:modified:accession"),
  photographsRef: PLAN.refs.photographs,
});

/**
 * Facts about the demo collection that tests and documentation can rely on. Everything here is
 * derived from the plan the seed writes, so it cannot drift from what a fresh store holds.
 */
export const DEMO = {
  /** The fonds at the top of the hierarchy, in display order. */
  rootFolders: PLAN.items
    .filter((i) => i.kind === "folder" && i.entity.parentRef === null)
    .map((i) => ({ ref: i.entity.ref, title: i.entity.title, securityTag: i.entity.tag })),
  refs: {
    ...PLAN.refs,
    /** Named by what they hold: one open asset per file format, and one per restrictive tag. */
    pdfAsset: PLAN.refs.councilMinutes1851,
    pngAsset: PLAN.refs.photoNorthQuay1890,
    textAsset: PLAN.refs.harbourMasterJournal1852,
    csvAsset: PLAN.refs.rateBook1861North,
    xmlAsset: PLAN.refs.byeLaw1858,
    wavAsset: PLAN.refs.interviewDoyle,
    closedAsset: PLAN.refs.letterAdmiralty1869,
    staffAsset: PLAN.refs.personnelKettering,
  },
  counts: {
    total: ENTITIES.length,
    byType: countBy(
      ENTITIES.map((e) => e.type),
      ["SO", "IO", "CO"],
    ),
    byTag: countBy<Tag>(
      ENTITIES.map((e) => e.tag),
      ["open", "closed", "staff"],
    ),
    fragments: PLAN.items.reduce((n, i) => n + i.fragments.length, 0),
    identifiers: PLAN.items.reduce((n, i) => n + i.identifiers.length, 0),
    links: PLAN.links.length,
    events: PLAN.events.length,
    representations: ASSETS.reduce((n, a) => n + new Set(a.cos.map((c) => c.representation)).size, 0),
    bitstreams: ASSETS.reduce((n, a) => n + a.cos.length, 0),
  },
  /** Every entity in insertion order (refs, titles, tags, parents and creation dates). */
  entities: ENTITIES.map((e) => ({
    ref: e.ref,
    type: e.type,
    title: e.title,
    securityTag: e.tag,
    parentRef: e.parentRef,
    created: e.created,
  })),
  /**
   * The operations history seeded with the collection (actions only: no entity or event of its own):
   * completed ingests of the first two fonds, the metadata CSV edit of the accession records, an export,
   * a FAILED ingest with its file-level errors, and two report runs whose result files are written at
   * seed time (under `<dataDir>/reports/` when the service seeds its data directory).
   */
  operations: OPERATIONS.facts,
} as const;

/**
 * Writes the demo collection into an empty store, in one transaction; with `dataDir`, the result files
 * of the seeded report runs go under it (without, the runs are recorded and their files left out).
 */
export function seedDemo(db: Db, content: ContentStore, opts: { dataDir?: string } = {}): void {
  db.transaction(() => {
    for (const item of PLAN.items) {
      const e = item.entity;
      insertEntity(db, {
        ref: e.ref,
        type: e.type,
        title: e.title,
        description: e.description,
        securityTag: e.tag,
        parentRef: e.parentRef,
        created: e.created,
      });
      for (const f of item.fragments)
        addFragment(db, e.ref, f.schema, f.content, { mref: f.mref, date: f.date });
      for (const id of item.identifiers) addIdentifier(db, e.ref, id.type, id.value, id.apiId);
      if (item.kind === "asset") writeContent(db, content, item.entity.ref, item.cos);
    }
    for (const l of PLAN.links) addLink(db, l.type, l.from, l.to, l.apiId);
    for (const ev of PLAN.events) {
      addEvent(db, {
        ref: ev.ref,
        type: ev.type,
        date: ev.date,
        username: ev.user,
        workflowName: ev.workflowName,
        workflowInstanceId: ev.workflowName ? String(workflowIdOf(ev)) : null,
        actions: ev.actions,
      });
    }
    const touch = db.prepare("UPDATE entities SET modified = ? WHERE ref = ?");
    for (const [ref, date] of PLAN.modified) touch.run(date, ref);
    writeOperations(db, opts.dataDir ?? null, OPERATIONS);
    seedSettings(db, PLAN.refs);
    seedStorage(db);
    seedAdminDemo(db);
    seedRetention(db);
    seedMetadataGroups(db);
    // Every file's words were indexed above: a search has nothing to catch up (and writes nothing).
    markFileTextIndexed(db);
  })();
}

/** A stable workflow instance number per event (its position in date order, from 1001). */
function workflowIdOf(ev: PlannedEvent): number {
  return 1001 + PLAN.events.indexOf(ev);
}

function writeContent(db: Db, content: ContentStore, ioRef: string, cos: PlannedCo[]): void {
  const texts: string[] = [];
  for (const co of cos) {
    insertEntity(db, {
      ref: co.entity.ref,
      type: "CO",
      title: co.entity.title,
      description: co.entity.description,
      securityTag: co.entity.tag,
      parentRef: ioRef,
      created: co.entity.created,
    });
    const fmt = FORMATS[co.file.format];
    const generationId = addGeneration(db, co.entity.ref, {
      original: true,
      active: true,
      label: co.file.filename,
      formatGroup: fmt.formatGroup,
      effectiveDate: co.entity.created,
      formatPuid: fmt.puid,
      formatName: fmt.formatName,
      formatVersion: fmt.formatVersion,
    });
    const bytes = co.file.bytes();
    addBitstream(db, generationId, {
      filename: co.file.filename,
      mimeType: fmt.mimeType,
      blob: content.put(bytes),
    });
    texts.push(textOfFile(bytes, co.file.filename, fmt.mimeType));
  }
  // The words inside the asset's text files, as search's catch-up would index them (search/file-text.ts).
  storeFileText(db, ioRef, joinFileTexts(texts));
  for (const type of ["Preservation", "Access"] as const) {
    const refs = cos.filter((c) => c.representation === type).map((c) => c.entity.ref);
    if (refs.length > 0) addRepresentation(db, ioRef, type, null, refs);
  }
}
