import { csvFile, type FormatKey, pdfFile, pictureFile, textFile, wavFile, wrap, xmlFile } from "./files.js";
import { Prng } from "./ids.js";
import type { Accession } from "./metadata.js";
import { LinkType } from "./metadata.js";

/**
 * The demo collection as data: the Harbour Town Archives, a fictional local archive with fonds,
 * series and files. `seed/demo.ts` turns this tree into refs, dates and events; nothing here touches
 * the database. Generators below keep repetitive series (minutes by year, registers) short.
 */

export type Tag = "open" | "closed" | "staff";

/** Assets and folders tests can find by name (DEMO.refs). */
export type DemoKey =
  | "councilMinutesSeries"
  | "councilMinutes1851"
  | "councilMinutes1866Confidential"
  | "harbourBoardMinutes1851"
  | "harbourMasterJournal1852"
  | "rateBook1861North"
  | "byeLaw1858"
  | "southDockReport1862"
  | "mapNorthQuay1850"
  | "mapNorthQuay1856"
  | "planSouthDock1862"
  | "photographs"
  | "photoNorthQuay1890"
  | "photoHerringFleet1905"
  | "interviewDoyle"
  | "staffRecords"
  | "personnelKettering"
  | "staffRegister1905"
  | "closedCorrespondence"
  | "letterAdmiralty1869"
  | "historyOfHarbourTown";

export interface FileSpec {
  filename: string;
  format: FormatKey;
  /** Built only when the demo is seeded, so planning (and DEMO) stays cheap. */
  bytes: () => Buffer;
}

export interface AssetNode {
  kind: "asset";
  key?: DemoKey;
  title: string;
  description: string;
  /** Reference code (identifier type `code`). */
  code: string;
  tag?: Tag;
  /** Preservation representation: one CO per file. */
  files: FileSpec[];
  /** Access representation, when the asset has one. */
  access?: FileSpec[];
  /** Date of the original record (Dublin Core date), e.g. "1851". */
  date: string;
  creator: string;
  subjects: string[];
  /** false: no Dublin Core fragment (a few assets were ingested without description). */
  dc?: boolean;
  accession?: Accession;
  identifiers?: [type: string, value: string][];
  links?: { type: LinkType; to: DemoKey }[];
}

export interface FolderNode {
  kind: "folder";
  key?: DemoKey;
  title: string;
  description: string;
  code: string;
  tag?: Tag;
  /** Root folders carry a Dublin Core fragment describing the fonds. */
  dc?: { creator: string; date: string; subjects: string[] };
  accession?: Accession;
  children: Node[];
}

export type Node = AssetNode | FolderNode;

/** A root folder (fonds) and when and by whom it was ingested. */
export interface RootDef {
  folder: FolderNode;
  ingested: string;
  ingestedBy: "manager" | "curator";
}

const ARCHIVE = "Harbour Town Archives";

// ---------------------------------------------------------------------------------------------
// Small helpers for file specs

