import type { Body, Case } from "./case.js";
import { nest, spread } from "./junk.js";
import { JSON_TYPE, M, XML_TYPE } from "./wire.js";

/**
 * The JSON metadata API (groups, forms, CSV templates): bodies that are not objects, groups and fields with
 * one defect each, forms.
 */

export const field = (id: string, extra = "") => `{"id":"${id}","name":"Field ${id}"${extra}}`;
export const group = (fields: string, name = "Junk new group") => `{"name":"${name}","fields":[${fields}]}`;
/** JSON bodies neither metadata route may take, whatever it reads: not an object at all. */
const NOT_AN_OBJECT: [string, Body, number[], RegExp?][] = [
  ["empty", "", [400], /not valid JSON \(the body is empty\)/],
  ["not JSON", "hello", [400], /not valid JSON/],
  ["a lone brace", "{", [400], /not valid JSON/],
  ["trailing junk", `${group(field("a"))} x`, [400], /not valid JSON/],
  ["an array", `[${group(field("a"))}]`, [400], /must be a JSON object/],
  ["null", "null", [400], /must be a JSON object/],
  ["a string", '"Junk"', [400], /must be a JSON object/],
  ["a number", "5", [400], /must be a JSON object/],
  ["only a BOM", "\uFEFF", [400], /not valid JSON/],
  ["XML", "<group><name>Junk</name></group>", [400], /not valid JSON/],
  ["a form", "name=Junk+group", [400], /not valid JSON/],
  [
    "nested 10,000 deep",
    `{"name":"Junk deep","description":${nest('{"a":', "1", "}")}}`,
    [400],
    /deeper than 64/,
  ],
  [
    "nested arrays 10,000 deep",
    `{"title":"Junk deep","fields":${nest("[", "", "]")}}`,
    [400],
    /deeper than 64/,
  ],
  // Not UTF-8: read as ISO-8859-1, so the name and title are the second fixtures', and taken.
  [
    "Latin-1, a taken name",
    { latin1: '{"name":"Junk Caf\xe9 Group","title":"Junk caf\xe9 loose form"}' },
    [409],
    /"Junk [Cc]af\u00e9 (Group|loose form)" already exists/,
  ],
  ["2 MiB", `{"name":"${"n".repeat(2 * 1024 * 1024)}"}`, [413], /1 MiB/],
];
const GROUP_JUNK: [string, Body, number[], RegExp?][] = [
  ["name an object", '{"name":{}}', [400], /must be a string/],
  ["name a list", '{"name":["Junk"]}', [400], /must be a string/],
  ["name null", '{"name":null}', [400], /name is required/],
  ["name blank", '{"name":"  "}', [400], /name is required/],
  ["name starting with a digit", '{"name":"9 lives"}', [400], /must start with a letter/],
  ["name of punctuation", '{"name":"!!!"}', [400], /must start with a letter/],
  ["name taken", '{"name":"Junk Fixture Group"}', [409], /already exists/],
  ["name taken in another case", '{"name":"JUNK fixture GROUP"}', [409], /already exists/],
  ["name giving a taken schema URI", '{"name":"Junk, fixture group!"}', [409], /schema URI/],
  ["fields a string", '{"name":"Junk new group","fields":"a"}', [400], /fields must be a list/],
  ["fields [5]", group("5"), [400], /fields\[0\] must be an object/],
  ["fields [[]]", group("[]"), [400], /fields\[0\] must be an object/],
  ["field without id", group('{"name":"x"}'), [400], /id is required/],
  ["field id with a space", group('{"id":"a b","name":"x"}'), [400], /not usable as an XML element name/],
  ["field id 1a", group('{"id":"1a","name":"x"}'), [400], /not usable/],
  ["field without name", group('{"id":"a"}'), [400], /name is required/],
  ["two fields with one id", group(`${field("a")},${field("a")}`), [400], /Two fields have the id "a"/],
  ["type BLOB", group(field("a", ',"type":"BLOB"')), [400], /type must be one of/],
  ["type a number", group(field("a", ',"type":5')), [400], /type must be one of/],
  ["minOccurs x", group(field("a", ',"minOccurs":"x"')), [400], /minOccurs must be a whole number/],
  ["minOccurs 1.5", group(field("a", ',"minOccurs":1.5')), [400], /whole number/],
  ["minOccurs -1", group(field("a", ',"minOccurs":-1')), [400], /0 or more/],
  ["maxOccurs 0", group(field("a", ',"maxOccurs":"0"')), [400], /1 or more/],
  ["maxOccurs 1e400", group(field("a", ',"maxOccurs":1e400')), [400], /whole number/],
  [
    "minOccurs over maxOccurs",
    group(field("a", ',"minOccurs":2,"maxOccurs":1')),
    [400],
    /larger than maxOccurs/,
  ],
  ["visible maybe", group(field("a", ',"visible":"maybe"')), [400], /true or false/],
  ["indexed 1", group(field("a", ',"indexed":1')), [400], /true or false/],
  ["values a string", group(field("a", ',"values":"x"')), [400], /values must be a list/],
  ["values [{}]", group(field("a", ',"values":[{}]')), [400], /must be a string/],
  ["maxLength 0", group(field("a", ',"maxLength":0')), [400], /maxLength must be 1 or more/],
  [
    "10,000 fields",
    group(Array.from({ length: 10_000 }, (_, i) => field(`f${i}`)).join(",")),
    [400],
    /at most 1000 fields/,
  ],
];
const FORM_JUNK: [string, Body, number[], RegExp?][] = [
  ["no title", '{"schemaUri":"http://example.com/x"}', [400], /title is required/],
  ["title blank", '{"title":" "}', [400], /title is required/],
  ["title an object", '{"title":{}}', [400], /must be a string/],
  ["title a list", '{"title":["Junk"]}', [400], /must be a string/],
  ["title taken", '{"title":"Junk fixture form"}', [409], /already exists/],
  ["schemaUri an object", '{"title":"Junk new form","schemaUri":{}}', [400], /schemaUri must be a string/],
  [
    "10,000 fields under a taken title",
    `{"title":"Junk fixture form","fields":[${Array.from({ length: 10_000 }, (_, i) => field(`f${i}`)).join(",")}]}`,
    [409],
    /already exists/,
  ],
];

