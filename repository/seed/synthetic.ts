import { markFileTextIndexed, textOfFile } from "../search/file-text.js";
import type { ContentStore, StoredBlob } from "../store/content-store.js";
import type { Db } from "../store/db.js";
import { csvFile, FORMATS, pdfFile, pictureFile, textFile, xmlFile } from "./files.js";
import { apiIdFrom, Prng, uuidFrom } from "./ids.js";
import { dcDocument, dcValues, fragmentText, OAI_DC_SCHEMA } from "./metadata.js";

/**
 * `n` entities in the shape of a real repository, for benchmarks: root folders, series and files
 * (assets at depth 3-5), leaf folders of 50-200 assets, each asset (IO) with one Preservation
 * representation holding one content object (CO), a Dublin Core fragment and a `code` identifier;
 * about one folder in ten is `closed` and one in thirty `staff`. Deterministic: the same n gives the
 * same store. Built for speed: prepared statements, one transaction, a handful of shared blobs (the
 * content store is content-addressed, so a blob is written once), no per-row reindexing.
 */

const DOC_TYPES = [
  "Minutes",
  "Letter",
  "Report",
  "Survey",
  "Register",
  "Ledger",
  "Plan",
  "Photograph",
  "Deed",
  "Notice",
  "Petition",
  "Account book",
  "Map",
  "Inventory",
  "Diary",
];
const SUBJECTS = [
  "harbour",
  "quay",
  "lighthouse",
  "railway",
  "market",
  "school",
  "church",
  "customs",
  "fishery",
  "warehouse",
  "bridge",
  "tramway",
  "library",
  "baths",
  "cemetery",
  "police",
  "waterworks",
  "gasworks",
  "shipyard",
  "lifeboat",
];
const PLACES = [
  "North Ward",
  "South Ward",
  "Fore Street",
  "Chapel Hill",
  "the Esplanade",
  "Water Lane",
  "Market Square",
  "the South Dock",
];
const CREATORS = [
  "Borough Council",
  "Harbour Board",
  "School Board",
  "Parish Vestry",
  "Gas Company",
  "Railway Company",
];

/** Share of assets per format: documents and images dominate, as in most archives. */
const FORMAT_MIX = ["pdf", "pdf", "pdf", "pdf", "png", "png", "png", "txt", "csv", "xml"] as const;
type MixFormat = (typeof FORMAT_MIX)[number];

const START = Date.parse("2023-01-02T08:00:00.000Z");
const SPAN_MS = Date.parse("2026-06-30T18:00:00.000Z") - START;

interface SampleBlob extends StoredBlob {
  /** The words search indexes from the file (search/file-text.ts); "" for PDF and images. */
  text: string;
}

function sampleBlobs(content: ContentStore): Record<MixFormat, SampleBlob> {
  const text = "Synthetic record generated for benchmarking the repository service.";
  const bytes: Record<MixFormat, Buffer> = {
    txt: textFile(text),
    csv: csvFile([
      ["item", "value"],
      ["a", 1],
      ["b", 2],
    ]),
    xml: xmlFile("record", "http://harbourtown.example.org/schema/synthetic/v1", [["note", text]]),
    pdf: pdfFile({
      title: "Synthetic record",
      author: "Benchmark",
      date: "2023-01-01T00:00:00Z",
      lines: [text],
    }),
    png: pictureFile("photo", 7, 32, 24),
  };
  const blob = (format: MixFormat): SampleBlob => {
    const f = FORMATS[format];
    const b = bytes[format];
    // The same words ensureFileText would index for a file of this name and type.
    return { ...content.put(b), text: textOfFile(b, `x.${f.extension}`, f.mimeType) };
  };
  return { txt: blob("txt"), csv: blob("csv"), xml: blob("xml"), pdf: blob("pdf"), png: blob("png") };
}

