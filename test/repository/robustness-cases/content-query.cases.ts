import type { Case } from "./case.js";
import { nest, values } from "./junk.js";
import { withParam } from "./read-routes.js";
import { C, FORM, JSON_TYPE } from "./wire.js";

/**
 * The Content API's `q`: broken JSON, filters past their limits, FTS syntax, huge and deeply nested values,
 * raw escapes that are not UTF-8. Each by GET, form POST and JSON POST where it fits.
 */

const FILTER = (o: string) => `{"q":"","fields":[${o}]}`;
const Q_400: [string, string][] = [
  ["truncated object", '{"q":"maps"'],
  ["truncated key", '{"q":'],
  ["lone brace", "{"],
  ["truncated fields", '{"fields":[{"name":"xip.title","values":["a"]}'],
  ["trailing junk", '{"q":"x"} x'],
  ["single quotes", "{'q':'x'}"],
  ["nested array q", `{"q":${nest("[", "", "]")}}`],
  ["nested array fields", `{"fields":${nest("[", "", "]")}}`],
  ["nested object q", `{"q":${nest('{"q":', "1", "}")}}`],
  ["q array", '{"q":[]}'],
  ["q object", '{"q":{}}'],
  ["fields string", '{"fields":"xip.title"}'],
  ["fields number", '{"fields":5}'],
  ["fields object", '{"fields":{}}'],
  ["fields [5]", '{"fields":[5]}'],
  ["fields [null]", '{"fields":[null]}'],
  ["field name number", FILTER('{"name":5,"values":["x"]}')],
  ["field name object", FILTER('{"name":{},"values":["x"]}')],
  ["field name missing", FILTER('{"values":["x"]}')],
  ["unknown field", FILTER('{"name":"nope.nope","values":["x"]}')],
  ["__proto__ field", FILTER('{"name":"__proto__","values":["x"]}')],
  ["values object", FILTER('{"name":"xip.title","values":{}}')],
  ["values number", FILTER('{"name":"xip.title","values":5}')],
  ["values [{}]", FILTER('{"name":"xip.title","values":[{}]}')],
  ["values [null]", FILTER('{"name":"xip.title","values":[null]}')],
  ["operator number", FILTER('{"name":"xip.title","values":["x"],"operator":5}')],
  ["operator MAYBE", FILTER('{"name":"xip.title","values":["x"],"operator":"MAYBE"}')],
  ["operator array", FILTER('{"name":"xip.title","values":["x"],"operator":[]}')],
  ["full_text filter", FILTER('{"name":"xip.full_text","values":["x"]}')],
  ["created yesterday", FILTER('{"name":"xip.created","values":["yesterday"]}')],
  ["created half range", FILTER('{"name":"xip.created","values":["[2020 TO]"]}')],
  ["created word range", FILTER('{"name":"xip.created","values":["[yesterday TO *]"]}')],
  ["created huge year", FILTER('{"name":"xip.created","values":["[* TO 275760-09-13]"]}')],
  ["sort string", '{"sort":"xip.title"}'],
  ["sort [5]", '{"sort":[5]}'],
  ["sortFields number", '{"sort":[{"sortFields":5}]}'],
  ["sortFields [{}]", '{"sort":[{"sortFields":[{}]}]}'],
  ["sortOrder up", '{"sort":[{"sortFields":["xip.title"],"sortOrder":"up"}]}'],
  ["sortOrder object", '{"sort":[{"sortFields":["xip.title"],"sortOrder":{}}]}'],
  ["sort unknown", '{"sort":[{"sortFields":["nope"]}]}'],
  ["facets object", '{"facets":{}}'],
  ["facets [5]", '{"facets":[5]}'],
  ["facets [{}]", '{"facets":[{}]}'],
  ["facets [[]]", '{"facets":[["xip.title"]]}'],
  ["facets unknown", '{"facets":["nope"]}'],
  ["braces are JSON", "{maps}"],
];
const FTS_SYNTAX = [
  '"',
  '""',
  '"""',
  "*",
  "**",
  "(",
  ")",
  "()",
  ":",
  "^",
  "^maps",
  "NEAR",
  "NEAR(maps charts)",
  "NEAR/3",
  "maps NEAR charts",
  "AND",
  "OR",
  "NOT",
  "maps AND",
  "OR maps",
  "maps OR OR charts",
  "NOT maps",
  "maps NOT charts",
  "-",
  "--",
  "- -maps",
  '-"',
  "maps -",
  '"unterminated',
  "title:maps",
  ":maps",
  "[maps]",
  "+maps",
  "'",
  "\\",
  "%",
  "%%",
  "%maps%",
  "a%b%c",
  "*maps*",
  '"*"',
  '"%"',
  'ma"ps',
  '-"maps charts" plans',
  "maps) OR (charts",
  "x".repeat(10_000),
  "a%".repeat(3000),
  "a%b ".repeat(100),
  "\u0000",
  "maps\u0000charts",
  "\u0001\u001f\u007f",
  "\u200b",
  "\ud800",
  "\ufeff",
  "🗺️ maps",
  "ÄÖÜ",
  "xip.title:",
  'xip.title:"',
  "-xip.title:x",
  "id:",
  'id:"',
  "id:nope",
  "id:{io}",
  'oai_dc.subject:"',
  "nonsense.field:x",
  "null",
  "[1,2]",
  nest("[", "", "]"),
];
/** Long values, with their status: percent-encoded, a million quotes exceed the 1 MiB body limit. */
const Q_HUGE: [string, number][] = [
  ["a".repeat(1_000_000), 200],
  ["a ".repeat(400_000), 200],
  ['"'.repeat(1_000_000), 413],
  ["(".repeat(300_000), 200],
];
const filters = (n: number, field: string, perFilter: number) =>
  Array.from({ length: n }, () => `{"name":"${field}","values":${values(perFilter)}}`).join(",");
