import { X509Certificate } from "node:crypto";
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../context.js";
import { requireToken } from "../http/auth-middleware.js";
import { requestText } from "../http/request-text.js";
import { ADMINISTRATORS, requireRole } from "../http/roles.js";
import { childrenNamed, parseXmlBody, type XmlNode } from "../http/xml-body.js";
import { authConfiguration } from "../store/system/read.js";
import { putAuthConfiguration } from "../store/system/write.js";
import { type Ctx, changeBy, integerField, jsonObject, ok, onlyFields } from "./system-common.js";

/**
 * The Authentication Management API (`/api/auth-management`; Provisional in the real service too):
 * - `GET /auth/configuration`: the configuration (AuthConfigProxy) with `maxSessionLifetimeMins`, for anyone
 *   signed in; `PUT` sets it (administrators). The Authentication API enforces it: no token outlives its
 *   session's first login by more than that many minutes, refreshes included, and lowering it ends older
 *   sessions at once.
 * - `POST /idp-metadata`: reads a posted SAML 2.0 metadata document and answers what it describes (entity
 *   id, sign-on and logout endpoints, name id formats, signing certificates) without saving anything
 *   (administrators). The real service can also fetch metadata from a URL; this one makes no outbound
 *   requests, so a URL is refused with a message saying to post the document instead.
 */

export const MAX_SESSION_LIFETIME_MINS = 43_200; // 30 days
const CONFIG_EXAMPLE = '{"maxSessionLifetimeMins": 480}';
const MD_NS = "urn:oasis:names:tc:SAML:2.0:metadata";
const DS_NS = "http://www.w3.org/2000/09/xmldsig#";
const METADATA_EXAMPLE = `<md:EntityDescriptor xmlns:md="${MD_NS}" entityID="https://idp.example.org/saml"><md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">…</md:IDPSSODescriptor></md:EntityDescriptor>`;
const NO_FETCH =
  "This service makes no outbound requests, so it cannot fetch IdP metadata from a URL; download the metadata document yourself and POST it as the request body (Content-Type: application/xml)";

export function authManagementRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("/auth/*", requireToken);
  app.use("/idp-metadata", requireToken);

  app.get("/auth/configuration", (c) => ok(c, configuration(c)));
  app.put(
    "/auth/configuration",
    requireRole(ADMINISTRATORS, "change the authentication configuration"),
    async (c) => {
      const body = await jsonObject(c, CONFIG_EXAMPLE);
      onlyFields(body, ["maxSessionLifetimeMins"], CONFIG_EXAMPLE);
      const mins = integerField(body, "maxSessionLifetimeMins", 1, MAX_SESSION_LIFETIME_MINS);
      if (mins === undefined) {
        throw new HTTPException(400, {
          message: `maxSessionLifetimeMins is required; send ${CONFIG_EXAMPLE}`,
        });
      }
      const svc = c.get("svc");
      putAuthConfiguration(svc.db, mins, changeBy(c), svc.now());
      return ok(c, configuration(c));
    },
  );

  app.get("/idp-metadata", requireRole(ADMINISTRATORS, "read identity provider metadata"), (c) => {
    throw new HTTPException(400, {
      message:
        c.req.query("url") !== undefined
          ? NO_FETCH
          : `POST the IdP's SAML metadata document, such as ${METADATA_EXAMPLE}`,
    });
  });
  app.post("/idp-metadata", requireRole(ADMINISTRATORS, "read identity provider metadata"), async (c) => {
    if (c.req.query("url") !== undefined) throw new HTTPException(400, { message: NO_FETCH });
    const text = (await requestText(c.req)).trim();
    // A URL sent as the body, as a form field or as JSON: the fetch the real service would make.
    if (/^(?:https?|ftp|file):/i.test(text) || /^url=/i.test(text) || /^\{\s*"url"\s*:/i.test(text)) {
      throw new HTTPException(400, { message: NO_FETCH });
    }
    const root = parseXmlBody(text, METADATA_EXAMPLE);
    return ok(c, { saved: false, entities: describeMetadata(root) });
  });
  return app;
}

function configuration(c: Ctx) {
  const svc = c.get("svc");
  return authConfiguration(svc.db, svc.maxSessionLifetimeMins);
}

