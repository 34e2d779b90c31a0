import type { Body, Case, RawWrite } from "./case.js";
import { UNKNOWN_UUID } from "./junk.js";
import { E, el, FILE, md5, multipart, OCTET, PNG, sha1, TYPES, XIP7, XML_TYPE } from "./wire.js";

/**
 * Write routes that take files (previews, new content, new representations): bodies that are not what they
 * claim, wrong fixities, names; and bodies whose Content-Length lies, sent raw (RAW_WRITES).
 */

function fileWriteJunk(): Case[] {
  const cases: Case[] = [];
  for (const [ph, path] of TYPES.slice(0, 2)) {
    const p = `${E}/${path}/{${ph}}/preview`;
    for (const [name, body, headers, status, message] of [
      ["not an image", Buffer.from("hello, not a picture"), OCTET, [400], /not a PNG/],
      ["empty", Buffer.alloc(0), OCTET, [400], /body is empty/],
      ["7 bytes of a PNG", PNG.subarray(0, 7), OCTET, [400], /not a PNG/],
      [
        "a PNG in a multipart form",
        multipart(PNG),
        { "Content-Type": "multipart/form-data; boundary=xyz" },
        [400],
        /not a PNG/,
      ],
      ["a PNG as base64 text", PNG.toString("base64"), { "Content-Type": "text/plain" }, [400], /not a PNG/],
      [
        "an SVG",
        '<svg xmlns="http://www.w3.org/2000/svg"/>',
        { "Content-Type": "image/svg+xml" },
        [400],
        /not a PNG/,
      ],
    ] as [string, Body, Record<string, string>, number[], RegExp][]) {
      cases.push({
        name: `preview ${ph}: ${name}`,
        method: "PUT",
        path: p,
        headers,
        body,
        expect: status,
        message,
      });
    }
  }
  cases.push({
    name: "preview: over 10 MB",
    method: "PUT",
    path: `${E}/information-objects/{io}/preview`,
    headers: OCTET,
    body: Buffer.concat([PNG, Buffer.alloc(10 * 1024 * 1024)]),
    expect: [413],
    message: /larger than 10 MB/,
  });
  cases.push({
    name: "preview: over 10 MB, chunked",
    method: "PUT",
    path: `${E}/structural-objects/{so}/preview`,
    headers: OCTET,
    body: { chunks: [PNG, ...Array.from({ length: 11 }, () => Buffer.alloc(1024 * 1024))] },
    expect: [413],
    message: /larger than 10 MB/,
  });
  cases.push({
    name: "preview of a content object",
    method: "PUT",
    path: `${E}/content-objects/{co}/preview`,
    headers: OCTET,
    body: PNG,
    expect: [400],
    message: /Content objects have no custom preview/,
  });
  cases.push({
    name: "preview through v6.0: not an image",
    method: "PUT",
    path: `${E}/v6.0/information-objects/{io}/preview`,
    headers: OCTET,
    body: FILE,
    expect: [400],
    message: /not a PNG/,
  });

  // Packages uploaded for ingest into a folder (entity-ingest.ts): each refused before an ingest starts.
  const pkg = `${E}/structural-objects/{so}`;
  for (const [name, path, headers, body, status, message] of [
    ["not a zip", pkg, OCTET, FILE, [400], /not a zip file/],
    ["empty", pkg, OCTET, Buffer.alloc(0), [400], /body is empty/],
    [
      "a multipart form",
      pkg,
      { "Content-Type": "multipart/form-data; boundary=xyz" },
      multipart(FILE),
      [415],
      /multipart/,
    ],
    ["into an asset", `${E}/structural-objects/{io}`, OCTET, FILE, [404], /not found/],
    ["into a deleted folder", `${E}/structural-objects/{binned}`, OCTET, FILE, [404], /not found/],
    ["into a junk ref", `${E}/structural-objects/{so}x`, OCTET, FILE, [404], /not a UUID/],
    ["into an unknown folder", `${E}/structural-objects/${UNKNOWN_UUID}`, OCTET, FILE, [404], /not found/],
    ["through v6.0, not a zip", `${E}/v6.0/structural-objects/{so}`, OCTET, FILE, [400], /not a zip file/],
  ] as [string, string, Record<string, string>, Body, number[], RegExp][]) {
    cases.push({ name: `package: ${name}`, method: "POST", path, headers, body, expect: status, message });
  }

  const gen = `${E}/content-objects/{co}/generations`;
  const good = { ...OCTET, Filename: "junk.txt", "Fixity-MD5": md5(FILE) };
  const without = (k: string) => Object.fromEntries(Object.entries(good).filter(([h]) => h !== k));
  for (const [name, path, headers, body, status, message] of [
    ["no Filename", gen, without("Filename"), FILE, [400], /Filename header is required/],
    ["empty Filename", gen, { ...good, Filename: "" }, FILE, [400], /Filename header is required/],
    ["Filename with a folder", gen, { ...good, Filename: "../junk.txt" }, FILE, [400], /bare file name/],
    ["Filename with a backslash", gen, { ...good, Filename: "a\\b.txt" }, FILE, [400], /bare file name/],
    ["Filename ..", gen, { ...good, Filename: ".." }, FILE, [400], /bare file name/],
    ["Filename with a tab", gen, { ...good, Filename: "a\tb.txt" }, FILE, [400], /bare file name/],
    [
      "Filename of 300 characters",
      gen,
      { ...good, Filename: `${"f".repeat(296)}.txt` },
      FILE,
      [400],
      /longer than 255/,
    ],
    ["no Fixity", gen, without("Fixity-MD5"), FILE, [400], /checksum/],
    ["Fixity-MD5 not hex", gen, { ...good, "Fixity-MD5": "xyz" }, FILE, [400], /32 hexadecimal digits/],
    [
      "Fixity-SHA-256 too short",
      gen,
      { ...without("Fixity-MD5"), "Fixity-SHA-256": "a".repeat(63) },
      FILE,
      [400],
      /64 hexadecimal/,
    ],
    [
      "Fixity-MD5 of other bytes",
      gen,
      { ...good, "Fixity-MD5": md5("other") },
      FILE,
      [400],
      /does not match its Fixity-MD5/,
    ],
    [
      "right SHA-1, wrong MD5",
      gen,
      { ...good, "Fixity-SHA-1": sha1(FILE), "Fixity-MD5": md5("x") },
      FILE,
      [400],
      /does not match/,
    ],
    ["replaceType junk", `${gen}?replaceType=all`, good, FILE, [400], /replaceType "all" is not supported/],
    [
      "multipart form",
      gen,
      { ...good, "Content-Type": "multipart/form-data; boundary=xyz" },
      multipart(FILE),
      [415],
      /not as a multipart form/,
    ],
    ["empty body", gen, { ...good, "Fixity-MD5": md5("") }, Buffer.alloc(0), [400], /body is empty/],
    ["asset ref", `${E}/content-objects/{io}/generations`, good, FILE, [404], /not found/],
    ["unknown ref", `${E}/content-objects/${UNKNOWN_UUID}/generations`, good, FILE, [404], /not found/],
    ["bad ref", `${E}/content-objects/{co}x/generations`, good, FILE, [404], /not a UUID/],
    [
      "through v6.0, no Fixity",
      `${E}/v6.0/content-objects/{co}/generations`,
      without("Fixity-MD5"),
      FILE,
      [400],
      /checksum/,
    ],
  ] as [string, string, Record<string, string>, Body, number[], RegExp][]) {
    cases.push({
      name: `new content: ${name}`,
      method: "POST",
      path,
      headers,
      body,
      expect: status,
      message,
    });
  }

  const rep = `${E}/information-objects/{io}/representations`;
  const q = "type=Access&name=Junk&filename=junk.txt";
  for (const [name, query, headers, body, status, message] of [
    ["no type", "name=Junk&filename=junk.txt", OCTET, FILE, [400], /type is required/],
    ["type Preservation", "type=Preservation&filename=junk.txt", OCTET, FILE, [400], /Only Access/],
    ["type NUL", "type=%00&filename=junk.txt", OCTET, FILE, [400], /Only Access/],
    ["no filename", "type=Access&name=Junk", OCTET, FILE, [400], /filename is required/],
    ["filename with a folder", "type=Access&filename=..%2fjunk.txt", OCTET, FILE, [400], /bare file name/],
    ["filename with a NUL", "type=Access&filename=a%00b", OCTET, FILE, [400], /bare file name/],
    [
      "name of 300 characters",
      `type=Access&filename=a.txt&name=${"n".repeat(300)}`,
      OCTET,
      FILE,
      [400],
      /at most 255/,
    ],
    [
      "name with a control character",
      "type=Access&filename=a.txt&name=a%01b",
      OCTET,
      FILE,
      [400],
      /at most 255/,
    ],
    ["Fixity-MD5 of other bytes", q, { ...OCTET, "Fixity-MD5": md5("other") }, FILE, [400], /does not match/],
    [
      "Fixity-SHA-512 not hex",
      q,
      { ...OCTET, "Fixity-SHA-512": "z".repeat(128) },
      FILE,
      [400],
      /128 hexadecimal/,
    ],
    [
      "multipart form",
      q,
      { "Content-Type": "multipart/form-data; boundary=xyz" },
      multipart(FILE),
      [415],
      /multipart/,
    ],
    ["empty body", q, OCTET, Buffer.alloc(0), [400], /body is empty/],
  ] as [string, string, Record<string, string>, Body, number[], RegExp][]) {
    cases.push({
      name: `new representation: ${name}`,
      method: "POST",
      path: `${rep}?${query}`,
      headers,
      body,
      expect: status,
      message,
    });
  }
  cases.push({
    name: "new representation on a content object",
    method: "POST",
    path: `${E}/information-objects/{co}/representations?${q}`,
    headers: OCTET,
    body: FILE,
    expect: [404],
  });
  return cases;
}