const fieldTerms = (n: number) => Array.from({ length: n }, (_, i) => `xip.title:t${i}`).join(" ");
/** Past the limit of 100 filter values in all: SQLite's caps made the larger ones 500s, and slow before. */
const Q_LIMITS: [string, string][] = [
  ["101 values in one filter", FILTER(`{"name":"xip.title","values":${values(101)}}`)],
  ["2,000 values in one filter", FILTER(`{"name":"xip.title","values":${values(2000)}}`)],
  ["40,000 values in one filter", FILTER(`{"name":"xip.identifier","values":${values(40_000)}}`)],
  ["101 filters", `{"fields":[${filters(101, "xip.title", 1)}]}`],
  ["1,500 filters", `{"fields":[${filters(1500, "xip.title", 1)}]}`],
  ["101 field terms", fieldTerms(101)],
  ["1,500 field terms", fieldTerms(1500)],
  ["51 values and 50 field terms", `{"q":"${fieldTerms(50)}","fields":[${filters(1, "xip.title", 51)}]}`],
];
const Q_200: [string, string][] = [
  [
    "100 identifier values (the limit)",
    `{"fields":[${filters(4, "xip.identifier", 25)}],"sort":[{"sortFields":["xip.title","xip.identifier","oai_dc.subject"]}],"facets":["xip.format_group","oai_dc.subject"]}`,
  ],
  ["100 dc values", FILTER(`{"name":"oai_dc.subject","values":${values(100)}}`)],
  ["100 filters of one value", `{"fields":[${filters(100, "xip.title", 1)}]}`],
  ["50 values and 50 field terms", `{"q":"${fieldTerms(50)}","fields":[${filters(1, "xip.title", 50)}]}`],
  ["unknown top-level keys", nest('{"a":', "1", "}")],
  ["q number", '{"q":5}'],
  ["q true", '{"q":true}'],
  ["q null", '{"q":null}'],
  ["empty values", FILTER('{"name":"xip.title","values":[]}')],
  ["blank values", FILTER('{"name":"xip.title","values":["", " "]}')],
  ["created impossible day", FILTER('{"name":"xip.created","values":["2024-13-45"]}')],
  ["created open range", FILTER('{"name":"xip.created","values":["[* TO 9999-12-31]"]}')],
  ["lone surrogate escape", '{"q":"\\ud800"}'],
  ["NUL escape", '{"q":"\\u0000maps"}'],
  [
    "1,500 sorts",
    `{"sort":[${Array.from({ length: 1500 }, () => '{"sortFields":["xip.title"]}').join(",")}]}`,
  ],
  ["3,000 id terms", Array.from({ length: 3000 }, (_, i) => `id:${i}`).join(" ")],
  ["100 field terms", fieldTerms(100)],
];

