import type { Body } from "./case.js";
import { el } from "./wire.js";

/**
 * Junk by shape, shared by the areas: bad numbers, refs, dates, versions and tokens; the XML junk any XML
 * body route must refuse; and `spread`, which deals one junk list out over routes that parse the same way.
 */

/** A body to refuse: a name, the body, the statuses allowed, and what the message must say. */
export type Junk = [name: string, body: Body, expect: number[], message?: RegExp];

/** Nested entities, each ten of the one before: a billion laughs if ever expanded. */
export const LAUGHS = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">${Array.from(
  { length: 9 },
  (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? "" : i};`.repeat(10)}">`,
).join("")}]>`;

export const BAD_NUMBERS = [
  "-5",
  "-1",
  "1.5",
  "0.0",
  "1e3",
  "1e309",
  "NaN",
  "Infinity",
  "-Infinity",
  "0x10",
  "9".repeat(400),
  "9007199254740993",
  "%2B1",
  "1,2",
  "1_000",
  "abc",
  "%00",
  "%C3%28",
  "%D9%A3", // Arabic-Indic digit three
  "1%202",
];
/** Refs that are not UUIDs, as one path segment or one query value. */
export const BAD_REFS = [
  "not-a-uuid",
  "123",
  "%27%20OR%201%3D1--",
  "%00",
  "%2e%2e",
  "..%2f..%2fetc%2fpasswd",
  "..%5c..%5cwindows",
  "a%2fb",
  "%C3%28",
  "%FF",
  "%",
  "%E2%80%AE",
  "{io}x",
  "x{io}",
  "%7B{io}%7D",
  "{io}%20",
  "x".repeat(5000),
];
export const UNKNOWN_UUID = "00000000-0000-4000-8000-000000000000";
export const BAD_DATES = [
  "yesterday",
  "2024-13-45",
  "2024-1-1",
  "2024-01-01T25:61",
  "2024-01-01T00:00:00+99:99",
  "+275760-09-13",
  "1e309",
  "%00",
  "%C3%28",
  "2024-01-01%0Ax",
  "now",
  "0",
];
export const BAD_VERSIONS = [
  "v99.9",
  "vX.Y",
  "v0.0",
  "v5.9",
  "v6.13",
  "v7.8",
  "v0007.7",
  "v7.7%2e1",
  `v${"9".repeat(500)}.1`,
];
export const BAD_TOKENS = [
  "",
  " ",
  "%",
  "' OR '1'='1",
  "x".repeat(8000),
  "é".repeat(10),
  "00000000-0000-4000-8000-000000000000",
  "{token}x",
  " {token}x",
  "\t",
];

/**
 * The whole junk list for the first route of a group, and a rotating fifth of it for the others: every
 * route gets junk and every junk value reaches several routes, at a fraction of the requests (the
 * routes of a group share their parsing helpers).
 */
export function spread<T>(items: readonly T[], routeIndex: number): T[] {
  return routeIndex === 0 ? [...items] : items.filter((_, j) => j % 5 === routeIndex % 5);
}

/**
 * Junk any XML body route must refuse, around `inner`, content the route would accept in its root
 * element. `always` goes to every route (each reads its own root and required children); `shared` is
 * spread over the routes, since they all parse through one function (http/xml-body.ts).
 */
export function xmlJunk(root: string, ns: string, inner: string): { always: Junk[]; shared: Junk[] } {
  const doc = (body: string) => el(root, ns, body);
  return {
    always: [
      ["empty body", "", [400], /body is empty/],
      ["a form, not XML", "Title=Minutes&SecurityTag=open", [400], /not well-formed/],
      ["wrong root", el("Wrong", ns, inner), [400], /Wrong/],
    ],
    shared: [
      ["blank body", " \r\n\t ", [400], /body is empty/],
      ["JSON", '{"Title":"Minutes"}', [400], /not well-formed/],
      ["truncated", `<${root} xmlns="${ns}">${inner}`, [400], /not well-formed/],
      ["mismatched end tag", `<${root} xmlns="${ns}">${inner}</${root}x>`, [400], /not well-formed/],
      ["DOCTYPE", `<!DOCTYPE ${root}>${doc(inner)}`, [400], /DOCTYPE/],
      [
        "external entity (XXE)",
        `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>${doc(`${inner}<Note>&e;</Note>`)}`,
        [400],
        /DOCTYPE/,
      ],
      ["billion laughs", `${LAUGHS}${doc(`${inner}<Note>&lol9;</Note>`)}`, [400], /DOCTYPE/],
      ["undefined entity", doc(`${inner}<Note>a&nbsp;b</Note>`), [400], /&nbsp;/],
      ["bare ampersand", doc(`${inner}<Note>a & b</Note>`), [400], /not well-formed|&amp;/],
      ["two roots", doc(inner) + doc(inner), [400], /not well-formed|exactly one root/],
      ["text after the root", `${doc(inner)} junk`, [400]],
      [
        "undeclared prefix on the root",
        `<x:${root} xmlns="${ns}">${inner}</x:${root}>`,
        [400],
        /prefix "x:"/,
      ],
      ["undeclared prefix inside", doc(`${inner}<y:Note>x</y:Note>`), [400], /prefix "y:"/],
      [
        "100,000 nested elements",
        doc(`${inner}${"<a>".repeat(100_000)}${"</a>".repeat(100_000)}`),
        [400],
        /nests elements more than/,
      ],
      ["101 nested elements", doc(`${inner}${"<a>".repeat(101)}${"</a>".repeat(101)}`), [400], /nests/],
      ["control character", doc(`${inner}<Note>a\u0001b</Note>`), [400], /not allow/],
      ["NUL character", doc(`${inner}<Note>a\u0000b</Note>`), [400], /not allow/],
      ["character reference to a control character", doc(`${inner}<Note>a&#1;b</Note>`), [400], /not allow/],
      // A body that is not UTF-8 is read as ISO-8859-1 (pyPreservica sends some so, see
      // http/request-text.ts): read that way, junk stays junk.
      [
        "not UTF-8, wrong root",
        { latin1: el("Wrong", ns, `${inner}<Note>caf\xe9 \xff</Note>`) },
        [400],
        /Wrong/,
      ],
      [
        "Latin-1 declared, wrong root",
        { latin1: `<?xml version="1.0" encoding="ISO-8859-1"?>${el("Wrong", ns, `${inner}<N>\xe9</N>`)}` },
        [400],
        /Wrong/,
      ],
      [
        "UTF-16 with a BOM",
        Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(doc(inner), "utf16le")]),
        [400],
        /not allow/,
      ],
      ["900 KB in the wrong root", el("Wrong", ns, "x".repeat(900_000)), [400]],
      ["2 MiB body", `${doc(inner)}${" ".repeat(2 * 1024 * 1024)}`, [413], /1 MiB/],
    ],
  };
}
export interface XmlRoute {
  method: string;
  path: string;
  root: string;
  ns: string;
  /** What the route would accept inside its root element (the generic junk goes around it). */
  inner: string;
  /** Route-specific bodies, each with one defect. */
  specific: Junk[];
}

const DEEP = 10_000;
export const nest = (open: string, inner: string, close: string, n = DEEP) =>
  open.repeat(n) + inner + close.repeat(n);
export const values = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => `v${i}`));
export const TWO_MIB = Buffer.alloc(2 * 1024 * 1024, "a");