/** `n` entities (SO + IO + CO together) in a realistic shape, written in one transaction. */
export function seedSynthetic(db: Db, content: ContentStore, n: number): void {
  if (!Number.isInteger(n) || n < 0)
    throw new Error(`synthetic seed size must be a whole number >= 0, got ${n}`);
  const blobs = sampleBlobs(content);
  const s = {
    entity: db.prepare(
      `INSERT INTO entities (ref, type, title, description, security_tag, parent_ref, created, modified)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    fts: db.prepare(
      "INSERT INTO entity_fts (rowid, title, description, metadata, file_text) VALUES (?, ?, ?, ?, ?)",
    ),
    fragment: db.prepare(
      "INSERT INTO metadata_fragments (mref, entity_ref, schema_uri, content, created, modified) VALUES (?, ?, ?, ?, ?, ?)",
    ),
    // What reindexEntity's indexDublinCore would derive from the fragment, written directly.
    dcValue: db.prepare(
      "INSERT INTO entity_dc_values (entity_ref, name, value, position) VALUES (?, ?, ?, ?)",
    ),
    identifier: db.prepare(
      "INSERT INTO identifiers (api_id, entity_ref, type, value) VALUES (?, ?, 'code', ?)",
    ),
    representation: db.prepare(
      "INSERT INTO representations (io_ref, type, name, idx) VALUES (?, 'Preservation', 'Preservation', 1)",
    ),
    repObject: db.prepare(
      "INSERT INTO representation_objects (representation_id, co_ref, position) VALUES (?, ?, 1)",
    ),
    generation: db.prepare(
      `INSERT INTO generations (co_ref, idx, original, active, label, format_group, effective_date, format_puid, format_name, format_version)
       VALUES (?, 1, 1, 1, ?, ?, ?, ?, ?, ?)`,
    ),
    bitstream: db.prepare(
      `INSERT INTO bitstreams (generation_id, idx, filename, original_name, size, mime_type, content_sha256)
       VALUES (?, 1, ?, ?, ?, ?, ?)`,
    ),
    fixity: db.prepare("INSERT INTO fixities (bitstream_id, algorithm, value) VALUES (?, ?, ?)"),
    event: db.prepare(
      "INSERT INTO events (ref, type, date, username, workflow_name, workflow_instance_id) VALUES (?, 'Ingest', ?, ?, ?, ?)",
    ),
    action: db.prepare(
      "INSERT INTO event_actions (event_id, entity_ref, command_type, date, serialised_command) VALUES (?, ?, 'command_create', ?, NULL)",
    ),
  };

  const rng = new Prng("synthetic");
  const step = n > 0 ? SPAN_MS / n : 0;
  let made = 0; // entities written so far
  let left = n;
  let eventId = 0;
  let eventStart = START;
  let eventSeconds = 0;
  let events = 0;

  const beginIngest = () => {
    events += 1;
    eventStart = START + Math.floor((made * step) / 1000) * 1000;
    eventSeconds = 0;
    const date = new Date(eventStart).toISOString();
    eventId = Number(
      s.event.run(
        uuidFrom(`synthetic:event:${events}`),
        date,
        events % 3 === 0 ? "manager" : "curator",
        "Bulk ingest (synthetic)",
        String(100000 + events),
      ).lastInsertRowid,
    );
  };

  const write = (
    ref: string,
    type: "SO" | "IO" | "CO",
    title: string,
    description: string | null,
    tag: string,
    parent: string | null,
    metadata = "",
    fileText = "",
  ): string => {
    const created = new Date(eventStart + eventSeconds++ * 1000).toISOString();
    const id = s.entity.run(ref, type, title, description, tag, parent, created, created).lastInsertRowid;
    s.fts.run(id, title, description ?? "", metadata, fileText);
    s.action.run(eventId, ref, created);
    made += 1;
    left -= 1;
    return created;
  };

  const writeAsset = (parentRef: string, parentCode: string, tag: string, index: number) => {
    const doc = rng.pick(DOC_TYPES);
    const subject = rng.pick(SUBJECTS);
    const place = rng.pick(PLACES);
    const year = rng.int(1800, 1990);
    const creator = rng.pick(CREATORS);
    const format = rng.pick(FORMAT_MIX);
    const assetTag = tag === "open" && rng.chance(0.02) ? "closed" : tag;
    const title = `${doc} concerning the ${subject}, ${place} ${year} (item ${index})`;
    const description = `${doc} from the ${creator} records about the ${subject} in ${place}, dated ${year}.`;
    const code = `${parentCode}/${index}`;
    const ioRef = uuidFrom(`synthetic:${made}`);
    const dcRecord = {
      title,
      creator: [creator],
      subject: [subject, place],
      description,
      date: String(year),
      type: format === "png" ? "StillImage" : format === "csv" ? "Dataset" : "Text",
      format: FORMATS[format].mimeType,
      identifier: [code],
      rights: assetTag === "open" ? "Open" : "Closed",
    };
    const dc = dcDocument(dcRecord);
    const created = write(
      ioRef,
      "IO",
      title,
      description,
      assetTag,
      parentRef,
      fragmentText(dc),
      blobs[format].text,
    );
    s.fragment.run(uuidFrom(`synthetic:fragment:${ioRef}`), ioRef, OAI_DC_SCHEMA, dc, created, created);
    dcValues(dcRecord).forEach((v, i) => {
      s.dcValue.run(ioRef, v.name, v.value, i);
    });
    s.identifier.run(apiIdFrom(`synthetic:identifier:${ioRef}`), ioRef, code);

    const fmt = FORMATS[format];
    const filename = `item-${String(index).padStart(4, "0")}-${made}.${fmt.extension}`;
    const coRef = uuidFrom(`synthetic:${made}`);
    const coCreated = write(coRef, "CO", filename, null, assetTag, ioRef);
    const repId = s.representation.run(ioRef).lastInsertRowid;
    s.repObject.run(repId, coRef);
    const genId = s.generation.run(
      coRef,
      filename,
      fmt.formatGroup,
      coCreated,
      fmt.puid,
      fmt.formatName,
      fmt.formatVersion,
    ).lastInsertRowid;
    const blob = blobs[format];
    const bsId = s.bitstream.run(
      genId,
      filename,
      filename,
      blob.size,
      fmt.mimeType,
      blob.sha256,
    ).lastInsertRowid;
    for (const [alg, value] of Object.entries(blob.fixity)) s.fixity.run(bsId, alg, value);
  };

  const writeFolder = (
    parent: { ref: string; code: string; tag: string } | null,
    depth: number,
    leafDepth: number,
    index: number,
  ) => {
    const isLeaf = depth >= leafDepth;
    if (parent === null || isLeaf) beginIngest();
    let tag = parent?.tag ?? "open";
    if (isLeaf && tag === "open") tag = rng.chance(0.1) ? "closed" : rng.chance(0.035) ? "staff" : "open";
    const subject = rng.pick(SUBJECTS);
    const code = parent ? `${parent.code}/${index}` : `SYN/${index}`;
    const title = parent
      ? isLeaf
        ? `File ${index}: ${subject} ${rng.pick(DOC_TYPES).toLowerCase()} ${rng.int(1800, 1980)}s`
        : `Series ${index}: ${subject} records`
      : `Synthetic fonds ${index}: ${rng.pick(CREATORS)}`;
    const ref = uuidFrom(`synthetic:${made}`);
    write(
      ref,
      "SO",
      title,
      `Synthetic ${isLeaf ? "file" : parent ? "series" : "fonds"} ${code} for benchmarks.`,
      tag,
      parent?.ref ?? null,
    );
    s.identifier.run(apiIdFrom(`synthetic:identifier:${ref}`), ref, code);
    const me = { ref, code, tag };
    if (isLeaf) {
      const assets = rng.int(50, 200);
      for (let i = 1; i <= assets && left >= 2; i++) writeAsset(ref, code, tag, i);
      return;
    }
    const children = rng.int(3, depth === 1 ? 8 : 10);
    for (let i = 1; i <= children && left > 0; i++) {
      writeFolder(me, depth + 1, depth === 1 ? rng.int(2, 4) : leafDepth, i);
    }
  };

  db.transaction(() => {
    for (let root = 1; left > 0; root++) writeFolder(null, 1, 2, root);
    // file_text was written above: nothing for search's catch-up to do.
    markFileTextIndexed(db);
  })();
}
