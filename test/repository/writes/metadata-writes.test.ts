import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { findFragment } from "../../../repository/store/entities/read.js";
import { addFragment, insertEntity } from "../../../repository/store/entities/write.js";
import { startTestRepository } from "../../helpers/repository.js";
import { arr, ENTITY_NS, getXml, parseXml, text, XIP_NS } from "../entity-xml.js";
import {
  contentSearch,
  expectRefused,
  expectTrace,
  instantNow,
  LONG_AGO,
  sendXml,
  signIn,
  type Users,
} from "./write-helpers.js";

/**
 * Descriptive metadata writes over real HTTP: add, replace and remove fragments in the shapes real
 * clients send (ElementTree's ns0:/ns1: prefixes declared on the container, a container carrying
 * xmlns="<schema>", a stray space in end tags), with the search index, Dublin Core filters and facets
 * following at once, and every refusal leaving the store unchanged.
 */

const XIP = XIP_NS("7.7");
const DC = "http://purl.org/dc/elements/1.1/";
const OAI_DC = "http://www.openarchives.org/OAI/2.0/oai_dc/";

let repo: RunningRepository;
let u: Users;
const fx = {} as { folder: string; asset: string; other: string; otherFragment: string };

beforeAll(async () => {
  repo = await startTestRepository();
  const db = repo.svc.db;
  db.transaction(() => {
    fx.folder = insertEntity(db, {
      type: "SO",
      title: "Estate papers",
      securityTag: "open",
      created: LONG_AGO,
    }).ref;
    fx.asset = insertEntity(db, {
      type: "IO",
      title: "Survey of the estate",
      securityTag: "open",
      parentRef: fx.folder,
      created: LONG_AGO,
    }).ref;
    fx.other = insertEntity(db, {
      type: "IO",
      title: "Another survey",
      securityTag: "open",
      parentRef: fx.folder,
      created: LONG_AGO,
    }).ref;
    fx.otherFragment = addFragment(db, fx.other, DC, `<dc xmlns="${DC}"><title>x</title></dc>`, {
      date: LONG_AGO,
    });
  })();
  u = await signIn(repo);
});

afterAll(async () => {
  await repo?.close();
});

/**
 * What pyPreservica's add_metadata sends for an oai_dc document: ElementTree declares the document's
 * namespaces on the container with prefixes of its own choosing, so the document relies on them.
 */
function elementTreeContainer(entity: string, creator: string, mref?: string): string {
  const ref = mref ? `<xip:Ref>${mref}</xip:Ref>` : "";
  return `<xip:MetadataContainer xmlns:xip="${XIP}" xmlns:ns0="${OAI_DC}" xmlns:ns1="${DC}" schemaUri="${OAI_DC}">${ref}<xip:Entity>${entity}</xip:Entity><xip:Content><ns0:dc><ns1:title>Estate survey</ns1:title><ns1:creator>${creator}</ns1:creator></ns0:dc></xip:Content></xip:MetadataContainer >`;
}

function creatorFacet(v: { facets: { name: string; terms: { value: string; count: number }[] }[] }) {
  return Object.fromEntries(
    (v.facets.find((f) => f.name === "oai_dc.creator")?.terms ?? []).map((t) => [t.value, t.count]),
  );
}