function slug(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

function hashNum(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

function pdf(title: string, author: string, date: string, paragraphs: string[]): FileSpec {
  return {
    filename: `${slug(title)}.pdf`,
    format: "pdf",
    bytes: () =>
      pdfFile({
        title,
        author,
        date,
        lines: paragraphs.flatMap((p) => [...wrap(p, 88), ""]),
      }),
  };
}

function txt(filename: string, text: string): FileSpec {
  return { filename, format: "txt", bytes: () => textFile(text) };
}

function png(title: string, style: "photo" | "map" | "plan", size: "master" | "access"): FileSpec {
  const [w, h] = size === "master" ? [96, 72] : [48, 36];
  return {
    filename: `${slug(title)}${size === "access" ? "-access" : ""}.png`,
    format: "png",
    bytes: () => pictureFile(style, hashNum(title), w, h),
  };
}

function csv(filename: string, rows: () => (string | number)[][]): FileSpec {
  return { filename, format: "csv", bytes: () => csvFile(rows()) };
}

function rights(tag: Tag | undefined): string {
  if (tag === "closed") return "Closed: not available to the public for 100 years from the date of creation.";
  if (tag === "staff") return "Restricted to archive staff: contains personal data.";
  return "Open. Copyright Harbour Town Council; may be reproduced for private study with acknowledgement.";
}

export { rights as rightsStatement };

// ---------------------------------------------------------------------------------------------
// Harbour Town Council

const COUNCIL_TOPICS: Record<number, string> = {
  1850: "the paving of Fore Street and new gas lighting for the quays",
  1851: "the extension of the North Quay and an excursion to the Great Exhibition",
  1852: "precautions against cholera and the town water supply",
  1853: "the purchase of the Market House from the Tremayne estate",
  1854: "a relief fund for the families of soldiers in the Crimea",
  1855: "the building of the Corn Exchange",
  1856: "the new police station in Water Lane",
  1857: "the petition in support of the railway bill",
  1858: "the Harbour Town Improvement Act and new bye-laws",
  1859: "the formation of a volunteer rifle corps",
  1860: "the opening of the railway to Harbour Town",
  1861: "the census returns and a new cemetery on Chapel Hill",
  1862: "the South Dock scheme of the Harbour Board",
  1863: "a proposal for a free public library",
  1864: "the main sewerage works",
  1865: "regulations against the cattle plague",
  1866: "the Town Clerk's accounts, examined in confidential session",
  1867: "a lifeboat station on the Esplanade",
  1868: "public baths and wash-houses",
  1869: "a proposed horse tramway along the Esplanade",
};

function councilMinutes(year: number): AssetNode {
  const title = year === 1866 ? "Council minutes 1866 (confidential session)" : `Council minutes ${year}`;
  const topic = COUNCIL_TOPICS[year] ?? "the business of the borough";
  const description = `Bound minutes of the meetings of Harbour Town Borough Council for ${year}, recording resolutions on ${topic}.`;
  const paragraphs = [
    "HARBOUR TOWN BOROUGH COUNCIL",
    `Minutes of the proceedings of the Council for the year ${year}.`,
    `The Council met in the Guildhall. Resolved that the committee report on ${topic} be received and adopted.`,
    "Resolved that the Town Clerk write to the Harbour Board conveying the resolutions of this meeting.",
    "The accounts of the Borough Treasurer were examined and found correct.",
  ];
  const node: AssetNode = {
    kind: "asset",
    title,
    description,
    code: `HTA/HTC/1/${year < 1860 ? 1 : 2}/${year}`,
    files: [pdf(title, "Harbour Town Borough Council", `${year}-12-31T00:00:00Z`, paragraphs)],
    date: String(year),
    creator: "Harbour Town Borough Council",
    subjects: ["Local government", "Council minutes", "Harbour Town"],
  };
  if (year % 2 === 0) {
    node.access = [
      txt(`council-minutes-${year}-transcript.txt`, `Transcript: ${title}\n\n${paragraphs.join("\n\n")}`),
    ];
  }
  if (year === 1851) {
    node.key = "councilMinutes1851";
    node.links = [{ type: LinkType.REFERENCES, to: "mapNorthQuay1850" }];
  }
  if (year === 1866) {
    node.key = "councilMinutes1866Confidential";
    node.tag = "closed";
  }
  return node;
}

const SURNAMES = [
  "Pengelly",
  "Tremayne",
  "Kettering",
  "Doyle",
  "Rowe",
  "Hocking",
  "Vosper",
  "Trist",
  "Carne",
  "Jago",
  "Penrose",
  "Quiller",
  "Bolitho",
  "Hawke",
  "Nance",
];
const FORENAMES = [
  "John",
  "William",
  "Mary",
  "Elizabeth",
  "Thomas",
  "Ann",
  "Richard",
  "Jane",
  "James",
  "Grace",
];
const STREETS = ["Fore Street", "Water Lane", "Chapel Hill", "North Quay", "Market Square", "The Esplanade"];

function rateBook(year: number, ward: string, key?: DemoKey): AssetNode {
  const title = `Rate book ${year} ${ward} Ward`;
  return {
    kind: "asset",
    key,
    title,
    description: `Poor rate assessment for the ${ward} Ward of Harbour Town in ${year}: occupiers, owners, properties and rateable values.`,
    code: `HTA/HTC/2/${year}/${ward.charAt(0)}`,
    files: [
      csv(`rate-book-${year}-${slug(ward)}.csv`, () => {
        const r = new Prng(`rate:${year}:${ward}`);
        const rows: (string | number)[][] = [
          [
            "Assessment",
            "Occupier",
            "Owner",
            "Property",
            "Street",
            "Gross rental (GBP)",
            "Rateable value (GBP)",
          ],
        ];
        for (let i = 1; i <= 24; i++) {
          const gross = r.int(4, 60);
          rows.push([
            i,
            `${r.pick(FORENAMES)} ${r.pick(SURNAMES)}`,
            `${r.pick(FORENAMES)} ${r.pick(SURNAMES)}`,
            r.pick([
              "House and garden",
              "Shop and dwelling",
              "Cellar",
              "Net loft",
              "Warehouse",
              'Inn, "The Anchor"',
            ]),
            r.pick(STREETS),
            gross,
            Math.floor(gross * 0.8),
          ]);
        }
        return rows;
      }),
    ],
    date: String(year),
    creator: "Harbour Town Borough Council, Overseers of the Poor",
    subjects: ["Rates and taxation", "Property", ward],
  };
}

function byeLaw(title: string, year: number, clauses: string[], key?: DemoKey): AssetNode {
  const made = `${year}-05-04`;
  return {
    kind: "asset",
    key,
    title,
    description: `${title}, made by the Borough Council on 4 May ${year}; printed text and a structured transcription.`,
    code: `HTA/HTC/3/${year}`,
    files: [
      pdf(title, "Harbour Town Borough Council", `${made}T00:00:00Z`, clauses),
      {
        filename: `${slug(title)}.xml`,
        format: "xml",
        bytes: () =>
          xmlFile("byelaw", "http://harbourtown.example.org/schema/byelaw/v1", [
            ["title", title],
            ["made", made],
            ...clauses.map((c) => ["clause", c] as const),
          ]),
      },
    ],
    date: made,
    creator: "Harbour Town Borough Council",
    subjects: ["Bye-laws", "Local government"],
  };
}

const council: RootDef = {
  ingested: "2023-03-14T09:30:00.000Z",
  ingestedBy: "curator",
  folder: {
    kind: "folder",
    title: "Harbour Town Council",
    description: "Records of Harbour Town Borough Council, 1835-1974: minutes, rate books and bye-laws.",
    code: "HTA/HTC",
    dc: { creator: "Harbour Town Borough Council", date: "1835/1974", subjects: ["Local government"] },
    children: [
      {
        kind: "folder",
        key: "councilMinutesSeries",
        title: "Council Minutes",
        description: "Minutes of the full Council, bound by year.",
        code: "HTA/HTC/1",
        children: [
          {
            kind: "folder",
            title: "Council minutes 1850-1859",
            description: "Council minutes for the decade 1850-1859.",
            code: "HTA/HTC/1/1",
            children: range(1850, 1859).map(councilMinutes),
          },
          {
            kind: "folder",
            title: "Council minutes 1860-1869",
            description: "Council minutes for the decade 1860-1869, including one confidential session.",
            code: "HTA/HTC/1/2",
            children: range(1860, 1869).map(councilMinutes),
          },
        ],
      },
      {
        kind: "folder",
        title: "Rate Books",
        description: "Poor rate assessments by ward, taken every ten years.",
        code: "HTA/HTC/2",
        children: [1861, 1871, 1881].flatMap((y) => [
          rateBook(y, "North", y === 1861 ? "rateBook1861North" : undefined),
          rateBook(y, "South"),
        ]),
      },
      {
        kind: "folder",
        title: "Bye-laws and Regulations",
        description: "Bye-laws of the Borough as made and printed.",
        code: "HTA/HTC/3",
        children: [
          byeLaw(
            "Bye-laws for the regulation of the Market 1858",
            1858,
            [
              "1. No person shall sell fish in the Market Square except in the stalls provided.",
              "2. Every stall shall be cleared by eight o'clock in the evening.",
              "3. Any person offending against these bye-laws shall forfeit a sum not exceeding forty shillings.",
            ],
            "byeLaw1858",
          ),
          byeLaw("Bye-laws for the prevention of nuisances 1864", 1864, [
            "1. No person shall deposit refuse upon the foreshore or the quays.",
            "2. Pigs shall not be kept within one hundred feet of any dwelling house.",
          ]),
          byeLaw("Bye-laws for hackney carriages 1872", 1872, [
            "1. Every hackney carriage shall display its licence number.",
            "2. The fare from the railway station to the Esplanade shall not exceed one shilling.",
          ]),
          byeLaw("Bye-laws for the public baths 1869", 1869, [
            "1. The baths shall be open from six in the morning until nine in the evening.",
            "2. Mixed bathing is not permitted.",
          ]),
        ],
      },
    ],
  },
};

// ---------------------------------------------------------------------------------------------
// Harbour Board

const BOARD_TOPICS = [
  "dredging of the inner harbour",
  "the extension of the North Quay",
  "harbour dues on coal and timber",
  "lights on the pier head",
  "the appointment of a new Harbour Master",
  "repairs to the breakwater after the January gale",
  "moorings for the herring fleet",
  "a steam tug for the harbour",
  "the tonnage of vessels using the port",
  "the South Dock survey",
];

function boardMinutes(year: number): AssetNode {
  const title = `Harbour Board minutes ${year}`;
  const topic = BOARD_TOPICS[year - 1850] ?? "harbour business";
  return {
    kind: "asset",
    key: year === 1851 ? "harbourBoardMinutes1851" : undefined,
    title,
    description: `Minutes of the Harbour Board of Harbour Town for ${year}, chiefly concerning ${topic}.`,
    code: `HTA/HB/1/${year}`,
    files: [
      pdf(title, "Harbour Town Harbour Board", `${year}-12-31T00:00:00Z`, [
        "HARBOUR TOWN HARBOUR BOARD",
        `Minutes of the Board for ${year}.`,
        `The Board considered ${topic}. Resolved that the Harbour Master report at the next meeting.`,
      ]),
    ],
    date: String(year),
    creator: "Harbour Town Harbour Board",
    subjects: ["Harbours", "Shipping", "Harbour Board minutes"],
  };
}

const VESSELS = [
  "Mary Jane",
  "Brothers",
  "Providence",
  "Good Intent",
  "Ocean Bride",
  "Ellen",
  "Fortitude",
  "Lively",
];
const PORTS = ["Harbour Town", "Falmouth", "Bristol", "Cardiff", "Plymouth", "Swansea", "Liverpool"];
const CARGOES = ["coal", "timber", "grain", "slate", "china clay", "salt fish", "limestone"];

function duesRegister(year: number): AssetNode {
  const title = `Register of harbour dues ${year}`;
  return {
    kind: "asset",
    title,
    description: `Register of vessels entering Harbour Town in ${year}, with master, port of registry, tonnage, cargo and dues paid.`,
    code: `HTA/HB/2/${year}`,
    dc: year !== 1857,
    files: [
      csv(`harbour-dues-${year}.csv`, () => {
        const r = new Prng(`dues:${year}`);
        const rows: (string | number)[][] = [
          ["Date", "Vessel", "Master", "Port of registry", "Tons", "Cargo", "Dues (d)"],
        ];
        for (let i = 0; i < 30; i++) {
          const tons = r.int(20, 240);
          const month = String(1 + Math.floor(i / 2.5)).padStart(2, "0");
          const day = String(r.int(1, 28)).padStart(2, "0");
          rows.push([
            `${year}-${month}-${day}`,
            r.pick(VESSELS),
            `${r.pick(FORENAMES)} ${r.pick(SURNAMES)}`,
            r.pick(PORTS),
            tons,
            r.pick(CARGOES),
            tons * 2,
          ]);
        }
        return rows;
      }),
    ],
    date: String(year),
    creator: "Harbour Town Harbour Board, Collector of Dues",
    subjects: ["Harbour dues", "Shipping", "Trade"],
  };
}

function journal(year: number): AssetNode {
  const title = `Harbour Master's journal ${year}`;
  return {
    kind: "asset",
    key: year === 1852 ? "harbourMasterJournal1852" : undefined,
    title,
    description: `Daily journal kept by the Harbour Master in ${year}: weather, tides, arrivals and incidents in the harbour.`,
    code: `HTA/HB/3/${year}`,
    files: [
      txt(
        `harbour-masters-journal-${year}.txt`,
        [
          `Harbour Master's journal, ${year}. Transcribed by volunteers of the Harbour Town Archives.`,
          "",
          `1 January ${year}. Wind SW, fresh. High water 10.42. Schooner Providence of Falmouth entered with coal.`,
          `2 January ${year}. Gale from the west. All vessels kept in harbour. Pier head light damaged.`,
          `3 January ${year}. Moderating. Repairs to the light begun. Herring boats put to sea at dusk.`,
        ].join("\n"),
      ),
    ],
    date: String(year),
    creator: "Harbour Master of Harbour Town",
    subjects: ["Harbours", "Weather", "Shipping"],
  };
}

function improvementReport(
  title: string,
  year: number,
  summary: string,
  key?: DemoKey,
  planKey?: DemoKey,
): AssetNode {
  return {
    kind: "asset",
    key,
    title,
    description: summary,
    code: `HTA/HB/4/${year}`,
    files: [
      pdf(title, "Harbour Town Harbour Board", `${year}-06-30T00:00:00Z`, [summary]),
      png(`${title} plan`, "plan", "master"),
    ],
    date: String(year),
    creator: "Harbour Town Harbour Board, Engineer",
    subjects: ["Harbour works", "Engineering"],
    links: planKey ? [{ type: LinkType.REFERENCES, to: planKey }] : undefined,
  };
}

const board: RootDef = {
  ingested: "2023-06-20T10:00:00.000Z",
  ingestedBy: "curator",
  folder: {
    kind: "folder",
    title: "Harbour Board",
    description:
      "Records of the Harbour Board of Harbour Town, 1848-1948: minutes, registers of dues, journals, reports.",
    code: "HTA/HB",
    dc: { creator: "Harbour Town Harbour Board", date: "1848/1948", subjects: ["Harbours", "Shipping"] },
    children: [
      {
        kind: "folder",
        title: "Harbour Board Minutes",
        description: "Minutes of the Harbour Board, 1850-1859.",
        code: "HTA/HB/1",
        children: range(1850, 1859).map(boardMinutes),
      },
      {
        kind: "folder",
        title: "Registers of Harbour Dues",
        description: "Registers of vessels and dues collected, 1855-1859.",
        code: "HTA/HB/2",
        children: range(1855, 1859).map(duesRegister),
      },
      {
        kind: "folder",
        title: "Harbour Master's Journals",
        description: "Journals of the Harbour Master (transcripts).",
        code: "HTA/HB/3",
        children: range(1852, 1854).map(journal),
      },
      {
        kind: "folder",
        title: "Harbour Improvement Reports",
        description: "Engineers' reports on harbour improvements, each with its plan.",
        code: "HTA/HB/4",
        children: [
          improvementReport(
            "Report on the proposed South Dock 1862",
            1862,
            "Report of the Board's engineer on the proposed South Dock, with estimates for excavation and lock gates.",
            "southDockReport1862",
            "planSouthDock1862",
          ),
          improvementReport(
            "Report on the breakwater extension 1878",
            1878,
            "Report on extending the breakwater by two hundred feet after the storm damage of 1877.",
          ),
          improvementReport(
            "Report on dredging the harbour channel 1885",
            1885,
            "Report on dredging the harbour channel to admit steamers of twelve feet draught at low water.",
          ),
        ],
      },
    ],
  },
};

// ---------------------------------------------------------------------------------------------
// Maps and Plans

function mapAsset(
  title: string,
  year: number,
  creator: string,
  description: string,
  style: "map" | "plan",
  extra: Partial<AssetNode> = {},
): AssetNode {
  return {
    kind: "asset",
    title,
    description,
    code: `HTA/MP/${style === "map" ? 1 : 2}/${slug(title)}`,
    files: [png(title, style, "master")],
    access: style === "map" ? [png(title, style, "access")] : undefined,
    date: String(year),
    creator,
    subjects: style === "map" ? ["Maps", "Harbour Town"] : ["Architectural drawings", "Engineering"],
    ...extra,
  };
}

const maps: RootDef = {
  ingested: "2023-10-03T09:00:00.000Z",
  ingestedBy: "manager",
  folder: {
    kind: "folder",
    title: "Maps and Plans",
    description: "Maps of the town and harbour, and engineering plans, 1841-1902.",
    code: "HTA/MP",
    dc: { creator: ARCHIVE, date: "1841/1902", subjects: ["Maps", "Plans"] },
    children: [
      {
        kind: "folder",
        title: "Town Maps",
        description: "Manuscript and printed maps of Harbour Town.",
        code: "HTA/MP/1",
        children: [
          mapAsset(
            "Map of the North Quay 1850",
            1850,
            "John Hocking, surveyor",
            "Manuscript survey of the North Quay and its warehouses, drawn for the Harbour Board before the quay was extended.",
            "map",
            { key: "mapNorthQuay1850" },
          ),
          mapAsset(
            "Map of the North Quay 1856 (revised)",
            1856,
            "John Hocking, surveyor",
            "Revised survey of the North Quay showing the extension completed in 1855.",
            "map",
            { key: "mapNorthQuay1856", links: [{ type: LinkType.IS_VERSION_OF, to: "mapNorthQuay1850" }] },
          ),
          mapAsset(
            "Map of the South Quay 1850",
            1850,
            "John Hocking, surveyor",
            "Survey of the South Quay, slipways and lime kilns.",
            "map",
          ),
          mapAsset(
            "Map of the Market Square 1862",
            1862,
            "Borough Surveyor",
            "Plan of the Market Square showing the Corn Exchange and the new market stalls.",
            "map",
          ),
          mapAsset(
            "Map of Harbour Town 1875",
            1875,
            "Harbour Town Gazette",
            "Printed map of the whole town with a street index.",
            "map",
          ),
          mapAsset(
            "Tithe map of St Anne's parish 1841",
            1841,
            "Tithe Commissioners",
            "Tithe map of the parish of St Anne, Harbour Town, with field numbers.",
            "map",
            { dc: false },
          ),
          mapAsset(
            "Ordnance Survey sheet Harbour Town 1888",
            1888,
            "Ordnance Survey",
            "Ordnance Survey 25-inch sheet of Harbour Town.",
            "map",
          ),
          mapAsset(
            "Map of the railway approaches 1859",
            1859,
            "Cornwall and Devon Railway Company",
            "Deposited plan of the railway approaches to Harbour Town station.",
            "map",
          ),
        ],
      },
      {
        kind: "folder",
        title: "Engineering Plans",
        description: "Plans, sections and elevations of harbour works and public buildings.",
        code: "HTA/MP/2",
        children: [
          mapAsset(
            "Plan of the South Dock 1862",
            1862,
            "Harbour Board Engineer",
            "Plan of the proposed South Dock with lock gates and quay walls.",
            "plan",
            {
              key: "planSouthDock1862",
              files: [
                png("Plan of the South Dock 1862", "plan", "master"),
                csv("south-dock-survey-levels-1862.csv", () => [
                  ["Station", "Chainage (ft)", "Level above datum (ft)"],
                  ...range(0, 11).map((i) => [`S${i}`, i * 50, 12 - ((i * 7) % 9)]),
                ]),
              ],
            },
          ),
          mapAsset(
            "Plan of the lighthouse 1871",
            1871,
            "Trinity House",
            "Plan and section of the pier head lighthouse.",
            "plan",
          ),
          mapAsset(
            "Elevation of the Custom House 1844",
            1844,
            "George Wightwick, architect",
            "Front elevation of the Custom House on the North Quay.",
            "plan",
          ),
          mapAsset(
            "Section of the breakwater 1878",
            1878,
            "Harbour Board Engineer",
            "Cross-section of the breakwater extension.",
            "plan",
            {
              files: [
                png("Section of the breakwater 1878", "plan", "master"),
                csv("breakwater-soundings-1878.csv", () => [
                  ["Point", "Distance from root (ft)", "Depth at low water (ft)"],
                  ...range(1, 10).map((i) => [`B${i}`, i * 20, 4 + ((i * 5) % 7)]),
                ]),
              ],
            },
          ),
          mapAsset(
            "Plan of the swing bridge 1894",
            1894,
            "Borough Engineer",
            "General arrangement of the swing bridge over the inner harbour.",
            "plan",
          ),
          mapAsset(
            "Plan of the fish market 1902",
            1902,
            "Borough Engineer",
            "Plan of the covered fish market on the South Quay.",
            "plan",
          ),
        ],
      },
    ],
  },
};

// ---------------------------------------------------------------------------------------------
// Photographs

function photo(title: string, year: number, description: string, extra: Partial<AssetNode> = {}): AssetNode {
  return {
    kind: "asset",
    title,
    description,
    code: `HTA/PH/${slug(title)}`,
    files: [png(title, "photo", "master")],
    access: [png(title, "photo", "access")],
    date: String(year),
    creator: year < 1915 ? "Pengelly and Sons, photographers" : "Harbour Town Gazette",
    subjects: ["Photographs", "Harbour Town"],
    ...extra,
  };
}

const photographs: RootDef = {
  ingested: "2024-02-12T11:00:00.000Z",
  ingestedBy: "curator",
  folder: {
    kind: "folder",
    key: "photographs",
    title: "Photographs",
    description:
      "Photographs of the harbour, streets and people of Harbour Town, 1887-1953, mostly from glass negatives.",
    code: "HTA/PH",
    dc: { creator: "Pengelly and Sons, photographers", date: "1887/1953", subjects: ["Photographs"] },
    children: [
      {
        kind: "folder",
        title: "Harbour and Shipping",
        description: "The harbour, its vessels and the people who worked there.",
        code: "HTA/PH/1",
        children: [
          photo(
            "The North Quay at low tide, 1890",
            1890,
            "Fishing boats aground at the North Quay at low tide, with the Custom House behind.",
            {
              key: "photoNorthQuay1890",
              links: [{ type: LinkType.REFERENCES, to: "mapNorthQuay1856" }],
            },
          ),
          photo(
            "Herring fleet in the outer harbour, 1905",
            1905,
            "The herring fleet at anchor in the outer harbour before the autumn season.",
            {
              key: "photoHerringFleet1905",
            },
          ),
          photo(
            "Paddle steamer Princess Alice at the pier, 1898",
            1898,
            "Excursion passengers boarding the paddle steamer Princess Alice.",
          ),
          photo(
            "Launch of the lifeboat Mary Stanford, 1912",
            1912,
            "Crowds watching the launch of the new lifeboat Mary Stanford from the slipway.",
          ),
          photo("Coal barges at the South Dock, 1923", 1923, "Coal barges unloading at the South Dock."),
          photo(
            "The lighthouse in a winter storm, 1931",
            1931,
            "Waves breaking over the pier head lighthouse during the storm of January 1931.",
          ),
          photo(
            "Fishermen mending nets on the beach, 1909",
            1909,
            "Fishermen mending drift nets on the town beach.",
          ),
          photo(
            "Customs officers on the quay, 1927",
            1927,
            "Officers of HM Customs inspecting cargo on the North Quay.",
          ),
        ],
      },
      {
        kind: "folder",
        title: "Street Scenes",
        description: "Streets, shops and public buildings of Harbour Town.",
        code: "HTA/PH/2",
        children: [
          photo(
            "Fore Street looking east, 1895",
            1895,
            "Fore Street looking east towards the Guildhall, with shop fronts and a carrier's cart.",
          ),
          photo(
            "Market day in the Market Square, 1902",
            1902,
            "Market day in the Market Square, with stalls in front of the Corn Exchange.",
          ),
          photo(
            "The Corn Exchange decorated for the coronation, 1911",
            1911,
            "The Corn Exchange decorated with bunting for the coronation of George V.",
          ),
          photo(
            "Horse tram on the Esplanade, 1904",
            1904,
            "A horse tram of the Esplanade tramway near the bandstand.",
          ),
          photo(
            "Flooding in Water Lane, 1953",
            1953,
            "Water Lane flooded by the storm surge of January 1953.",
          ),
          photo(
            "Harbour Town railway station, 1920",
            1920,
            "The railway station forecourt with taxis and a station omnibus.",
          ),
        ],
      },
      {
        kind: "folder",
        title: "People and Events",
        description: "Civic occasions, celebrations and portraits.",
        code: "HTA/PH/3",
        children: [
          photo(
            "Council members on the Town Hall steps, 1887",
            1887,
            "The Mayor and members of the Borough Council in the Golden Jubilee year.",
          ),
          photo(
            "Regatta crowds on the harbour wall, 1899",
            1899,
            "Spectators on the harbour wall during the annual regatta.",
          ),
          photo(
            "Opening of the free library, 1876",
            1876,
            "The Mayor opening the free public library in Chapel Hill.",
          ),
          photo(
            "Schoolchildren at the Empire Day parade, 1910",
            1910,
            "Pupils of the Board School marching in the Empire Day parade.",
          ),
          photo(
            "Lifeboat crew with medals, 1914",
            1914,
            "The lifeboat crew with the medals awarded for the rescue of the crew of the SS Collingwood.",
          ),
          photo(
            "Victory celebrations in Fore Street, 1945",
            1945,
            "Street party in Fore Street celebrating victory in Europe.",
          ),
        ],
      },
    ],
  },
};

// ---------------------------------------------------------------------------------------------
// Oral Histories

function interview(
  project: "Harbour Memories" | "Fishing Families",
  index: number,
  name: string,
  role: string,
  recorded: string,
  topics: string,
  extra: Partial<AssetNode> = {},
): AssetNode {
  const title = `Interview with ${name}, ${role}`;
  const base = slug(`interview ${name}`);
  const accNo = project === "Harbour Memories" ? `1998/014/${index}` : `2004/031/${index}`;
  return {
    kind: "asset",
    title,
    description: `Oral history interview with ${name}, ${role}, recorded on ${recorded} for the ${project} Project. Topics: ${topics}.`,
    code: `HTA/OH/${project === "Harbour Memories" ? 1 : 2}/${index}`,
    files: [
      { filename: `${base}.wav`, format: "wav", bytes: () => wavFile(hashNum(name)) },
      txt(
        `${base}-transcript.txt`,
        [
          `${project} Project. ${title}. Recorded ${recorded}.`,
          "",
          `INTERVIEWER: Can you tell me about ${topics.split(";")[0]}?`,
          `${name.split(" ")[0]?.toUpperCase()}: Well, I remember it well. We started early, before light, down on the quay.`,
          "INTERVIEWER: And what was the work like?",
          `${name.split(" ")[0]?.toUpperCase()}: Hard, but we were all in it together. Everyone knew everyone in those days.`,
        ].join("\n"),
      ),
    ],
    date: recorded,
    creator: `${name}; ${project} Project`,
    subjects: ["Oral history", ...topics.split("; ")],
    identifiers: [["accession", accNo]],
    accession: {
      accessionNumber: accNo,
      dateReceived: project === "Harbour Memories" ? "1998-11-02" : "2004-09-15",
      depositor: `${project} Project`,
      extent: "1 sound recording; 1 transcript",
      custodialHistory: `Recorded by volunteers of the ${project} Project and deposited with the Archives on completion of the project.`,
      accessConditions: "Open. The interviewee signed a recording agreement permitting public access.",
    },
    ...extra,
  };
}

const oralHistories: RootDef = {
  ingested: "2024-07-08T13:00:00.000Z",
  ingestedBy: "curator",
  folder: {
    kind: "folder",
    title: "Oral Histories",
    description: "Recorded interviews with residents of Harbour Town about work and life on the harbour.",
    code: "HTA/OH",
    dc: { creator: ARCHIVE, date: "1998/2004", subjects: ["Oral history"] },
    children: [
      {
        kind: "folder",
        title: "Harbour Memories Project 1998",
        description: "Interviews recorded by the Harbour Memories Project in 1998.",
        code: "HTA/OH/1",
        accession: {
          accessionNumber: "1998/014",
          dateReceived: "1998-11-02",
          depositor: "Harbour Memories Project",
          extent: "5 sound recordings with transcripts",
          custodialHistory: "Deposited by the project coordinator on completion of the project.",
          accessConditions: "Open.",
        },
        children: [
          interview(
            "Harbour Memories",
            1,
            "Margaret Doyle",
            "net maker",
            "1998-03-12",
            "net making; the herring season; women's work",
            {
              key: "interviewDoyle",
              links: [{ type: LinkType.REFERENCES, to: "photoHerringFleet1905" }],
            },
          ),
          interview(
            "Harbour Memories",
            2,
            "Albert Rowe",
            "lifeboat coxswain",
            "1998-04-02",
            "the lifeboat; rescues at sea",
          ),
          interview(
            "Harbour Memories",
            3,
            "Edith Hocking",
            "shopkeeper",
            "1998-05-20",
            "Fore Street shops; the 1953 flood",
          ),
          interview(
            "Harbour Memories",
            4,
            "Walter Jago",
            "docker",
            "1998-06-11",
            "the South Dock; coal barges",
          ),
          interview(
            "Harbour Memories",
            5,
            "Kathleen Penrose",
            "teacher",
            "1998-07-09",
            "the Board School; Empire Day",
          ),
        ],
      },
      {
        kind: "folder",
        title: "Fishing Families Project 2004",
        description: "Interviews with fishing families recorded in 2004.",
        code: "HTA/OH/2",
        children: [
          interview(
            "Fishing Families",
            1,
            "Peter Vosper",
            "skipper",
            "2004-02-18",
            "pilchard fishing; the fish market",
          ),
          interview(
            "Fishing Families",
            2,
            "Joan Trist",
            "fish jouster",
            "2004-03-03",
            "selling fish; the railway",
          ),
          interview(
            "Fishing Families",
            3,
            "Michael Carne",
            "boat builder",
            "2004-04-21",
            "boat building; the slipway",
          ),
          interview(
            "Fishing Families",
            4,
            "Rose Bolitho",
            "fisherman's wife",
            "2004-05-12",
            "family life; storms",
          ),
        ],
      },
    ],
  },
};

// ---------------------------------------------------------------------------------------------
// Staff Records (tag staff)

function personnel(name: string, post: string, years: string, key?: DemoKey): AssetNode {
  const title = `Personnel file: ${name}, ${post}`;
  return {
    kind: "asset",
    key,
    title,
    description: `Personnel file of ${name}, ${post} of the Borough, ${years}: appointment, salary, conduct and retirement.`,
    code: `HTA/SR/1/${slug(name)}`,
    files: [
      txt(
        `personnel-${slug(name)}.txt`,
        `PERSONNEL FILE\nName: ${name}\nPost: ${post}\nService: ${years}\n\nAppointed by resolution of the Council. Salary reviewed annually. Conduct: very good.`,
      ),
    ],
    date: years.replace("-", "/"),
    creator: "Harbour Town Borough Council, Town Clerk's Department",
    subjects: ["Personnel records", "Local government officers"],
  };
}

function staffRegister(year: number, key?: DemoKey): AssetNode {
  return {
    kind: "asset",
    key,
    title: `Staff register ${year}`,
    description: `Register of all employees of the Borough and the Harbour Board in ${year}, with posts, dates of birth and wages.`,
    code: `HTA/SR/2/${year}`,
    files: [
      csv(`staff-register-${year}.csv`, () => {
        const r = new Prng(`staff:${year}`);
        const rows: (string | number)[][] = [["Name", "Post", "Department", "Born", "Weekly wage (s)"]];
        for (let i = 0; i < 18; i++) {
          rows.push([
            `${r.pick(FORENAMES)} ${r.pick(SURNAMES)}`,
            r.pick(["Clerk", "Labourer", "Berthing master", "Collector", "Lamplighter", "Mason", "Porter"]),
            r.pick(["Town Clerk", "Harbour", "Surveyor", "Baths"]),
            year - r.int(18, 60),
            r.int(15, 60),
          ]);
        }
        return rows;
      }),
    ],
    date: String(year),
    creator: "Harbour Town Borough Council",
    subjects: ["Personnel records", "Wages"],
  };
}

const staff: RootDef = {
  ingested: "2024-11-19T10:30:00.000Z",
  ingestedBy: "manager",
  folder: {
    kind: "folder",
    key: "staffRecords",
    title: "Staff Records",
    description:
      "Personnel files and staff registers of the Borough, closed to the public because they hold personal data.",
    code: "HTA/SR",
    tag: "staff",
    dc: { creator: "Harbour Town Borough Council", date: "1868/1975", subjects: ["Personnel records"] },
    children: [
      {
        kind: "folder",
        title: "Personnel Files",
        description: "Files of individual officers.",
        code: "HTA/SR/1",
        children: [
          personnel("Thomas Kettering", "Harbour Master", "1868-1901", "personnelKettering"),
          personnel("Eliza Nance", "Librarian", "1876-1912"),
          personnel("Richard Quiller", "Borough Surveyor", "1880-1919"),
          personnel("Samuel Hawke", "Town Clerk", "1899-1934"),
          personnel("Florence Carne", "Baths Superintendent", "1920-1951"),
          personnel("Arthur Penrose", "Harbour Master", "1931-1962"),
        ],
      },
      {
        kind: "folder",
        title: "Staff Registers",
        description: "Registers of all employees, compiled at intervals.",
        code: "HTA/SR/2",
        children: [staffRegister(1905, "staffRegister1905"), staffRegister(1925), staffRegister(1950)],
      },
    ],
  },
};

// ---------------------------------------------------------------------------------------------
// Closed Correspondence (tag closed)

function letter(title: string, year: number, body: string, key?: DemoKey): AssetNode {
  return {
    kind: "asset",
    key,
    title,
    description: `${title}. ${body}`,
    code: `HTA/CC/1/${slug(title)}`,
    files: [
      txt(
        `${slug(title)}.txt`,
        `Town Clerk's Office, Harbour Town, ${year}.\n\nSir,\n\n${body}\n\nI am, Sir, your obedient servant,\nTown Clerk`,
      ),
    ],
    date: String(year),
    creator: "Town Clerk of Harbour Town",
    subjects: ["Correspondence", "Local government"],
  };
}

function opinion(title: string, year: number, summary: string): AssetNode {
  return {
    kind: "asset",
    title,
    description: summary,
    code: `HTA/CC/2/${year}`,
    files: [pdf(title, "Counsel for the Borough", `${year}-03-01T00:00:00Z`, [summary])],
    date: String(year),
    creator: "Counsel for the Borough",
    subjects: ["Legal opinions", "Foreshore"],
  };
}

const closed: RootDef = {
  ingested: "2025-04-02T14:00:00.000Z",
  ingestedBy: "manager",
  folder: {
    kind: "folder",
    key: "closedCorrespondence",
    title: "Closed Correspondence",
    description: "Confidential correspondence and legal opinions of the Town Clerk, closed for 100 years.",
    code: "HTA/CC",
    tag: "closed",
    dc: { creator: "Town Clerk of Harbour Town", date: "1869/1931", subjects: ["Correspondence"] },
    children: [
      {
        kind: "folder",
        title: "Letters of the Town Clerk",
        description: "Out-letters of the Town Clerk marked confidential.",
        code: "HTA/CC/1",
        children: [
          letter(
            "Letter from the Town Clerk to the Admiralty, 1869",
            1869,
            "The Council asks the Lords of the Admiralty to contribute to the cost of the breakwater, which shelters Her Majesty's ships.",
            "letterAdmiralty1869",
          ),
          letter(
            "Letter from the Town Clerk to the Board of Trade, 1872",
            1872,
            "The Council objects to the proposed reduction of the harbour dues on foreign vessels.",
          ),
          letter(
            "Letter from the Town Clerk to the Chief Constable, 1884",
            1884,
            "The Council complains of disorder on the quays on market nights and asks for two more constables.",
          ),
          letter(
            "Letter from the Town Clerk to the Tremayne estate, 1890",
            1890,
            "The Council offers terms for the purchase of the foreshore between the North Quay and the lifeboat station.",
          ),
          letter(
            "Letter from the Town Clerk to the Local Government Board, 1901",
            1901,
            "The Council asks sanction for a loan of ten thousand pounds for the swing bridge.",
          ),
          letter(
            "Letter from the Town Clerk to the Harbour Master, 1931",
            1931,
            "The Council asks for a confidential report on the damage to the lighthouse in the January storm.",
          ),
        ],
      },
      {
        kind: "folder",
        title: "Legal Opinions",
        description: "Opinions of counsel obtained by the Council.",
        code: "HTA/CC/2",
        children: [
          opinion(
            "Counsel's opinion on the foreshore rights, 1871",
            1871,
            "Opinion on whether the Borough or the Crown owns the foreshore below the North Quay.",
          ),
          opinion(
            "Counsel's opinion on the harbour dues, 1886",
            1886,
            "Opinion on the Harbour Board's power to levy dues on pleasure steamers.",
          ),
          opinion(
            "Counsel's opinion on the tramway lease, 1903",
            1903,
            "Opinion on the termination of the Esplanade tramway lease.",
          ),
        ],
      },
    ],
  },
};

// ---------------------------------------------------------------------------------------------
// Publications (ISBN identifiers)

/** ISBN-13 with a correct check digit, from its first twelve digits. */
export function isbn13(first12: string): string {
  const digits = [...first12].map(Number);
  const sum = digits.reduce((s, d, i) => s + d * (i % 2 === 0 ? 1 : 3), 0);
  return `${first12}${(10 - (sum % 10)) % 10}`;
}

function publication(
  title: string,
  year: number,
  author: string,
  isbnStem: string,
  summary: string,
  extra: Partial<AssetNode> = {},
): AssetNode {
  return {
    kind: "asset",
    title,
    description: summary,
    code: `HTA/PU/${year}`,
    files: [
      pdf(title, author, `${year}-01-01T00:00:00Z`, [
        summary,
        `Published by the Harbour Town Archives, ${year}.`,
      ]),
    ],
    date: String(year),
    creator: author,
    subjects: ["Local history", "Harbour Town"],
    identifiers: [["isbn", isbn13(isbnStem)]],
    ...extra,
  };
}

const publications: RootDef = {
  ingested: "2025-09-15T09:45:00.000Z",
  ingestedBy: "curator",
  folder: {
    kind: "folder",
    title: "Publications",
    description:
      "Books and booklets on the history of Harbour Town published by the Archives and local authors.",
    code: "HTA/PU",
    children: [
      publication(
        "A History of Harbour Town",
        1974,
        "Arthur L. Penrose",
        "978095012345",
        "A general history of the town from its charter to the present day.",
        {
          key: "historyOfHarbourTown",
        },
      ),
      publication(
        "The Ships of Harbour Town",
        1988,
        "Helen Vosper",
        "978095012346",
        "An illustrated history of the vessels registered at Harbour Town.",
      ),
      publication(
        "Harbour Town in Old Photographs",
        1995,
        "Harbour Town Archives",
        "978095012347",
        "A selection of photographs from the Pengelly collection.",
        { links: [{ type: LinkType.REFERENCES, to: "photoNorthQuay1890" }] },
      ),
      publication(
        "Voices of the Harbour",
        2001,
        "Harbour Memories Project",
        "978095012348",
        "Extracts from the oral history interviews of the Harbour Memories Project.",
        { links: [{ type: LinkType.REFERENCES, to: "interviewDoyle" }] },
      ),
      publication(
        "The North Quay: an Archaeology",
        2006,
        "Daniel Hocking",
        "978095012349",
        "Excavations on the North Quay and what they reveal about the medieval harbour.",
        { links: [{ type: LinkType.REFERENCES, to: "mapNorthQuay1850" }] },
      ),
    ],
  },
};

export const DEMO_ROOTS: readonly RootDef[] = [
  council,
  board,
  maps,
  photographs,
  oralHistories,
  staff,
  closed,
  publications,
];

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}
