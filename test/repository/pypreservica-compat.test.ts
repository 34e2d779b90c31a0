import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { addFragment, insertEntity } from "../../repository/store/entities/write.js";
import { authed, login, startTestRepository } from "../helpers/repository.js";
import { arr, ENTITY_NS, getXml, XIP_NS } from "./entity-xml.js";

/**
 * Wire facts the real Python client, pyPreservica 3.4.4, depends on, found by running it against this
 * service. Each test names what the client does with the fact and what breaks without it.
 */

const E = "/api/entity";

interface Service {
  repo: RunningRepository;
  get: ReturnType<typeof authed>;
  folder: string;
  asset: string;
}

/** A service with one root folder holding one asset, and a manager's token. */
async function startService(apiVersion: string): Promise<Service> {
  const repo = await startTestRepository({ apiVersion });
  const db = repo.svc.db;
  const folder = insertEntity(db, { type: "SO", title: "Harbour records", securityTag: "open" }).ref;
  const asset = insertEntity(db, {
    type: "IO",
    title: "Minute book",
    securityTag: "open",
    parentRef: folder,
  }).ref;
  const get = authed(repo.url, (await login(repo.url, "manager")).token);
  return { repo, get, folder, asset };
}

describe("namespaces of a service speaking a version before 6.2", () => {
  // pyPreservica reads <CurrentVersion>, and for 6.0 and 6.1 looks up every element as
  // {http://preservica.com/XIP/v6.0}… and {http://preservica.com/EntityAPI/v6.0}…: namespaces were only
  // versioned per release from 6.2 on. A v6.1 namespace made it find no Child (children() crashed on
  // a missing TotalResults) and no xip:Ref (folder()/asset() crashed with IndexError).
  let old: Service;
  beforeAll(async () => {
    old = await startService("6.1");
  });
  afterAll(async () => {
    await old?.repo.close();
  });

  it("reports 6.1.0 and answers in the v6.0 EntityAPI and XIP namespaces", async () => {
    const version = await old.get(`${E}/versiondetails/version`);
    expect(await version.text()).toContain("<CurrentVersion>6.1.0</CurrentVersion>");

    for (const path of [
      `/structural-objects/${old.folder}`,
      "/root/children",
      `/information-objects/${old.asset}`,
    ]) {
      const reply = await getXml(old.get, `${E}${path}`);
      expect(reply.ns.entity, path).toBe(ENTITY_NS("6.0"));
      expect(reply.ns.xip, path).toBe(XIP_NS("6.0"));
    }
    const children = await getXml(old.get, `${E}/root/children`);
    expect(arr(children.root.Children.Child).map((c) => c["@ref"])).toEqual([old.folder]);
    expect(children.root.Paging.TotalResults).toBe("1");
  });

  it("gives the XIP fields of indexed-fields the same v6.0 namespace", async () => {
    const res = await old.get("/api/content/indexed-fields");
    const body = (await res.json()) as { value: { shortKey: string; uri: string }[] };
    expect(body.value.find((f) => f.shortKey === "xip.title")?.uri).toBe(XIP_NS("6.0"));
  });
});

let current: Service;
beforeAll(async () => {
  current = await startService("7.7");
});
afterAll(async () => {
  await current?.repo.close();
});

describe("versioned paths before 6.2 on a current service", () => {
  it("answers /v6.0 and /v6.1 in the v6.0 namespaces, /v6.2 in its own, keeping each prefix in URLs", async () => {
    for (const [prefix, ns] of [
      ["/v6.0", "6.0"],
      ["/v6.1", "6.0"],
      ["/v6.2", "6.2"],
    ] as const) {
      const reply = await getXml(current.get, `${E}${prefix}/structural-objects/${current.folder}`);
      expect(reply.ns.entity, prefix).toBe(ENTITY_NS(ns));
      expect(reply.ns.xip, prefix).toBe(XIP_NS(ns));
      expect(reply.root.AdditionalInformation.Self).toBe(
        `${current.repo.url}${E}${prefix}/structural-objects/${current.folder}`,
      );
    }
  });
});

describe("Content API search without a metadata parameter", () => {
  // search_index_filter_list() with no filters sends no `metadata` key, pairs objectIds with metadata
  // rows (zip), and asks again from start=len(rows) until it has totalHits rows: a `metadata` list
  // shorter than objectIds would make it ask for the same page forever.

  it("still returns one (empty) metadata row per object id", async () => {
    const res = await current.get("/api/content/search", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ q: '{ "q":  "%",  "fields":  [  ] }', start: "0", max: "1" }),
    });
    expect(res.status).toBe(200);
    const { value } = (await res.json()) as {
      value: { objectIds: string[]; totalHits: number; metadata: unknown[][] };
    };
    expect(value.totalHits).toBe(2);
    expect(value.objectIds).toHaveLength(1);
    expect(value.metadata).toEqual([[]]);
  });
});

describe("metadata documents stored with a DOCTYPE", () => {
  // metadata() parses the whole MetadataResponse and returns the first element inside xip:Content. The
  // DOCTYPE cannot be inlined; dropping it used to leave references to the entities it declared, so the
  // reply was not well-formed XML and every XML client failed on it (ParseError: undefined entity).
  const fragmentReply = async (content: string) => {
    const mref = addFragment(current.repo.svc.db, current.asset, "urn:example:doctype", content);
    const res = await current.get(`${E}/information-objects/${current.asset}/metadata/${mref}`);
    expect(res.status).toBe(200);
    return res.text();
  };

  it("inlines the document with the text entities its DOCTYPE declared expanded", async () => {
    const body = await fragmentReply(
      `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY co "Smith 'n' Co"><!ENTITY yr '1871'>]><r a="&yr;">&co; &amp; sons, &yr;<![CDATA[&co;]]></r>`,
    );
    expect(body).toContain(
      `<xip:Content><r xmlns="" a="1871">Smith &apos;n&apos; Co &amp; sons, 1871<![CDATA[&co;]]></r></xip:Content>`,
    );
  });

  it("carries a document whose references cannot be resolved as escaped text, keeping the reply well-formed", async () => {
    for (const content of [
      `<!DOCTYPE r SYSTEM "r.dtd"><r>&external;</r>`,
      `<r>non&nbsp;breaking</r>`,
      `<!DOCTYPE r [<!ENTITY tag "<b>markup</b>">]><r>&tag;</r>`,
    ]) {
      const body = await fragmentReply(content);
      expect(body, content).not.toMatch(/&(external|nbsp|tag);/);
      expect(body, content).toMatch(/<xip:Content>&lt;(!DOCTYPE )?r/);
    }
  });
});