describe("add, replace and remove a fragment", () => {
  it("adds a fragment sent with ElementTree's prefixes; the entity, search and facets see it at once", async () => {
    const since = instantNow();
    const res = await sendXml(
      u.curator,
      "POST",
      `/api/entity/information-objects/${fx.asset}/metadata`,
      elementTreeContainer(fx.asset, "Thomas Yeoman"),
    );
    const reply = parseXml(await res.text());
    expect(res.status, reply.text).toBe(200);
    expect(reply.rootName).toBe("MetadataResponse");
    const container = reply.root.MetadataContainer;
    expect(container["@schemaUri"]).toBe(OAI_DC);
    expect(text(container.Entity)).toBe(fx.asset);
    const mref = text(container.Ref);
    expect(text(container.Content.dc.creator)).toBe("Thomas Yeoman");

    // Stored standalone: the prefixes keep the namespaces the container declared for them.
    const stored = findFragment(repo.svc.db, mref)?.content ?? "";
    expect(stored).toContain(`xmlns:ns0="${OAI_DC}"`);
    expect(stored).toContain(`xmlns:ns1="${DC}"`);
    expect(stored).not.toContain("MetadataContainer");

    const entity = await getXml(u.reader, `/api/entity/information-objects/${fx.asset}`);
    const fragments = arr(entity.root.AdditionalInformation.Metadata.Fragment);
    expect(fragments.map((f: { "@schema": string }) => f["@schema"])).toEqual([OAI_DC]);
    expect(text(fragments[0])).toMatch(new RegExp(`/information-objects/${fx.asset}/metadata/${mref}$`));
    const fetched = await getXml(u.reader, `/api/entity/information-objects/${fx.asset}/metadata/${mref}`);
    expect(fetched.prefixed["xip:MetadataContainer"]["xip:Content"]["ns0:dc"]["ns1:creator"]).toBe(
      "Thomas Yeoman",
    );

    await expectTrace(u.manager, "information-objects", fx.asset, since, {
      commandType: "AddMetadata",
      eventType: "Modified",
      user: "curator",
    });
    expect((await contentSearch(u.reader, { q: "yeoman" })).objectIds).toEqual([`sdb:IO|${fx.asset}`]);
    const facets = await contentSearch(u.reader, { q: "%", facets: ["oai_dc.creator"] });
    expect(creatorFacet(facets)).toEqual({ "Thomas Yeoman": 1 });
  });

  it("replaces a fragment (PUT with Ref) and removes it (DELETE), the index following each", async () => {
    const mref = text(
      parseXml(
        await (
          await sendXml(
            u.curator,
            "POST",
            `/api/entity/structural-objects/${fx.folder}/metadata`,
            elementTreeContainer(fx.folder, "Anne Lister"),
          )
        ).text(),
      ).root.MetadataContainer.Ref,
    );
    const url = `/api/entity/structural-objects/${fx.folder}/metadata/${mref}`;
    let since = instantNow();
    const put = await sendXml(u.curator, "PUT", url, elementTreeContainer(fx.folder, "John Carr", mref));
    const reply = parseXml(await put.text());
    expect(put.status, reply.text).toBe(200);
    expect(text(reply.root.MetadataContainer.Ref)).toBe(mref);
    expect(text(reply.root.MetadataContainer.Content.dc.creator)).toBe("John Carr");
    await expectTrace(u.manager, "structural-objects", fx.folder, since, {
      commandType: "UpdateMetadata",
      eventType: "Modified",
      user: "curator",
    });
    expect((await contentSearch(u.reader, { q: "carr" })).objectIds).toEqual([`sdb:SO|${fx.folder}`]);
    expect((await contentSearch(u.reader, { q: "lister" })).objectIds).toEqual([]);
    const byCreator = await contentSearch(u.reader, {
      q: "%",
      fields: [{ name: "oai_dc.creator", values: ["John Carr"] }],
    });
    expect(byCreator.objectIds).toEqual([`sdb:SO|${fx.folder}`]);

    since = instantNow();
    const del = await u.curator(url, { method: "DELETE" });
    expect(del.status).toBe(204);
    await expectTrace(u.manager, "structural-objects", fx.folder, since, {
      commandType: "DeleteMetadata",
      eventType: "Modified",
      user: "curator",
    });
    expect((await u.reader(url)).status).toBe(404);
    expect((await contentSearch(u.reader, { q: "carr" })).objectIds).toEqual([]);
    const entity = await getXml(u.reader, `/api/entity/structural-objects/${fx.folder}`);
    expect(arr(entity.root.AdditionalInformation.Metadata?.Fragment)).toEqual([]);
  });

  it("takes add_metadata_as_fragment's container (xmlns=schema, unprefixed document, whitespace)", async () => {
    const schema = "https://example.org/schemas/accession";
    const body = `<xip:MetadataContainer xmlns="${schema}" schemaUri="${schema}" xmlns:xip="${XIP}">
            <xip:Entity>${fx.asset}</xip:Entity>
                <xip:Content>
                   <accession><number>A-17</number><note>kept &lt;as text&gt;</note></accession>
                </xip:Content>
            </xip:MetadataContainer>`;
    const res = await sendXml(
      u.curator,
      "POST",
      `/api/entity/information-objects/${fx.asset}/metadata`,
      body,
    );
    const reply = parseXml(await res.text());
    expect(res.status, reply.text).toBe(200);
    const mref = text(reply.root.MetadataContainer.Ref);
    const stored = findFragment(repo.svc.db, mref)?.content;
    expect(stored).toBe(
      `<accession xmlns="${schema}"><number>A-17</number><note>kept &lt;as text&gt;</note></accession>`,
    );
    expect((await contentSearch(u.reader, { q: "a-17" })).objectIds).toEqual([`sdb:IO|${fx.asset}`]);
  });

  it("takes the schema from the document's namespace when the container has no schemaUri", async () => {
    const body = `<MetadataContainer xmlns="${XIP_NS("6.0")}"><Content><record xmlns="urn:example:local"><id>7</id></record></Content></MetadataContainer>`;
    const res = await sendXml(
      u.curator,
      "POST",
      `/api/entity/information-objects/${fx.other}/metadata`,
      body,
    );
    const reply = parseXml(await res.text());
    expect(res.status, reply.text).toBe(200);
    expect(reply.root.MetadataContainer["@schemaUri"]).toBe("urn:example:local");
  });

  it("answers in the namespaces of a versioned path", async () => {
    const res = await sendXml(
      u.curator,
      "POST",
      `/api/entity/v6.2/information-objects/${fx.other}/metadata`,
      elementTreeContainer(fx.other, "Versioned"),
    );
    const reply = parseXml(await res.text());
    expect(res.status, reply.text).toBe(200);
    expect(reply.ns).toEqual({ entity: ENTITY_NS("6.2"), xip: XIP_NS("6.2") });
    expect(text(reply.root.AdditionalInformation.Self)).toContain("/api/entity/v6.2/information-objects/");
  });
});

