import { DEMO_STORAGE } from "../../../repository/seed/storage.js";
import { BUILT_IN_ADAPTER_ID } from "../../../repository/store/migrations/010-storage.js";
import type { Case, FixtureContext } from "./case.js";

/**
 * Junk for the Storage API (`/api/storage`), the storage policy (`/api/settings/storage/config/policy`), the
 * Entitlement API (`/api/entitlement`) and the storage locations of a bitstream (Entity API). The manager is an
 * administrator, so every write here must be refused for its junk alone (bad JSON, wrong fields, the built-in
 * adapter, adapters the policy uses, duplicates) or answered without a change (a PUT of the values an adapter
 * already has); the curator's token shows the 403.
 */

const S = "/api/storage";
const A = `${S}/adapters`;
const P = "/api/settings/storage/config/policy";
const EN = "/api/entitlement";
const UNKNOWN = "00000000-0000-4000-8000-00000000beef";
const BUILT_IN = BUILT_IN_ADAPTER_ID;
const REPLICA = DEMO_STORAGE.replicaId;
const COLD = DEMO_STORAGE.coldId;
const JSON_TYPE = { "Content-Type": "application/json" };
const CURATOR = { "Preservica-Access-Token": "{curatorToken}" };
const HUGE = "x".repeat(300_000);
const DEEP = `${"[".repeat(500)}${"]".repeat(500)}`;
const MANY_KEYS = JSON.stringify(Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, "v"])));
const LOC = "/api/entity/content-objects/{co}/generations/1/bitstreams/1/storage-locations";

function write(
  method: string,
  name: string,
  path: string,
  body: string,
  expect: number[],
  extra: Partial<Case> = {},
): Case {
  return { name: `storage: ${name}`, method, path, headers: JSON_TYPE, body, expect, ...extra };
}

const adapterBodies: [string, string, number[]][] = [
  ["not JSON", "{name: S3", [400]],
  ["a JSON array", "[]", [400]],
  ["JSON null", "null", [400]],
  ["a bare string", '"S3"', [400]],
  ["an empty object", "{}", [400]],
  ["deeply nested", DEEP, [400]],
  ["an unknown type", '{"name":"Junk","type":"FLOPPY"}', [400]],
  ["a numeric type", '{"name":"Junk","type":3}', [400]],
  ["no type", '{"name":"Junk"}', [400]],
  ["an empty name", '{"name":"   ","type":"S3"}', [400]],
  ["a numeric name", '{"name":42,"type":"S3"}', [400]],
  ["a huge name", JSON.stringify({ name: "n".repeat(5000), type: "S3" }), [400]],
  ["a name with a newline", '{"name":"Junk\\nname","type":"S3"}', [400]],
  ["a name with NUL", '{"name":"Junk\\u0000","type":"S3"}', [400]],
  [
    "a huge description",
    JSON.stringify({ name: "Junk", type: "S3", description: "d".repeat(20_000) }),
    [400],
  ],
  ["settings as an array", '{"name":"Junk","type":"S3","settings":["a"]}', [400]],
  ["settings with a secret", '{"name":"Junk","type":"S3","settings":{"secretAccessKey":"abc"}}', [400]],
  ["settings with a password", '{"name":"Junk","type":"S3","settings":{"password":"abc"}}', [400]],
  ["settings with a bad name", '{"name":"Junk","type":"S3","settings":{"../x":"abc"}}', [400]],
  ["settings with an object value", '{"name":"Junk","type":"S3","settings":{"bucket":{"a":1}}}', [400]],
  [
    "settings with a huge value",
    JSON.stringify({ name: "Junk", type: "S3", settings: { bucket: "b".repeat(9000) } }),
    [400],
  ],
  ["thousands of settings", `{"name":"Junk","type":"S3","settings":${MANY_KEYS}}`, [400]],
  ["thousands of unknown fields", MANY_KEYS, [400]],
  ["enabled as text", '{"name":"Junk","type":"S3","enabled":"yes"}', [400]],
  ["an unknown field", '{"name":"Junk","type":"S3","path":"/etc"}', [400]],
  ["the name of an existing adapter", '{"name":"LOCAL CONTENT STORE","type":"S3"}', [409]],
  ["a huge body", JSON.stringify({ name: "Junk", type: "S3", description: HUGE }), [400, 413]],
];