/**
 * Bodies whose Content-Length lies, straight onto a socket: [name, bytes, statuses, what the first
 * answer must say]. Shorter: the service takes the declared bytes (a truncated file or document, which
 * it refuses) and what follows as the next request (here a GET without a token, answered 401 after).
 * Longer: the client stops sending and half-closes; the HTTP parser refuses the cut-off body (400).
 * Either way nothing is stored and no part-file is left behind.
 */
function lyingLengths(): RawWrite[] {
  const head = (method: string, path: string, headers: Record<string, string>, length: number) =>
    `${method} ${path} HTTP/1.1\r\nHost: x\r\nPreservica-Access-Token: {token}\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join("")}Content-Length: ${length}\r\n\r\n`;
  const next = "GET /api/user/details HTTP/1.1\r\nHost: x\r\n\r\n";
  const shorter = (method: string, path: string, headers: Record<string, string>, body: string, n: number) =>
    head(method, path, headers, n) + body.slice(0, n) + next;
  const text = FILE.toString("latin1");
  const png = PNG.toString("latin1");
  const save = el("InformationObject", XIP7, "<Title>Junk title</Title>");
  const gen = `${E}/content-objects/{co}/generations`;
  const genHeaders = { ...OCTET, Filename: "junk.txt", "Fixity-MD5": md5(FILE) };
  const preview = `${E}/information-objects/{io}/preview`;
  const put = `${E}/information-objects/{io}`;
  const rep = `${E}/information-objects/{io}/representations?type=Access&filename=junk.txt`;
  const cutOff = /not valid HTTP/;
  return [
    [
      "new content, Content-Length shorter",
      shorter("POST", gen, genHeaders, text, 10),
      [400],
      /does not match/,
    ],
    [
      "new content, Content-Length longer",
      head("POST", gen, genHeaders, FILE.length + 50) + text,
      [400],
      cutOff,
    ],
    [
      "new content, Content-Length huge",
      head("POST", gen, genHeaders, 99_999_999_999_999) + text,
      [413],
      /larger/,
    ],
    ["preview, Content-Length shorter", shorter("PUT", preview, OCTET, png, 7), [400], /not a PNG/],
    ["preview, Content-Length longer", head("PUT", preview, OCTET, PNG.length + 100) + png, [400], cutOff],
    ["preview, Content-Length over 10 MB", head("PUT", preview, OCTET, 20_000_000) + png, [413], /10 MB/],
    [
      "save, Content-Length shorter",
      shorter("PUT", put, XML_TYPE, save, save.length - 10),
      [400],
      /not well-formed/,
    ],
    ["save, Content-Length longer", head("PUT", put, XML_TYPE, save.length + 10) + save, [400], cutOff],
    [
      "new representation, Content-Length longer",
      head("POST", rep, OCTET, FILE.length + 5) + text,
      [400],
      cutOff,
    ],
  ];
}

export const CASES: Case[] = fileWriteJunk();
export const RAW_WRITES: RawWrite[] = lyingLengths();