describe("refusals", () => {
  const post =
    (who: Users["curator"], body: string, ref = fx.asset) =>
    () =>
      sendXml(who, "POST", `/api/entity/information-objects/${ref}/metadata`, body);
  const container = (content: string, attrs = "") =>
    `<xip:MetadataContainer xmlns:xip="${XIP}"${attrs}><xip:Entity>${fx.asset}</xip:Entity><xip:Content>${content}</xip:Content></xip:MetadataContainer>`;

  it("refuses malformed containers with a message that says what to fix, changing nothing", async () => {
    const cases: [string, string, number, RegExp][] = [
      [
        "not XML",
        "<xip:MetadataContainer",
        400,
        /not well-formed XML.*send XML such as <xip:MetadataContainer/,
      ],
      [
        "a DOCTYPE",
        `<!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]>${container("<a xmlns='urn:a'>&x;</a>")}`,
        400,
        /DOCTYPE declarations are not accepted/,
      ],
      [
        "a document without a schema",
        container("<accession><n>1</n></accession>"),
        400,
        /has no schema: give the container a schemaUri/,
      ],
      [
        "two documents",
        container(`<a xmlns="urn:a"/><b xmlns="urn:b"/>`),
        400,
        /exactly one XML element.*holds 2/,
      ],
      ["no document", container("  "), 400, /exactly one XML element.*holds 0/],
      ["text beside the document", container(`loose <a xmlns="urn:a"/>`), 400, /holds 1 and text/],
      [
        "no Content",
        `<xip:MetadataContainer xmlns:xip="${XIP}" schemaUri="urn:a"><xip:Entity>${fx.asset}</xip:Entity></xip:MetadataContainer>`,
        400,
        /<MetadataContainer> has no <Content>/,
      ],
      [
        "another entity",
        container(`<a xmlns="urn:a"/>`).replace(fx.asset, fx.other),
        400,
        /<Entity> .* differs from the entity in the request path/,
      ],
      [
        "the wrong root",
        `<Identifier xmlns="${XIP}"><Type>t</Type></Identifier>`,
        400,
        /root element is <Identifier>.*expected <MetadataContainer>/,
      ],
      ["an empty body", "", 400, /request body is empty/],
    ];
    for (const [what, body, status, message] of cases) {
      await expectRefused(repo, post(u.curator, body), status, message).catch((err: Error) => {
        throw new Error(`${what}: ${err.message}`);
      });
    }
  });

  it("refuses the reader, unknown entities and fragments, and a Ref that differs from the path", async () => {
    const ok = container(`<a xmlns="urn:a"/>`);
    await expectRefused(repo, post(u.reader, ok), 403, /reader lacks the Update Metadata permission/);
    await expectRefused(repo, post(u.curator, ok, randomUUID()), 404, /not found/);
    await expectRefused(repo, post(u.curator, ok, "nope"), 404, /is not a UUID/);

    const mine = addFragment(repo.svc.db, fx.asset, "urn:a", `<a xmlns="urn:a"/>`);
    const url = (mref: string) => `/api/entity/information-objects/${fx.asset}/metadata/${mref}`;
    await expectRefused(
      repo,
      () => sendXml(u.curator, "PUT", url(fx.otherFragment), ok),
      404,
      /fragment .* not found on entity/,
    );
    await expectRefused(
      repo,
      () => sendXml(u.curator, "PUT", url(randomUUID()), ok),
      404,
      /not found on entity/,
    );
    await expectRefused(
      repo,
      () =>
        sendXml(
          u.curator,
          "PUT",
          url(mine),
          ok.replace("<xip:Entity>", `<xip:Ref>${fx.otherFragment}</xip:Ref><xip:Entity>`),
        ),
      400,
      /<Ref> .* differs from the fragment in the request path/,
    );
    await expectRefused(repo, () => sendXml(u.reader, "PUT", url(mine), ok), 403, /Update Metadata/);
    await expectRefused(repo, () => u.reader(url(mine), { method: "DELETE" }), 403, /Update Metadata/);
    await expectRefused(
      repo,
      () => u.curator(url(fx.otherFragment), { method: "DELETE" }),
      404,
      /not found on entity/,
    );
    await expectRefused(repo, () => u.curator(url("x"), { method: "DELETE" }), 404, /is not a UUID/);
  });
});