interface Endpoint {
  binding: string;
  location: string;
}
interface Certificate {
  use: string;
  subject: string;
  issuer: string;
  validFrom: string;
  validTo: string;
  sha256Fingerprint: string;
}
interface IdentityProvider {
  entityId: string;
  validUntil: string | null;
  singleSignOnServices: Endpoint[];
  singleLogoutServices: Endpoint[];
  nameIdFormats: string[];
  wantAuthnRequestsSigned: boolean;
  certificates: Certificate[];
}

function mdChildren(node: XmlNode, name: string): XmlNode[] {
  return childrenNamed(node, name).filter((n) => n.ns === MD_NS);
}

/** The identity providers an EntityDescriptor or EntitiesDescriptor describes; 400 when it describes none. */
function describeMetadata(root: XmlNode): IdentityProvider[] {
  if (root.ns !== MD_NS || (root.name !== "EntityDescriptor" && root.name !== "EntitiesDescriptor")) {
    throw new HTTPException(400, {
      message: `The body is not SAML 2.0 metadata (root EntityDescriptor or EntitiesDescriptor in ${MD_NS}); send the IdP's metadata document, such as ${METADATA_EXAMPLE}`,
    });
  }
  const entities = root.name === "EntityDescriptor" ? [root] : entityDescriptors(root);
  const idps: IdentityProvider[] = [];
  for (const e of entities) {
    for (const idp of mdChildren(e, "IDPSSODescriptor")) idps.push(describeIdp(e, idp));
  }
  if (idps.length === 0) {
    throw new HTTPException(400, {
      message:
        "The metadata describes no identity provider (no IDPSSODescriptor); send the identity provider's metadata, not a service provider's",
    });
  }
  return idps;
}

/** EntityDescriptors at any depth of nested EntitiesDescriptors (depth is bounded by the XML reader). */
function entityDescriptors(group: XmlNode): XmlNode[] {
  return [
    ...mdChildren(group, "EntityDescriptor"),
    ...mdChildren(group, "EntitiesDescriptor").flatMap(entityDescriptors),
  ];
}

function describeIdp(entity: XmlNode, idp: XmlNode): IdentityProvider {
  const entityId = entity.attrs.entityID?.trim();
  if (!entityId) {
    throw new HTTPException(400, {
      message: "An EntityDescriptor has no entityID attribute; the metadata needs one per entity",
    });
  }
  const endpoints = (name: string) =>
    mdChildren(idp, name).map((n) => ({ binding: n.attrs.Binding ?? "", location: n.attrs.Location ?? "" }));
  const sso = endpoints("SingleSignOnService");
  if (sso.length === 0 || sso.some((s) => !s.location)) {
    throw new HTTPException(400, {
      message: `The identity provider ${entityId.slice(0, 200)} has no SingleSignOnService with a Location; users could not sign in through it`,
    });
  }
  return {
    entityId,
    validUntil: entity.attrs.validUntil ?? null,
    singleSignOnServices: sso,
    singleLogoutServices: endpoints("SingleLogoutService"),
    nameIdFormats: mdChildren(idp, "NameIDFormat").map((n) => n.text.trim()),
    wantAuthnRequestsSigned: idp.attrs.WantAuthnRequestsSigned === "true",
    certificates: mdChildren(idp, "KeyDescriptor").flatMap((k) =>
      x509Texts(k).map((b64) => certificate(k.attrs.use ?? "signing and encryption", b64, entityId)),
    ),
  };
}

function x509Texts(node: XmlNode): string[] {
  const out: string[] = [];
  const walk = (n: XmlNode) => {
    if (n.ns === DS_NS && n.name === "X509Certificate") out.push(n.text);
    else for (const ch of n.children) walk(ch);
  };
  walk(node);
  return out;
}

function certificate(use: string, base64: string, entityId: string): Certificate {
  const compact = base64.replace(/\s+/g, "");
  try {
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) throw new Error("not base64");
    const cert = new X509Certificate(Buffer.from(compact, "base64"));
    return {
      use,
      subject: cert.subject,
      issuer: cert.issuer,
      validFrom: isoOrAsIs(cert.validFrom),
      validTo: isoOrAsIs(cert.validTo),
      sha256Fingerprint: cert.fingerprint256,
    };
  } catch {
    throw new HTTPException(400, {
      message: `A certificate of ${entityId.slice(0, 200)} is not a base64 X.509 certificate; check the X509Certificate elements of the metadata`,
    });
  }
}

/** OpenSSL's date text ("Jan  1 00:00:00 2030 GMT") as ISO 8601 when it parses, else as given. */
function isoOrAsIs(text: string): string {
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? text : new Date(ms).toISOString();
}