function metadataJunk(): Case[] {
  const cases: Case[] = [];
  const add = (
    name: string,
    method: string,
    path: string,
    body: Body | undefined,
    status: number[],
    message?: RegExp,
    headers: Record<string, string> = JSON_TYPE,
  ) => cases.push({ name, method, path, headers, body, expect: status, message });
  for (const [kind, junk] of [
    ["groups", GROUP_JUNK],
    ["forms", FORM_JUNK],
  ] as const) {
    const one = kind === "groups" ? "{group}" : "{form}";
    const targets: [string, string][] = [
      ["POST", `${M}/${kind}/`],
      ["POST", `${M}/${kind}`],
      ["PUT", `${M}/${kind}/${one}`],
    ];
    for (const [i, [method, path]] of targets.entries()) {
      for (const [name, body, status, message] of [...spread(NOT_AN_OBJECT, i), ...spread(junk, i)]) {
        // A PUT may keep (or recase) its own name or title: it clashes only with another's. Its own
        // name becomes the second fixture's; a clash the rewrite does not reach is no clash for a PUT.
        const own = kind === "groups" ? "Junk Fixture Group" : "Junk fixture form";
        const others = kind === "groups" ? "Junk Café Group" : "Junk café loose form";
        let sent = body;
        if (method === "PUT" && status[0] === 409) {
          const text = typeof body === "string" ? body : "latin1" in body ? body.latin1 : "";
          if (typeof body === "string" && body.includes(own)) sent = body.replaceAll(own, others);
          else if (!/Junk [Cc]af/.test(text)) continue;
        }
        add(`${method} ${path.slice(M.length)}: ${name}`, method, path, sent, status, message);
      }
    }
    const valid = kind === "groups" ? group(field("a")) : '{"title":"Junk new form"}';
    for (const [name, id, status] of [
      ["unknown id", "deadbeef", [404]],
      ["an entity ref", "{io}", [404]],
      ["NUL", "%00", [404]],
      ["5,000 characters", "x".repeat(5000), [404]],
    ] as const) {
      add(`PUT ${kind} ${name}`, "PUT", `${M}/${kind}/${id}`, valid, [...status]);
      add(`DELETE ${kind} ${name}`, "DELETE", `${M}/${kind}/${id}`, undefined, [...status]);
      add(`GET ${kind} ${name}`, "GET", `${M}/${kind}/${id}`, undefined, [...status]);
    }
    add(
      `POST ${kind} as XML`,
      "POST",
      `${M}/${kind}/`,
      "<name>Junk</name>",
      [400],
      /not valid JSON/,
      XML_TYPE,
    );
  }
  for (const [name, query, status] of [
    ["no ids", "", [400]],
    ["blank ids", "?ids=,%20,", [400]],
    ["unknown id", "?ids=deadbeef", [404]],
    ["a good id and an unknown one", "?ids={group},deadbeef", [404]],
    ["a form of no group", "?ids={form2}", [400]],
    ["NUL", "?ids=%00", [404]],
    ["5,000 characters", `?ids=${"i".repeat(5000)}`, [404]],
  ] as const) {
    add(`CSV template: ${name}`, "GET", `${M}/csv-templates/download${query}`, undefined, [...status]);
  }
  return cases;
}

export const CASES: Case[] = metadataJunk();