const policyBodies: [string, string, number[]][] = [
  ["not JSON", "adapters=1", [400]],
  ["a JSON array", `["${BUILT_IN}"]`, [400]],
  ["no name", `{"adapters":["${BUILT_IN}"]}`, [400]],
  ["no adapters", '{"name":"Junk"}', [400]],
  ["adapters as a string", `{"name":"Junk","adapters":"${BUILT_IN}"}`, [400]],
  ["an empty adapters list", '{"name":"Junk","adapters":[]}', [400]],
  ["adapters that are not ids", '{"name":"Junk","adapters":["local",3,null]}', [400]],
  ["an unknown adapter", `{"name":"Junk","adapters":["${BUILT_IN}","${UNKNOWN}"]}`, [400]],
  ["a disabled adapter", `{"name":"Junk","adapters":["${BUILT_IN}","${COLD}"]}`, [400]],
  ["without the built-in adapter", `{"name":"Junk","adapters":["${REPLICA}"]}`, [400]],
  ["an adapter twice", `{"name":"Junk","adapters":["${BUILT_IN}","${BUILT_IN}"]}`, [400]],
  ["too many adapters", JSON.stringify({ name: "Junk", adapters: Array(50).fill(BUILT_IN) }), [400]],
  ["minimumCopies 0", `{"name":"Junk","adapters":["${BUILT_IN}"],"minimumCopies":0}`, [400]],
  ["minimumCopies above the adapters", `{"name":"Junk","adapters":["${BUILT_IN}"],"minimumCopies":9}`, [400]],
  ["minimumCopies as text", `{"name":"Junk","adapters":["${BUILT_IN}"],"minimumCopies":"1"}`, [400]],
  ["minimumCopies fractional", `{"name":"Junk","adapters":["${BUILT_IN}"],"minimumCopies":1.5}`, [400]],
  ["a huge name", JSON.stringify({ name: "n".repeat(5000), adapters: [BUILT_IN] }), [400]],
  ["an unknown field", `{"name":"Junk","adapters":["${BUILT_IN}"],"region":"mars"}`, [400]],
  ["deeply nested", DEEP, [400]],
];

/** Bodies for PUT /api/storage/quota that must be refused whole (the quota stays as it is). */
const quotaBodies: [string, string, number[]][] = [
  ["not JSON", "quotaBytes=1", [400]],
  ["a JSON array", "[1]", [400]],
  ["JSON null", "null", [400]],
  ["a bare number", "1000", [400]],
  ["an empty object", "{}", [400]],
  ["a negative quota", '{"quotaBytes":-1}', [400]],
  ["a fractional quota", '{"quotaBytes":1.5}', [400]],
  ["a quota as text", '{"quotaBytes":"1000"}', [400]],
  ["a quota beyond safe integers", '{"quotaBytes":1e300}', [400]],
  ["a quota as an object", '{"quotaBytes":{"bytes":1}}', [400]],
  ["an unknown field", '{"quotaBytes":1,"edition":"x","unlimited":true}', [400]],
  ["thousands of unknown fields", MANY_KEYS, [400]],
  ["deeply nested", DEEP, [400]],
  ["a huge body", JSON.stringify({ quotaBytes: 1, pad: HUGE }), [400, 413]],
];

