import type { RunningRepository } from "../../repository/server.js";
import type { EntityRow } from "../../repository/store/entities/types.js";
import {
  addBitstream,
  addEvent,
  addFragment,
  addGeneration,
  addIdentifier,
  addRepresentation,
  insertEntity,
  type NewEntity,
} from "../../repository/store/entities/write.js";
import { startTestRepository } from "../helpers/repository.js";

/**
 * A small archive for the Content API tests, built with the store helpers on an empty repository:
 *
 *   Maps and plans (open)                 Letters (open)                       Staff records (staff)
 *   ├─ Coastal charts (open)              ├─ Letter to the harbour master      └─ Staff handbook (staff)
 *   │  ├─ Harbour chart of 1850 (open)    ├─ Private letter (closed)
 *   │  └─ Lighthouse sketch (open)        └─ Harbour plan (withdrawn), deleted  └─ Open notice (open)
 *   └─ Estate map (closed)
 *
 * The reader (access role) sees the open entities only; the manager sees everything not deleted.
 */

export const OAI_DC = "http://www.openarchives.org/OAI/2.0/oai_dc/";
export const DC = "http://purl.org/dc/elements/1.1/";

/** An oai_dc document with the usual prefixes. */
export function oaiDc(elements: [string, string][]): string {
  const body = elements.map(([name, value]) => `<dc:${name}>${value}</dc:${name}>`).join("");
  return `<oai_dc:dc xmlns:oai_dc="${OAI_DC}" xmlns:dc="${DC}">${body}</oai_dc:dc>`;
}

/** A PNG signature followed by filler: enough for content-type checks and byte comparisons. */
export const CHART_PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from("chart access copy ".repeat(20)),
]);
export const CHART_TIFF = Buffer.from("II*\u0000 chart preservation master ".repeat(10));
export const LETTER_TEXT = "Dear harbour master, the tolls are too high. Yours, Ann Other.";

export interface ContentFixture {
  repo: RunningRepository;
  maps: EntityRow;
  charts: EntityRow;
  chart: EntityRow;
  sketch: EntityRow;
  estate: EntityRow;
  letters: EntityRow;
  letter: EntityRow;
  secret: EntityRow;
  staff: EntityRow;
  handbook: EntityRow;
  notice: EntityRow;
  withdrawn: EntityRow;
  chartCos: EntityRow[];
}

