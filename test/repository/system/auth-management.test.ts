import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { authed, type LoginResult, login, startTestRepository } from "../../helpers/repository.js";
import { storeHash } from "../writes/store-hash.js";
import { IDP_CERT_SHA256, IDP_METADATA, MD_NS } from "./idp-fixture.js";

/**
 * The Authentication Management API over HTTP: the session lifetime it sets is what the Authentication API
 * enforces (refreshes included), and IdP metadata is read from a posted document, never fetched.
 */

const BASE = "/api/auth-management";
const CONFIG = `${BASE}/auth/configuration`;
const MIN = 60_000;
let now = Date.parse("2025-03-01T09:00:00Z");
let repo: RunningRepository;

beforeAll(async () => {
  // Access tokens live 2 minutes; the start-up session lifetime is 8 hours until an administrator sets one.
  repo = await startTestRepository({ now: () => now, tokenTtlMs: 2 * MIN });
});
afterAll(async () => {
  await repo?.close();
});

const json = { "Content-Type": "application/json" };

async function putConfig(token: string, body: unknown) {
  return fetch(`${repo.url}${CONFIG}`, {
    method: "PUT",
    headers: { "Preservica-Access-Token": token, ...json },
    body: JSON.stringify(body),
  });
}

async function refresh(r: LoginResult) {
  return fetch(`${repo.url}/api/accesstoken/refresh`, {
    method: "POST",
    headers: { "Preservica-Access-Token": r.token },
    body: new URLSearchParams({ refreshToken: r["refresh-token"] }),
  });
}

function configEvents() {
  return repo.svc.db
    .prepare(
      "SELECT username, category, command_type AS commandType, subject, details FROM config_events WHERE category = 'AUTHENTICATION' ORDER BY id",
    )
    .all() as { username: string; category: string; commandType: string; subject: string; details: string }[];
}

describe("GET/PUT /auth/configuration", () => {
  it("answers the start-up lifetime to anyone signed in, and needs a token", async () => {
    const reader = await login(repo.url, "reader");
    const res = await authed(repo.url, reader.token)(CONFIG);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, version: 1, value: { maxSessionLifetimeMins: 480 } });
    expect((await fetch(`${repo.url}${CONFIG}`)).status).toBe(401);
  });

  it("refuses a change from a non-administrator with 403 and changes nothing", async () => {
    const before = storeHash(repo.svc.db);
    for (const who of ["curator", "reader"] as const) {
      const res = await putConfig((await login(repo.url, who)).token, { maxSessionLifetimeMins: 5 });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { message: string }).message).toMatch(/administrators/);
    }
    expect(storeHash(repo.svc.db)).toBe(before);
  });

  it("refuses bad values with 400 saying what to send, changing nothing", async () => {
    const { token } = await login(repo.url, "manager");
    const before = storeHash(repo.svc.db);
    for (const body of [
      {},
      { maxSessionLifetimeMins: 0 },
      { maxSessionLifetimeMins: 2.5 },
      { maxSessionLifetimeMins: "x" },
      { maxSessionLifetimeMins: 10, other: 1 },
      [10],
    ]) {
      const res = await putConfig(token, body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toMatch(
        /maxSessionLifetimeMins|Unknown field|JSON object/,
      );
    }
    expect(storeHash(repo.svc.db)).toBe(before);
  });

  it("ends a session that keeps refreshing once maxSessionLifetimeMins have passed since its login", async () => {
    const admin = await login(repo.url, "manager");
    const res = await putConfig(admin.token, { maxSessionLifetimeMins: 5 });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, version: 1, value: { maxSessionLifetimeMins: 5 } });
    expect(configEvents().at(-1)).toMatchObject({
      username: "manager",
      category: "AUTHENTICATION",
      commandType: "UPDATE",
      subject: "auth.configuration",
    });
    expect(JSON.parse(configEvents().at(-1)?.details ?? "{}")).toEqual({
      before: null,
      after: { maxSessionLifetimeMins: 5 },
    });

    const start = now;
    let session = await login(repo.url, "reader");
    expect(session.validFor).toBe(2);
    // Refresh every 90 s, always before the 2-minute token expires: fine until the 5 minutes are up.
    for (let i = 1; i <= 3; i++) {
      now = start + i * 90_000;
      const r = await refresh(session);
      expect(r.status).toBe(200);
      session = (await r.json()) as LoginResult;
    }
    // Refreshed at 4.5 min: the new token lives to the session's end (5 min), not 2 more minutes.
    expect(session.validFor).toBeCloseTo(0.5);
    now = start + 4.9 * MIN;
    expect((await authed(repo.url, session.token)(CONFIG)).status).toBe(200);
    now = start + 5 * MIN;
    expect((await authed(repo.url, session.token)(CONFIG)).status).toBe(401);
    const late = await refresh(session);
    expect(late.status).toBe(401);
    expect(((await late.json()) as { message: string }).message).toMatch(/maximum lifetime/);
    // A new login starts a new session.
    expect((await authed(repo.url, (await login(repo.url, "reader")).token)(CONFIG)).status).toBe(200);
  });

  it("ends sessions already older than a newly lowered lifetime at once", async () => {
    const admin = await login(repo.url, "manager");
    expect((await putConfig(admin.token, { maxSessionLifetimeMins: 60 })).status).toBe(200);
    const start = now;
    const reader = await login(repo.url, "reader");
    now = start + 1.5 * MIN;
    const admin2 = await login(repo.url, "manager");
    // The reader's session is 1.5 minutes old; the new administrator session is new.
    expect((await putConfig(admin2.token, { maxSessionLifetimeMins: 1 })).status).toBe(200);
    expect((await authed(repo.url, reader.token)(CONFIG)).status).toBe(401);
    expect((await refresh(reader)).status).toBe(401);
    expect((await authed(repo.url, admin2.token)(CONFIG)).status).toBe(200);
    // Back to a long lifetime for the tests after this one.
    expect((await putConfig(admin2.token, { maxSessionLifetimeMins: 480 })).status).toBe(200);
    expect(configEvents().map((e) => JSON.parse(e.details).after.maxSessionLifetimeMins)).toEqual([
      5, 60, 1, 480,
    ]);
  });
});