function qJunk(): Case[] {
  const cases: Case[] = [];
  const variants = (name: string, q: string, expectStatus: number[], message?: RegExp) => {
    const form = new URLSearchParams({ q }).toString();
    const path = `${C}/search`;
    if (form.length < 6000)
      cases.push({ name: `GET q ${name}`, path: `${path}?${form}`, expect: expectStatus, message });
    cases.push({
      name: `POST form q ${name}`,
      method: "POST",
      path,
      headers: FORM,
      body: form,
      expect: expectStatus,
      message,
    });
    cases.push({
      name: `POST JSON q ${name}`,
      method: "POST",
      path,
      headers: JSON_TYPE,
      body: JSON.stringify({ q }),
      expect: expectStatus,
      message,
    });
  };
  for (const [name, q] of Q_400) variants(name, q, [400]);
  for (const [name, q] of Q_LIMITS) variants(name, q, [400], /at most 100 are allowed/);
  for (const [name, q] of Q_200) variants(name, q, [200]);
  // The FTS translation does not depend on how q arrived: one transport each, the URL when it fits.
  for (const q of FTS_SYNTAX) {
    const form = new URLSearchParams({ q }).toString();
    const name = `q ${JSON.stringify(q.slice(0, 24))}`;
    cases.push(
      form.length < 6000
        ? { name: `GET ${name}`, path: `${C}/search?${form}`, expect: [200] }
        : {
            name: `POST ${name}`,
            method: "POST",
            path: `${C}/search`,
            headers: FORM,
            body: form,
            expect: [200],
          },
    );
  }
  for (const q of FTS_SYNTAX.slice(0, 12)) {
    for (const l of ["/search-within?parenthierarchy={so}", "/top-level-list", "/object-children?id={so}"]) {
      cases.push({
        name: `q ${q} at ${l}`,
        path: withParam(C + l, new URLSearchParams({ q }).toString()),
        expect: [200],
      });
    }
  }
  for (const [q, status] of Q_HUGE) {
    cases.push({
      name: `POST form 1 MB q ${q.slice(0, 4)}`,
      method: "POST",
      path: `${C}/search`,
      headers: FORM,
      body: new URLSearchParams({ q }).toString(),
      expect: [status],
    });
  }
  // Raw percent-escapes that are not UTF-8, and a NUL, in the query string itself.
  for (const raw of ["%C3%28", "%FF", "%", "%E0%A4%A", "%00", "%ZZ", "maps%", "%C0%AE%C0%AE%2F"]) {
    cases.push({ name: `raw q=${raw}`, path: `${C}/search?q=${raw}`, expect: [200] });
    cases.push({
      name: `raw body q=${raw}`,
      method: "POST",
      path: `${C}/search`,
      headers: FORM,
      body: `q=${raw}`,
      expect: [200],
    });
  }
  cases.push({ name: "facets param unknown", path: `${C}/search?facets=nope`, expect: [400] });
  cases.push({ name: "facets param NUL", path: `${C}/search?facets=%00`, expect: [400] });
  cases.push({
    name: "metadata param junk",
    path: `${C}/search?metadata=%00,nope,,,${"x".repeat(2000)}`,
    expect: [200],
  });
  cases.push({
    name: "metadata repeated 20,000 times",
    method: "POST",
    path: `${C}/search`,
    headers: FORM,
    body: "metadata=xip.title&".repeat(20_000),
    expect: [200],
  });
  // JSON bodies nested deeper than any sane request; still under the body limit.
  const deep: [string, string][] = [
    ["array 10,000", `{"q":${nest("[", "", "]")}}`],
    ["object 10,000", `{"x":${nest('{"a":', "1", "}")}}`],
    ["array 400,000", `{"q":${nest("[", "", "]", 400_000)}}`],
    ["object 100,000", `{"x":${nest('{"a":', "1", "}", 100_000)}}`],
    ["65 levels", `{"x":${nest("[", "", "]", 64)}}`],
  ];
  for (const [name, body] of deep) {
    cases.push({
      name: `JSON body nested ${name}`,
      method: "POST",
      path: `${C}/search`,
      headers: JSON_TYPE,
      body,
      expect: [400],
      message: /deeper than 64/,
    });
  }
  cases.push({
    name: "JSON body nested 64 levels",
    method: "POST",
    path: `${C}/search`,
    headers: JSON_TYPE,
    body: `{"x":${nest("[", "", "]", 63)}}`,
    expect: [200],
  });
  cases.push({
    name: "JSON body brackets inside strings",
    method: "POST",
    path: `${C}/search`,
    headers: JSON_TYPE,
    body: `{"q":"${"[{".repeat(5000)}\\""}`,
    expect: [200],
  });
  return cases;
}

export const CASES: Case[] = qJunk();