export async function startContentFixture(): Promise<ContentFixture> {
  const repo = await startTestRepository();
  const { db, content } = repo.svc;
  const add = (e: NewEntity) => insertEntity(db, e);

  const maps = add({
    type: "SO",
    title: "Maps and plans",
    securityTag: "open",
    created: "2019-05-01T10:00:00.000Z",
  });
  const charts = add({
    type: "SO",
    title: "Coastal charts",
    description: "Charts of the coast",
    securityTag: "open",
    parentRef: maps.ref,
    created: "2019-05-01T11:00:00.000Z",
  });
  const chart = add({
    type: "IO",
    title: "Harbour chart of 1850",
    description: "Survey of the harbour entrance",
    securityTag: "open",
    parentRef: charts.ref,
    created: "2020-03-01T09:00:00.000Z",
  });
  const sketch = add({
    type: "IO",
    title: "Lighthouse sketch",
    description: "Pencil drawing of the north light",
    securityTag: "open",
    parentRef: charts.ref,
    created: "2021-06-15T12:00:00.000Z",
  });
  const estate = add({
    type: "IO",
    title: "Estate map",
    description: "Map of the Pennington estate",
    securityTag: "closed",
    parentRef: maps.ref,
    created: "2019-01-01T08:00:00.000Z",
  });
  const letters = add({
    type: "SO",
    title: "Letters",
    securityTag: "open",
    created: "2019-05-02T10:00:00.000Z",
  });
  const letter = add({
    type: "IO",
    title: "Letter to the harbour master",
    description: "Complaint about tolls",
    securityTag: "open",
    parentRef: letters.ref,
    created: "2022-01-10T10:00:00.000Z",
  });
  const secret = add({
    type: "IO",
    title: "Private letter",
    description: "About the harbour defences",
    securityTag: "closed",
    parentRef: letters.ref,
    created: "2022-02-01T10:00:00.000Z",
  });
  const withdrawn = add({
    type: "IO",
    title: "Harbour plan (withdrawn)",
    securityTag: "open",
    parentRef: letters.ref,
    created: "2022-03-01T10:00:00.000Z",
  });
  db.prepare("UPDATE entities SET deleted = 1 WHERE ref = ?").run(withdrawn.ref);
  const staff = add({
    type: "SO",
    title: "Staff records",
    securityTag: "staff",
    created: "2019-05-03T10:00:00.000Z",
  });
  const handbook = add({
    type: "IO",
    title: "Staff handbook",
    securityTag: "staff",
    parentRef: staff.ref,
    created: "2019-06-01T10:00:00.000Z",
  });

  // Open, in a folder the reader may not see.
  const notice = add({
    type: "IO",
    title: "Open notice",
    securityTag: "open",
    parentRef: staff.ref,
    created: "2018-01-01T10:00:00.000Z",
  });

  addFragment(
    db,
    chart.ref,
    OAI_DC,
    oaiDc([
      ["title", "Harbour chart"],
      ["creator", "Admiralty Hydrographic Office"],
      ["subject", "harbours"],
      ["subject", "navigation"],
      ["date", "1850"],
    ]),
  );
  // A default-namespace Dublin Core document: found by namespace, not by prefix.
  addFragment(
    db,
    sketch.ref,
    DC,
    `<dc xmlns="${DC}"><creator>J. Smith</creator><subject>lighthouses</subject></dc>`,
  );
  addFragment(
    db,
    estate.ref,
    OAI_DC,
    oaiDc([
      ["creator", "Admiralty Hydrographic Office"],
      ["subject", "estates"],
    ]),
  );
  addFragment(
    db,
    letter.ref,
    OAI_DC,
    oaiDc([
      ["creator", "Ann Other"],
      ["subject", "harbours"],
    ]),
  );
  addFragment(
    db,
    letter.ref,
    "http://example.org/accession/v1",
    `<accession xmlns="http://example.org/accession/v1"><number>ACC-7</number><donor>Parish</donor></accession>`,
  );
  addFragment(db, secret.ref, OAI_DC, oaiDc([["subject", "defence"]]));
  addIdentifier(db, chart.ref, "code", "MAP-0001");
  addIdentifier(db, sketch.ref, "code", "MAP-0002");
  addEvent(db, {
    type: "Ingest",
    username: "manager",
    actions: [{ entityRef: chart.ref, commandType: "AddInformationObject" }],
  });

  // The chart: a TIFF preservation master and a PNG access copy; the letter: a text file.
  const fileObject = (
    io: EntityRow,
    rep: "Preservation" | "Access",
    filename: string,
    mimeType: string,
    bytes: Buffer,
  ) => {
    const co = add({ type: "CO", title: filename, securityTag: io.security_tag, parentRef: io.ref });
    addRepresentation(db, io.ref, rep, rep, [co.ref]);
    const gen = addGeneration(db, co.ref, { formatGroup: mimeType.startsWith("image/") ? "Image" : "Text" });
    addBitstream(db, gen, { filename, mimeType, blob: content.put(bytes) });
    return co;
  };
  const chartCos = [
    fileObject(chart, "Preservation", "chart.tif", "image/tiff", CHART_TIFF),
    fileObject(chart, "Access", "chart.png", "image/png", CHART_PNG),
  ];
  fileObject(letter, "Preservation", "letter.txt", "text/plain", Buffer.from(LETTER_TEXT));

  return {
    repo,
    maps,
    charts,
    chart,
    sketch,
    estate,
    letters,
    letter,
    secret,
    staff,
    handbook,
    notice,
    withdrawn,
    chartCos,
  };
}

/** `sdb:TYPE|ref` of an entity, as the Content API names it. */
export function objectId(e: EntityRow): string {
  return `sdb:${e.type}|${e.ref}`;
}