export const CASES: Case[] = [
  // Quota.
  { name: "storage: quota", path: `${S}/quota`, expect: [200] },
  { name: "storage: quota without a token", path: `${S}/quota`, auth: false, expect: [401] },
  { name: "storage: quota with junk parameters", path: `${S}/quota?start=-1&max=abc&%00=x`, expect: [200] },
  write("POST", "POST to the quota", `${S}/quota`, "{}", [404, 405]),
  ...quotaBodies.map(([name, body, expect]) =>
    write("PUT", `set the quota with ${name}`, `${S}/quota`, body, expect),
  ),
  write(
    "PUT",
    "set the quota to the value it has",
    `${S}/quota`,
    `{"quotaBytes":${DEMO_STORAGE.quotaBytes}}`,
    [200],
  ),
  write("PUT", "set the quota as a curator", `${S}/quota`, '{"quotaBytes":1}', [403], {
    headers: { ...JSON_TYPE, ...CURATOR },
    auth: false,
  }),
  write("PUT", "set the quota without a token", `${S}/quota`, '{"quotaBytes":1}', [401], { auth: false }),
  { name: "storage: DELETE the quota", method: "DELETE", path: `${S}/quota`, expect: [404, 405] },
  { name: "storage: unknown storage path", path: `${S}/quotas`, expect: [404] },

  // Adapters: reads.
  { name: "storage: list adapters", path: A, expect: [200] },
  { name: "storage: list adapters without a token", path: A, auth: false, expect: [401] },
  { name: "storage: list adapters as a curator", path: A, auth: false, headers: CURATOR, expect: [403] },
  { name: "storage: the built-in adapter", path: `${A}/${BUILT_IN}`, expect: [200] },
  { name: "storage: an adapter in capitals", path: `${A}/${REPLICA.toUpperCase()}`, expect: [200] },
  { name: "storage: an unknown adapter", path: `${A}/${UNKNOWN}`, expect: [404] },
  { name: "storage: an adapter id that is not a UUID", path: `${A}/local`, expect: [400] },
  { name: "storage: an adapter id with dots", path: `${A}/..%2F..%2Fetc`, expect: [400, 404] },
  { name: "storage: a huge adapter id", path: `${A}/${"a".repeat(5000)}`, expect: [400] },
  {
    name: "storage: an adapter as a curator",
    path: `${A}/${BUILT_IN}`,
    auth: false,
    headers: CURATOR,
    expect: [403],
  },

  // Adapters: add.
  ...adapterBodies.map(([name, body, expect]) =>
    write("POST", `add an adapter with ${name}`, A, body, expect),
  ),
  write("POST", "add an adapter as a curator", A, '{"name":"Junk","type":"S3"}', [403], {
    headers: { ...JSON_TYPE, ...CURATOR },
    auth: false,
  }),
  write("POST", "add an adapter without a token", A, '{"name":"Junk","type":"S3"}', [401], { auth: false }),
  write(
    "POST",
    "add an adapter with an id in the path",
    `${A}/${UNKNOWN}`,
    '{"name":"Junk","type":"S3"}',
    [404, 405],
  ),

  // Adapters: update.
  ...adapterBodies
    .filter(([name]) => !["an empty object", "no type", "the name of an existing adapter"].includes(name))
    .map(([name, body, expect]) =>
      write("PUT", `update an adapter with ${name}`, `${A}/${COLD}`, body, expect),
    ),
  write("PUT", "update an adapter with nothing to change", `${A}/${COLD}`, "{}", [400]),
  write(
    "PUT",
    "update an adapter with only read-only fields",
    `${A}/${COLD}`,
    `{"id":"${COLD}","builtIn":false}`,
    [400],
  ),
  write(
    "PUT",
    "update an adapter with another's id",
    `${A}/${COLD}`,
    `{"id":"${REPLICA}","name":"Junk"}`,
    [400],
  ),
  write(
    "PUT",
    "rename an adapter to another's name",
    `${A}/${COLD}`,
    '{"name":"local content store"}',
    [409],
  ),
  write(
    "PUT",
    "update an adapter to the values it has",
    `${A}/${BUILT_IN}`,
    '{"name":"Local content store","enabled":true}',
    [200],
  ),
  write("PUT", "change the built-in adapter's type", `${A}/${BUILT_IN}`, '{"type":"S3"}', [409]),
  write("PUT", "disable the built-in adapter", `${A}/${BUILT_IN}`, '{"enabled":false}', [409]),
  write(
    "PUT",
    "give the built-in adapter settings",
    `${A}/${BUILT_IN}`,
    '{"settings":{"root":"/tmp"}}',
    [409],
  ),
  write("PUT", "disable an adapter the policy uses", `${A}/${REPLICA}`, '{"enabled":false}', [409]),
  write("PUT", "update an unknown adapter", `${A}/${UNKNOWN}`, '{"name":"Junk"}', [404]),
  write("PUT", "update a non-UUID adapter", `${A}/local`, '{"name":"Junk"}', [400]),
  write("PUT", "update an adapter as a curator", `${A}/${COLD}`, '{"name":"Junk"}', [403], {
    headers: { ...JSON_TYPE, ...CURATOR },
    auth: false,
  }),
  write("PUT", "update the adapter list", A, '{"name":"Junk"}', [404, 405]),

  // Adapters: remove.
  { name: "storage: remove the built-in adapter", method: "DELETE", path: `${A}/${BUILT_IN}`, expect: [409] },
  {
    name: "storage: remove an adapter the policy uses",
    method: "DELETE",
    path: `${A}/${REPLICA}`,
    expect: [409],
  },
  { name: "storage: remove an unknown adapter", method: "DELETE", path: `${A}/${UNKNOWN}`, expect: [404] },
  { name: "storage: remove a non-UUID adapter", method: "DELETE", path: `${A}/*`, expect: [400] },
  {
    name: "storage: remove an adapter as a curator",
    method: "DELETE",
    path: `${A}/${COLD}`,
    auth: false,
    headers: CURATOR,
    expect: [403],
  },
  {
    name: "storage: remove an adapter without a token",
    method: "DELETE",
    path: `${A}/${COLD}`,
    auth: false,
    expect: [401],
  },
  { name: "storage: remove every adapter", method: "DELETE", path: A, expect: [404, 405] },

  // Storage policy (Settings API).
  { name: "storage: the storage policy", path: P, expect: [200] },
  { name: "storage: the storage policy without a token", path: P, auth: false, expect: [401] },
  ...policyBodies.map(([name, body, expect]) => write("PUT", `apply a policy with ${name}`, P, body, expect)),
  write("PUT", "apply a policy as a curator", P, `{"name":"Junk","adapters":["${BUILT_IN}"]}`, [403], {
    headers: { ...JSON_TYPE, ...CURATOR },
    auth: false,
  }),
  write("PUT", "apply a policy without a token", P, `{"name":"Junk","adapters":["${BUILT_IN}"]}`, [401], {
    auth: false,
  }),
  write("POST", "POST a policy", P, `{"name":"Junk","adapters":["${BUILT_IN}"]}`, [404, 405]),
  { name: "storage: DELETE the policy", method: "DELETE", path: P, expect: [404, 405] },
  {
    name: "storage: an unknown storage setting",
    path: "/api/settings/storage/config/policies",
    expect: [404],
  },

  // Entitlements.
  { name: "storage: the edition", path: `${EN}/edition`, expect: [200] },
  { name: "storage: the edition without a token", path: `${EN}/edition`, auth: false, expect: [401] },
  {
    name: "storage: the edition with a junk token",
    path: `${EN}/edition`,
    auth: false,
    headers: { "Preservica-Access-Token": "x".repeat(4000) },
    expect: [401],
  },
  { name: "storage: the limits", path: `${EN}/limits`, expect: [200] },
  {
    name: "storage: the limits as a curator",
    path: `${EN}/limits`,
    auth: false,
    headers: CURATOR,
    expect: [200],
  },
  { name: "storage: the limits without a token", path: `${EN}/limits`, auth: false, expect: [401] },
  write("PUT", "change the edition", `${EN}/edition`, '{"edition":"Enterprise"}', [404, 405]),
  write("POST", "raise the limits", `${EN}/limits`, '{"STORAGE":null}', [404, 405]),
  { name: "storage: an unknown entitlement", path: `${EN}/features`, expect: [404] },

  // Storage locations of a bitstream (Entity API).
  { name: "storage: storage locations", path: LOC, expect: [200] },
  {
    name: "storage: storage locations, versioned",
    path: LOC.replace("/api/entity/", "/api/entity/v7.0/"),
    expect: [200],
  },
  { name: "storage: storage locations without a token", path: LOC, auth: false, expect: [401] },
  {
    name: "storage: storage locations of bitstream 0",
    path: LOC.replace("bitstreams/1", "bitstreams/0"),
    expect: [400],
  },
  {
    name: "storage: storage locations of bitstream 99",
    path: LOC.replace("bitstreams/1", "bitstreams/99"),
    expect: [404],
  },
  {
    name: "storage: storage locations of generation -1",
    path: LOC.replace("generations/1", "generations/-1"),
    expect: [400],
  },
  {
    name: "storage: storage locations of generation 99",
    path: LOC.replace("generations/1", "generations/99"),
    expect: [404],
  },
  {
    name: "storage: storage locations of a huge bitstream number",
    path: LOC.replace("bitstreams/1", `bitstreams/${"9".repeat(400)}`),
    expect: [400],
  },
  {
    name: "storage: storage locations of a non-UUID object",
    path: LOC.replace("{co}", "not-a-ref"),
    expect: [404],
  },
  {
    name: "storage: storage locations of an unknown object",
    path: LOC.replace("{co}", UNKNOWN),
    expect: [404],
  },
  { name: "storage: storage locations of an asset's ref", path: LOC.replace("{co}", "{io}"), expect: [404] },
  write("POST", "POST storage locations", LOC, "<StorageLocation/>", [404, 405]),
  { name: "storage: DELETE storage locations", method: "DELETE", path: LOC, expect: [404, 405] },
];

/** A curator's token: signed in, without the administrator role. */
export async function fixtures(ctx: FixtureContext): Promise<Record<string, string>> {
  const r = await fetch(`${ctx.url}/api/accesstoken/login`, {
    method: "POST",
    body: new URLSearchParams({ username: "curator", password: "curator-demo-pw" }),
  });
  if (r.status !== 200) throw new Error(`storage fixtures: curator login ${r.status}`);
  return { curatorToken: ((await r.json()) as { token: string }).token };
}