describe("/idp-metadata", () => {
  const post = async (token: string, body: string, query = "", contentType = "application/xml") =>
    fetch(`${repo.url}${BASE}/idp-metadata${query}`, {
      method: "POST",
      headers: { "Preservica-Access-Token": token, "Content-Type": contentType },
      body,
    });

  it("reads a posted SAML metadata document without saving anything", async () => {
    const { token } = await login(repo.url, "manager");
    const before = storeHash(repo.svc.db);
    const res = await post(token, IDP_METADATA);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { value: { saved: boolean; entities: Record<string, unknown>[] } };
    expect(body.value.saved).toBe(false);
    expect(body.value.entities).toEqual([
      {
        entityId: "https://idp.example.org/saml",
        validUntil: "2030-01-01T00:00:00Z",
        singleSignOnServices: [
          {
            binding: "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect",
            location: "https://idp.example.org/sso",
          },
          {
            binding: "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST",
            location: "https://idp.example.org/sso/post",
          },
        ],
        singleLogoutServices: [
          {
            binding: "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect",
            location: "https://idp.example.org/slo",
          },
        ],
        nameIdFormats: ["urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress"],
        wantAuthnRequestsSigned: true,
        certificates: [
          expect.objectContaining({
            use: "signing",
            subject: "CN=idp.example.org",
            sha256Fingerprint: IDP_CERT_SHA256,
          }),
        ],
      },
    ]);
    expect(storeHash(repo.svc.db)).toBe(before);
  });

  it("reads the identity providers of an EntitiesDescriptor", async () => {
    const { token } = await login(repo.url, "manager");
    const inner = IDP_METADATA.replace(/^<\?xml[^>]*>\s*/, "");
    const group = `<md:EntitiesDescriptor xmlns:md="${MD_NS}">${inner}<md:EntityDescriptor entityID="https://sp.example.org"><md:SPSSODescriptor protocolSupportEnumeration="x"/></md:EntityDescriptor></md:EntitiesDescriptor>`;
    const res = await post(token, group);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { value: { entities: { entityId: string }[] } };
    expect(body.value.entities.map((e) => e.entityId)).toEqual(["https://idp.example.org/saml"]);
  });

  it("refuses a URL with a message saying this service fetches nothing", async () => {
    const { token } = await login(repo.url, "manager");
    const get = await authed(
      repo.url,
      token,
    )(`${BASE}/idp-metadata?url=${encodeURIComponent("https://idp.example.org/metadata")}`);
    const cases = [
      get,
      await post(token, "https://idp.example.org/metadata", "", "text/plain"),
      await post(token, "", "?url=https://idp.example.org/metadata"),
      await post(token, '{"url": "https://idp.example.org/metadata"}', "", "application/json"),
      await post(token, "url=https%3A%2F%2Fidp.example.org", "", "application/x-www-form-urlencoded"),
    ];
    for (const res of cases) {
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toMatch(
        /makes no outbound requests.*POST it/,
      );
    }
  });

  it("refuses unsafe or unusable documents with 400, and non-administrators with 403", async () => {
    const { token } = await login(repo.url, "manager");
    const bad: [string, RegExp][] = [
      [
        `<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>${IDP_METADATA.replace(/^<\?xml[^>]*>\s*/, "")}`,
        /DOCTYPE/,
      ],
      ["<md:EntityDescriptor", /not well-formed/],
      ['<x:y xmlns:x="urn:other"/>', /not SAML 2.0 metadata/],
      [
        `<md:EntityDescriptor xmlns:md="${MD_NS}" entityID="https://sp"><md:SPSSODescriptor/></md:EntityDescriptor>`,
        /no identity provider/,
      ],
      [
        IDP_METADATA.replace(/<ds:X509Certificate>[^<]*/, "<ds:X509Certificate>bm90IGEgY2VydA=="),
        /not a base64 X.509/,
      ],
      [IDP_METADATA.replaceAll(/<md:SingleSignOnService[^>]*>/g, ""), /no SingleSignOnService/],
    ];
    for (const [body, message] of bad) {
      const res = await post(token, body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toMatch(message);
    }
    const curator = await login(repo.url, "curator");
    expect((await post(curator.token, IDP_METADATA)).status).toBe(403);
    expect(
      (await fetch(`${repo.url}${BASE}/idp-metadata`, { method: "POST", body: IDP_METADATA })).status,
    ).toBe(401);
  });
});
