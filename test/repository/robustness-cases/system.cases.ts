import type { Case } from "./case.js";

/**
 * Junk for the Administration and Management API's settings (`/api/admin/thumbnail-policy`,
 * `system-properties`, `notify-updates`, `cmis-transform`), the Admin API's schemas, documents and
 * transforms, and the Authentication Management API (`/api/auth-management`). Every write here is sent
 * by the manager (an administrator), so each must be refused for its junk alone; notify-updates, which
 * has no body to be wrong, is only sent without a token.
 */

const JSON_TYPE = { "Content-Type": "application/json" };
const XML_TYPE = { "Content-Type": "application/xml;charset=UTF-8" };
const DEEP = `${"[".repeat(5000)}${"]".repeat(5000)}`;
const HUGE = "x".repeat(300_000);
const DOCTYPE = '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>';
const BILLION = `<!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><l>&b;</l>`;
const XSD_NO_TARGET =
  '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="a"/></xs:schema>';
const XSD_OAI_DC =
  '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="http://www.openarchives.org/OAI/2.0/oai_dc/"/>';
const BUILT_IN = {
  schema: "5d3f0c1e8a9b4c7d9e2f1a0b3c4d5e61",
  document: "6e4a1d2f9b0c4d8e8f3a2b1c4d5e6f72",
  transform: "7f5b2e3a0c1d4e9f9a4b3c2d5e6f7a83",
};
const MD = "urn:oasis:names:tc:SAML:2.0:metadata";

const put = (
  name: string,
  path: string,
  body: string,
  expect: number[],
  extra: Partial<Case> = {},
): Case => ({
  name,
  method: "PUT",
  path,
  headers: JSON_TYPE,
  body,
  expect,
  ...extra,
});
const post = (name: string, path: string, body: string, expect: number[], headers = XML_TYPE): Case => ({
  name,
  method: "POST",
  path,
  headers,
  body,
  expect,
});

function xmlStoreCases(kind: "schemas" | "documents" | "transforms", id: string, query: string): Case[] {
  const P = `/api/admin/${kind}`;
  return [
    { name: `${kind}: list`, path: P, expect: [200] },
    { name: `${kind}: list without a token`, path: P, auth: false, expect: [401] },
    { name: `${kind}: built-in`, path: `${P}/${id}`, expect: [200] },
    { name: `${kind}: built-in content`, path: `${P}/${id}/content`, expect: [200] },
    { name: `${kind}: unknown id`, path: `${P}/ffffffffffffffffffffffffffffffff`, expect: [404] },
    { name: `${kind}: content of a dotted id`, path: `${P}/..%2F..%2Fetc/content`, expect: [404] },
    { name: `${kind}: huge id`, path: `${P}/${"a".repeat(5000)}`, expect: [404] },
    {
      name: `${kind}: delete unknown`,
      method: "DELETE",
      path: `${P}/ffffffffffffffffffffffffffffffff`,
      expect: [404],
    },
    {
      name: `${kind}: delete without a token`,
      method: "DELETE",
      path: `${P}/${id}`,
      auth: false,
      expect: [401],
    },
    {
      name: `${kind}: PUT is not a method here`,
      method: "PUT",
      path: `${P}/${id}`,
      body: "<x/>",
      expect: [404, 405],
    },
    post(`${kind}: empty body`, `${P}?${query}`, "", [400]),
    post(`${kind}: not XML`, `${P}?${query}`, "not xml at all", [400]),
    post(`${kind}: DOCTYPE with an external entity`, `${P}?${query}`, DOCTYPE, [400]),
    post(`${kind}: entity expansion`, `${P}?${query}`, BILLION, [400]),
    post(`${kind}: two roots`, `${P}?${query}`, "<a/><b/>", [400]),
    post(`${kind}: control character`, `${P}?${query}`, "<a>\u0001</a>", [400]),
    post(`${kind}: deep nesting`, `${P}?${query}`, `${"<a>".repeat(5000)}${"</a>".repeat(5000)}`, [400]),
    post(`${kind}: no name`, P, "<a/>", [400]),
    post(`${kind}: name twice`, `${P}?${query}&name=again`, "<a/>", [400]),
    post(
      `${kind}: huge name`,
      `${P}?${query.replace(/name=[^&]*/, `name=${"n".repeat(5000)}`)}`,
      "<a/>",
      [400],
    ),
    post(`${kind}: name with a NUL`, `${P}?${query.replace(/name=[^&]*/, "name=a%00b")}`, "<a/>", [400]),
    post(`${kind}: huge body`, `${P}?${query}`, `<a>${HUGE}</a>`.repeat(4), [400, 413]),
    post(`${kind}: without a token`, `${P}?${query}`, "<a/>", [401]),
  ].map((c) => (c.name.endsWith("without a token") ? { ...c, auth: false } : c));
}

export const CASES: Case[] = [
  ...xmlStoreCases("schemas", BUILT_IN.schema, "name=Junk&description=d&originalName=j.xsd"),
  post("schemas: XSD without targetNamespace", "/api/admin/schemas?name=J", XSD_NO_TARGET, [400]),
  post("schemas: a document, not an XSD", "/api/admin/schemas?name=J", "<x:a xmlns:x='urn:x'/>", [400]),
  post("schemas: a URI that exists already", "/api/admin/schemas?name=J", XSD_OAI_DC, [409]),
  ...xmlStoreCases("documents", BUILT_IN.document, "name=Junk&type=MetadataTemplate"),
  post("documents: unknown type", "/api/admin/documents?name=J&type=Nonsense", "<a/>", [400]),
  post("documents: no type", "/api/admin/documents?name=J", "<a/>", [400]),
  ...xmlStoreCases("transforms", BUILT_IN.transform, "name=Junk&from=urn:a&to=urn:b&purpose=view"),
  post("transforms: not XSLT", "/api/admin/transforms?name=J&purpose=view", "<a/>", [400]),
  post("transforms: unknown purpose", "/api/admin/transforms?name=J&purpose=%00", "<a/>", [400]),
  post("transforms: no purpose", "/api/admin/transforms?name=J", "<a/>", [400]),

  // Thumbnail policy.
  { name: "thumbnail policy: read", path: "/api/admin/thumbnail-policy", expect: [200] },
  {
    name: "thumbnail policy: read without a token",
    path: "/api/admin/thumbnail-policy",
    auth: false,
    expect: [401],
  },
  put("thumbnail policy: empty body", "/api/admin/thumbnail-policy", "", [400]),
  put("thumbnail policy: not JSON", "/api/admin/thumbnail-policy", "{enabled:", [400]),
  put("thumbnail policy: an array", "/api/admin/thumbnail-policy", "[]", [400]),
  put("thumbnail policy: deep JSON", "/api/admin/thumbnail-policy", DEEP, [400]),
  put("thumbnail policy: unknown field", "/api/admin/thumbnail-policy", '{"size": 3}', [400]),
  put("thumbnail policy: negative width", "/api/admin/thumbnail-policy", '{"maxWidth": -1}', [400]),
  put("thumbnail policy: huge width", "/api/admin/thumbnail-policy", '{"maxWidth": 1e300}', [400]),
  put("thumbnail policy: boolean as number", "/api/admin/thumbnail-policy", '{"enabled": 1}', [400]),
  put("thumbnail policy: huge body", "/api/admin/thumbnail-policy", `{"x": "${HUGE.repeat(4)}"}`, [400, 413]),
  put("thumbnail policy: without a token", "/api/admin/thumbnail-policy", '{"maxWidth": 64}', [401], {
    auth: false,
  }),
  {
    name: "thumbnail policy: DELETE",
    method: "DELETE",
    path: "/api/admin/thumbnail-policy",
    expect: [404, 405],
  },

  // System properties.
  { name: "system properties: list", path: "/api/admin/system-properties", expect: [200] },
  { name: "system properties: one", path: "/api/admin/system-properties/system.name", expect: [200] },
  { name: "system properties: unknown", path: "/api/admin/system-properties/no.such", expect: [404] },
  { name: "system properties: bad name", path: "/api/admin/system-properties/..%2Fetc", expect: [400, 404] },
  {
    name: "system properties: huge name",
    path: `/api/admin/system-properties/${"p".repeat(5000)}`,
    expect: [400],
  },
  {
    name: "system properties: without a token",
    path: "/api/admin/system-properties",
    auth: false,
    expect: [401],
  },
  put("system property: no value", "/api/admin/system-properties/junk.prop", "{}", [400]),
  put("system property: number value", "/api/admin/system-properties/junk.prop", '{"value": 5}', [400]),
  put(
    "system property: control character",
    "/api/admin/system-properties/junk.prop",
    '{"value": "a\\u0000b"}',
    [400],
  ),
  put(
    "system property: huge value",
    "/api/admin/system-properties/junk.prop",
    `{"value": "${"v".repeat(5000)}"}`,
    [400],
  ),
  put(
    "system property: unknown field",
    "/api/admin/system-properties/junk.prop",
    '{"value": "a", "x": 1}',
    [400],
  ),
  put("system property: not JSON", "/api/admin/system-properties/junk.prop", "value=a", [400]),
  put("system property: deep JSON", "/api/admin/system-properties/junk.prop", DEEP, [400]),
  put("system property: bad name", "/api/admin/system-properties/bad%20name", '{"value": "a"}', [400]),
  put("system property: NUL in the name", "/api/admin/system-properties/a%00b", '{"value": "a"}', [400]),
  put("system property: without a token", "/api/admin/system-properties/junk.prop", '{"value": "a"}', [401], {
    auth: false,
  }),
  {
    name: "system property: delete a built-in",
    method: "DELETE",
    path: "/api/admin/system-properties/system.name",
    expect: [409],
  },
  {
    name: "system property: delete unknown",
    method: "DELETE",
    path: "/api/admin/system-properties/no.such",
    expect: [404],
  },
  {
    name: "system property: delete bad name",
    method: "DELETE",
    path: "/api/admin/system-properties/%00",
    expect: [400],
  },
  {
    name: "system property: delete without a token",
    method: "DELETE",
    path: "/api/admin/system-properties/system.name",
    auth: false,
    expect: [401],
  },

  // notify-updates changes state whenever it is allowed: only refusals here.
  {
    name: "notify-updates: without a token",
    method: "POST",
    path: "/api/admin/notify-updates",
    auth: false,
    expect: [401],
  },
  { name: "notify-updates: GET", path: "/api/admin/notify-updates", expect: [404, 405] },

  // CMIS transform.
  { name: "cmis transform: read", path: "/api/admin/cmis-transform", expect: [200] },
  put(
    "cmis transform: unknown DC element",
    "/api/admin/cmis-transform",
    '{"titleField": "oai_dc.nonsense"}',
    [400],
  ),
  put(
    "cmis transform: prefix, not a namespace",
    "/api/admin/cmis-transform",
    '{"titleField": "dc:title"}',
    [400],
  ),
  put("cmis transform: number", "/api/admin/cmis-transform", '{"descriptionField": 7}', [400]),
  put(
    "cmis transform: huge Clark name",
    "/api/admin/cmis-transform",
    `{"titleField": "{${"u".repeat(5000)}}a"}`,
    [400],
  ),
  put("cmis transform: unknown field", "/api/admin/cmis-transform", '{"title": "oai_dc.title"}', [400]),
  put("cmis transform: not JSON", "/api/admin/cmis-transform", "<x/>", [400]),
  put("cmis transform: null", "/api/admin/cmis-transform", "null", [400]),
  put("cmis transform: without a token", "/api/admin/cmis-transform", '{"titleField": "xip.title"}', [401], {
    auth: false,
  }),

  // Authentication Management API.
  { name: "auth configuration: read", path: "/api/auth-management/auth/configuration", expect: [200] },
  {
    name: "auth configuration: without a token",
    path: "/api/auth-management/auth/configuration",
    auth: false,
    expect: [401],
  },
  put("auth configuration: empty", "/api/auth-management/auth/configuration", "", [400]),
  put("auth configuration: missing field", "/api/auth-management/auth/configuration", "{}", [400]),
  put(
    "auth configuration: zero",
    "/api/auth-management/auth/configuration",
    '{"maxSessionLifetimeMins": 0}',
    [400],
  ),
  put(
    "auth configuration: negative",
    "/api/auth-management/auth/configuration",
    '{"maxSessionLifetimeMins": -5}',
    [400],
  ),
  put(
    "auth configuration: fraction",
    "/api/auth-management/auth/configuration",
    '{"maxSessionLifetimeMins": 1.5}',
    [400],
  ),
  put(
    "auth configuration: huge",
    "/api/auth-management/auth/configuration",
    '{"maxSessionLifetimeMins": 1e20}',
    [400],
  ),
  put(
    "auth configuration: text",
    "/api/auth-management/auth/configuration",
    '{"maxSessionLifetimeMins": "lots"}',
    [400],
  ),
  put(
    "auth configuration: unknown field",
    "/api/auth-management/auth/configuration",
    '{"maxSessionLifetimeMins": 60, "samlEnabled": true}',
    [400],
  ),
  put("auth configuration: deep JSON", "/api/auth-management/auth/configuration", DEEP, [400]),
  put("auth configuration: XML", "/api/auth-management/auth/configuration", "<AuthConfigProxy/>", [400]),
  put(
    "auth configuration: without a token",
    "/api/auth-management/auth/configuration",
    '{"maxSessionLifetimeMins": 1}',
    [401],
    { auth: false },
  ),
  {
    name: "idp metadata: GET with a URL",
    path: "/api/auth-management/idp-metadata?url=http://169.254.169.254/",
    expect: [400],
    message: /no outbound requests/,
  },
  { name: "idp metadata: GET", path: "/api/auth-management/idp-metadata", expect: [400] },
  post(
    "idp metadata: a URL as the body",
    "/api/auth-management/idp-metadata",
    "http://127.0.0.1:22/",
    [400],
    { "Content-Type": "text/plain" },
  ),
  post(
    "idp metadata: a URL parameter",
    "/api/auth-management/idp-metadata?url=file:///etc/passwd",
    "",
    [400],
  ),
  post("idp metadata: empty", "/api/auth-management/idp-metadata", "", [400]),
  post("idp metadata: DOCTYPE", "/api/auth-management/idp-metadata", DOCTYPE, [400]),
  post("idp metadata: entity expansion", "/api/auth-management/idp-metadata", BILLION, [400]),
  post("idp metadata: not metadata", "/api/auth-management/idp-metadata", "<a/>", [400]),
  post(
    "idp metadata: no IdP",
    "/api/auth-management/idp-metadata",
    `<md:EntityDescriptor xmlns:md="${MD}" entityID="e"/>`,
    [400],
  ),
  post(
    "idp metadata: no entityID",
    "/api/auth-management/idp-metadata",
    `<md:EntityDescriptor xmlns:md="${MD}"><md:IDPSSODescriptor><md:SingleSignOnService Location="x"/></md:IDPSSODescriptor></md:EntityDescriptor>`,
    [400],
  ),
  post(
    "idp metadata: junk certificate",
    "/api/auth-management/idp-metadata",
    `<md:EntityDescriptor xmlns:md="${MD}" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="e"><md:IDPSSODescriptor><md:KeyDescriptor><ds:X509Certificate>%%%</ds:X509Certificate></md:KeyDescriptor><md:SingleSignOnService Location="x"/></md:IDPSSODescriptor></md:EntityDescriptor>`,
    [400],
  ),
  post(
    "idp metadata: deep nesting",
    "/api/auth-management/idp-metadata",
    `${"<a>".repeat(5000)}${"</a>".repeat(5000)}`,
    [400],
  ),
  {
    ...post("idp metadata: without a token", "/api/auth-management/idp-metadata", "<a/>", [401]),
    auth: false,
  },
];
