import type { Body, Case } from "./case.js";
import { type Junk, spread, UNKNOWN_UUID, type XmlRoute, xmlJunk } from "./junk.js";
import {
  APPROVAL,
  ASSET,
  container,
  DC_DOC,
  DELETION,
  E,
  ENT7,
  el,
  FOLDER,
  FORM,
  JSON_TYPE,
  multipart,
  PHYSICAL,
  POLICY,
  RM,
  TYPES,
  XIP7,
  XML_TYPE,
} from "./wire.js";

/**
 * Entity API writes with an XML body. Each case is a request the route would take but for one thing wrong
 * with it, so a case the service let through would change the store: the check after each case names it,
 * and the final check fails. Every route gets the generic XML junk (junk.ts, `xmlJunk`) around what it
 * would accept, plus junk of its own.
 */

const XML_ROUTES: XmlRoute[] = [
  {
    method: "POST",
    path: `${E}/structural-objects`,
    root: "StructuralObject",
    ns: XIP7,
    inner: FOLDER,
    specific: [
      [
        "no Title",
        el("StructuralObject", XIP7, "<SecurityTag>open</SecurityTag><Parent>{so}</Parent>"),
        [400],
        /<Title> is missing/,
      ],
      [
        "blank Title",
        el("StructuralObject", XIP7, "<Title> </Title><SecurityTag>open</SecurityTag><Parent>{so}</Parent>"),
        [400],
        /<Title> is empty/,
      ],
      [
        "no SecurityTag",
        el("StructuralObject", XIP7, "<Title>x</Title><Parent>{so}</Parent>"),
        [400],
        /<SecurityTag> is missing/,
      ],
      [
        "unknown tag",
        el("StructuralObject", XIP7, "<Title>x</Title><SecurityTag>nope</SecurityTag><Parent>{so}</Parent>"),
        [400],
        /does not exist/,
      ],
      [
        "tag in the wrong case",
        el("StructuralObject", XIP7, "<Title>x</Title><SecurityTag>OPEN</SecurityTag><Parent>{so}</Parent>"),
        [400],
        /does not exist/,
      ],
      [
        "Ref not a UUID",
        el("StructuralObject", XIP7, `<Ref>x</Ref>${FOLDER}`),
        [400],
        /not an entity reference/,
      ],
      [
        "Ref in Latin-1",
        { latin1: el("StructuralObject", XIP7, `<Ref>caf\xe9</Ref>${FOLDER}`) },
        [400],
        /"café" is not an entity reference/,
      ],
      [
        "900 KB Ref",
        el("StructuralObject", XIP7, `<Ref>${"x".repeat(900_000)}</Ref>${FOLDER}`),
        [400],
        /not an entity reference/,
      ],
      ["Ref in use", el("StructuralObject", XIP7, `<Ref>{io}</Ref>${FOLDER}`), [409], /already in use/],
      [
        "Ref of a deleted folder",
        el("StructuralObject", XIP7, `<Ref>{binned}</Ref>${FOLDER}`),
        [409],
        /already in use/,
      ],
      [
        "Parent not a UUID",
        el("StructuralObject", XIP7, "<Title>x</Title><SecurityTag>open</SecurityTag><Parent>{so}x</Parent>"),
        [400],
        /not an entity reference/,
      ],
      [
        "unknown Parent",
        el(
          "StructuralObject",
          XIP7,
          `<Title>x</Title><SecurityTag>open</SecurityTag><Parent>${UNKNOWN_UUID}</Parent>`,
        ),
        [404],
        /not found/,
      ],
      [
        "deleted Parent",
        el(
          "StructuralObject",
          XIP7,
          "<Title>x</Title><SecurityTag>open</SecurityTag><Parent>{binned}</Parent>",
        ),
        [404],
        /not found/,
      ],
      [
        "asset as Parent",
        el("StructuralObject", XIP7, "<Title>x</Title><SecurityTag>open</SecurityTag><Parent>{io}</Parent>"),
        [400],
        /not a folder/,
      ],
      [
        "two objects in XIP",
        el(
          "XIP",
          XIP7,
          `<StructuralObject>${FOLDER}</StructuralObject><StructuralObject>${FOLDER}</StructuralObject>`,
        ),
        [400],
        /exactly one/,
      ],
      ["no namespace", `<StructuralObject>${FOLDER}</StructuralObject>`, [400], /no namespace/],
      [
        "another namespace",
        el("StructuralObject", "http://example.com/XIP/v7.7", FOLDER),
        [400],
        /example\.com/,
      ],
      ["an InformationObject", el("InformationObject", XIP7, FOLDER), [400], /InformationObject/],
      [
        "control character in the Title",
        el("StructuralObject", XIP7, FOLDER.replace("Junk", "Ju\u0007nk")),
        [400],
        /not allow/,
      ],
    ],
  },
  {
    method: "POST",
    path: `${E}/information-objects`,
    root: "XIP",
    ns: XIP7,
    inner: `<InformationObject>${ASSET}</InformationObject>${PHYSICAL}`,
    specific: [
      [
        "no Parent",
        el(
          "XIP",
          XIP7,
          `<InformationObject><Title>x</Title><SecurityTag>open</SecurityTag></InformationObject>`,
        ),
        [400],
        /created in a folder/,
      ],
      [
        "bare object without Parent",
        el("InformationObject", XIP7, "<Title>x</Title><SecurityTag>open</SecurityTag>"),
        [400],
        /created in a folder/,
      ],
      [
        "content object as Parent",
        el(
          "XIP",
          XIP7,
          `<InformationObject><Title>x</Title><SecurityTag>open</SecurityTag><Parent>{co}</Parent></InformationObject>`,
        ),
        [400],
        /not a folder/,
      ],
      [
        "Preservation representation",
        el(
          "XIP",
          XIP7,
          `<InformationObject>${ASSET}</InformationObject><Representation><Type>Preservation</Type></Representation>`,
        ),
        [400],
        /Preservation/,
      ],
      [
        "Representation without Type",
        el("XIP", XIP7, `<InformationObject>${ASSET}</InformationObject><Representation/>`),
        [400],
        /Physical/,
      ],
      [
        "with a ContentObject",
        el(
          "XIP",
          XIP7,
          `<InformationObject>${ASSET}</InformationObject><ContentObject><Title>x</Title></ContentObject>`,
        ),
        [400],
        /ingest/,
      ],
      [
        "with a Bitstream",
        el("XIP", XIP7, `<InformationObject>${ASSET}</InformationObject><Bitstream/>`),
        [400],
        /ingest/,
      ],
      [
        "two objects",
        el(
          "XIP",
          XIP7,
          `<InformationObject>${ASSET}</InformationObject><InformationObject>${ASSET}</InformationObject>`,
        ),
        [400],
        /exactly one/,
      ],
      ["no object", el("XIP", XIP7, PHYSICAL), [400], /exactly one/],
      [
        "a StructuralObject",
        el("XIP", XIP7, `<StructuralObject>${ASSET}</StructuralObject>`),
        [400],
        /exactly one/,
      ],
      [
        "Ref in use",
        el("XIP", XIP7, `<InformationObject><Ref>{so}</Ref>${ASSET}</InformationObject>`),
        [409],
        /already in use/,
      ],
    ],
  },
  ...TYPES.map(([ph, path, root]): XmlRoute => {
    const other = ph === "io" ? "so" : "io";
    return {
      method: "PUT",
      path: `${E}/${path}/{${ph}}`,
      root,
      ns: XIP7,
      inner: `<Ref>{${ph}}</Ref><Title>Junk title</Title>`,
      specific: [
        ["empty Title", el(root, XIP7, "<Title/><Description>x</Description>"), [400], /<Title> is empty/],
        [
          "Ref of another entity",
          el(root, XIP7, `<Ref>{${other}}</Ref><Title>Junk title</Title>`),
          [400],
          /differs/,
        ],
        [
          "Ref not a UUID",
          el(root, XIP7, "<Ref>nope</Ref><Title>Junk title</Title>"),
          [400],
          /not an entity reference/,
        ],
        [
          "900 KB Ref",
          el(root, XIP7, `<Ref>${"y".repeat(900_000)}</Ref><Title>Junk title</Title>`),
          [400],
          /not an entity reference/,
        ],
        [
          "root of another type",
          el(ph === "so" ? "InformationObject" : "StructuralObject", XIP7, "<Title>Junk title</Title>"),
          [400],
          /expected </,
        ],
        ["XIP without the object", el("XIP", XIP7, "<Title>Junk title</Title>"), [400], /exactly one/],
        [
          "Ref in Latin-1",
          { latin1: el(root, XIP7, "<Ref>r\xe9f</Ref><Title>Junk title</Title>") },
          [400],
          /"réf" is not an entity reference/,
        ],
      ],
    };
  }),
  ...TYPES.map(([ph, path]): XmlRoute => {
    const other = ph === "io" ? "so" : "io";
    return {
      method: "POST",
      path: `${E}/${path}/{${ph}}/metadata`,
      root: "MetadataContainer",
      ns: XIP7,
      inner: `<Entity>{${ph}}</Entity><Content>${DC_DOC}</Content>`,
      specific: [
        ["no Content", el("MetadataContainer", XIP7, `<Entity>{${ph}}</Entity>`), [400], /has no <Content>/],
        ["empty Content", el("MetadataContainer", XIP7, "<Content/>"), [400], /exactly one XML element/],
        [
          "two documents",
          el("MetadataContainer", XIP7, `<Content>${DC_DOC}${DC_DOC}</Content>`),
          [400],
          /holds 2/,
        ],
        [
          "text beside the document",
          el("MetadataContainer", XIP7, `<Content>x${DC_DOC}</Content>`),
          [400],
          /and text/,
        ],
        [
          "document without a schema",
          el("MetadataContainer", XIP7, '<Content><dc xmlns=""><title>x</title></dc></Content>'),
          [400],
          /no schema/,
        ],
        ["Entity of another entity", container(`{${other}}`), [400], /differs/],
        ["Entity not a UUID", container("{co}{co}"), [400], /not an entity reference/],
        [
          "undeclared prefix in the document",
          el("MetadataContainer", XIP7, "<Content><dc:dc><dc:title>x</dc:title></dc:dc></Content>"),
          [400],
          /prefix "dc:"/,
        ],
      ],
    };
  }),
  ...(
    [
      ["so", "structural-objects", "soMref"],
      ["io", "information-objects", "ioMref"],
      // Content objects have no fragments: pathJunk sends theirs junk and others' fragment refs.
    ] as const
  ).map(
    ([ph, path, mref]): XmlRoute => ({
      method: "PUT",
      path: `${E}/${path}/{${ph}}/metadata/{${mref}}`,
      root: "MetadataContainer",
      ns: XIP7,
      inner: `<Ref>{${mref}}</Ref><Entity>{${ph}}</Entity><Content>${DC_DOC}</Content>`,
      specific: [
        [
          "Ref of another fragment",
          container(`{${ph}}`, `<Ref>{${ph === "so" ? "ioMref" : "soMref"}}</Ref>`),
          [400],
          /differs from the fragment/,
        ],
        ["no Content", el("MetadataContainer", XIP7, `<Ref>{${mref}}</Ref>`), [400], /has no <Content>/],
      ],
    }),
  ),
  ...TYPES.map(
    ([ph, path]): XmlRoute => ({
      method: "POST",
      path: `${E}/${path}/{${ph}}/identifiers`,
      root: "Identifier",
      ns: XIP7,
      inner: "<Type>junk</Type><Value>J-1</Value>",
      specific: [
        ["no Type", el("Identifier", XIP7, "<Value>J-1</Value>"), [400], /<Type> is missing/],
        [
          "empty Value",
          el("Identifier", XIP7, "<Type>junk</Type><Value>  </Value>"),
          [400],
          /<Value> is empty/,
        ],
        [
          "Entity of another entity",
          el("Identifier", XIP7, `<Type>junk</Type><Value>J-1</Value><Entity>${UNKNOWN_UUID}</Entity>`),
          [400],
          /differs/,
        ],
        ["a Link", el("Link", XIP7, "<Type>junk</Type><Value>J-1</Value>"), [400], /expected <Identifier>/],
      ],
    }),
  ),
  ...TYPES.map(
    ([ph, path]): XmlRoute => ({
      method: "PUT",
      path: `${E}/${path}/{${ph}}/identifiers/{${ph}Id}`,
      root: "Identifier",
      ns: XIP7,
      inner: "<Type>junk</Type><Value>J-2</Value>",
      specific: [
        ["no Value", el("Identifier", XIP7, "<Type>junk</Type>"), [400], /<Value> is missing/],
        [
          "Entity not a UUID",
          el("Identifier", XIP7, "<Type>junk</Type><Value>J-2</Value><Entity>x</Entity>"),
          [400],
          /not an entity reference/,
        ],
      ],
    }),
  ),
  ...TYPES.map(([ph, path]): XmlRoute => {
    const to = ph === "so" ? "io" : "so";
    const link = (inner: string) => el("Link", XIP7, inner);
    return {
      method: "POST",
      path: `${E}/${path}/{${ph}}/links`,
      root: "Link",
      ns: XIP7,
      inner: `<Type>http://purl.org/dc/terms/requires</Type><ToEntity>{${to}}</ToEntity>`,
      specific: [
        ["no Type", link(`<ToEntity>{${to}}</ToEntity>`), [400], /<Type> is missing/],
        [
          "no ToEntity",
          link("<Type>http://purl.org/dc/terms/requires</Type>"),
          [400],
          /<ToEntity> is missing/,
        ],
        ["ToEntity itself", link(`<Type>x</Type><ToEntity>{${ph}}</ToEntity>`), [400], /the entity itself/],
        ["unknown ToEntity", link(`<Type>x</Type><ToEntity>${UNKNOWN_UUID}</ToEntity>`), [404], /not found/],
        ["deleted ToEntity", link("<Type>x</Type><ToEntity>{binned}</ToEntity>"), [404], /not found/],
        [
          "ToEntity not a UUID",
          link("<Type>x</Type><ToEntity>{so}{so}</ToEntity>"),
          [400],
          /not an entity reference/,
        ],
        [
          "FromEntity of another entity",
          link(`<Type>x</Type><FromEntity>${UNKNOWN_UUID}</FromEntity><ToEntity>{${to}}</ToEntity>`),
          [400],
          /differs/,
        ],
        ...(ph === "io"
          ? ([
              [
                "the same link again",
                link("<Type>http://purl.org/dc/terms/references</Type><ToEntity>{so}</ToEntity>"),
                [409],
                /already has/,
              ],
            ] as Junk[])
          : []),
      ],
    };
  }),
  ...(
    [
      ["so", "structural-objects"],
      ["io", "information-objects"],
    ] as const
  ).map(
    ([ph, path]): XmlRoute => ({
      method: "DELETE",
      path: `${E}/${path}/{${ph}}`,
      root: "DeletionAction",
      ns: ENT7,
      inner: DELETION,
      specific: [
        ["no Submission", el("DeletionAction", ENT7, "<Comment>junk</Comment>"), [400], /needs a Submission/],
        ["an Approval", el("DeletionAction", ENT7, APPROVAL), [400], /needs a Submission/],
        ["a RecoveryAction", el("RecoveryAction", ENT7, DELETION), [400], /must be DeletionAction/],
        ...(ph === "io"
          ? ([
              ["an asset under retention", el("DeletionAction", ENT7, DELETION), [409], /retention/i],
            ] as Junk[])
          : []),
      ],
    }),
  ),
  {
    method: "DELETE",
    path: `${E}/structural-objects/{pendingFolder}`,
    root: "DeletionAction",
    ns: ENT7,
    inner: DELETION,
    specific: [
      [
        "a folder already awaiting deletion",
        el("DeletionAction", ENT7, DELETION),
        [409],
        /awaiting approval/,
      ],
    ],
  },
  {
    method: "PUT",
    path: `${E}/actions/deletions/{pending}`,
    root: "DeletionAction",
    ns: ENT7,
    inner: APPROVAL,
    specific: [
      ["no Approval", el("DeletionAction", ENT7, DELETION), [400], /Approval\/Approved/],
      [
        "no Approved",
        el("DeletionAction", ENT7, "<Approval><Comment>x</Comment></Approval>"),
        [400],
        /Approval\/Approved/,
      ],
      [
        "Approved yes",
        el("DeletionAction", ENT7, "<Approval><Approved>yes</Approved></Approval>"),
        [400],
        /true or false/,
      ],
      [
        "Approved 900 KB",
        el("DeletionAction", ENT7, `<Approval><Approved>${"t".repeat(900_000)}</Approved></Approval>`),
        [400],
        /true or false/,
      ],
    ],
  },
  ...["recoveries", "recoveries/", "final-deletions", "final-deletions/"].map((kind): XmlRoute => {
    const root = kind.startsWith("recoveries") ? "RecoveryAction" : "FinalDeletionAction";
    const other = root === "RecoveryAction" ? "FinalDeletionAction" : "RecoveryAction";
    const body = (inner: string) => el(root, ENT7, inner);
    return {
      method: "POST",
      path: `${E}/actions/${kind}`,
      root,
      ns: ENT7,
      inner: "<Deletion>{done}</Deletion>",
      specific: [
        ["names nothing", body("<Comment>x</Comment>"), [400], /names no Deletion/],
        [
          `a valid ${other}`,
          el(other, ENT7, "<Deletion>{done}</Deletion>"),
          [400],
          new RegExp(`must be ${root}`),
        ],
        ["Deletion not a UUID", body("<Deletion>x</Deletion>"), [400], /not a deletion action id/],
        ["unknown Deletion", body(`<Deletion>${UNKNOWN_UUID}</Deletion>`), [404], /No deletion/],
        ["a pending Deletion", body("<Deletion>{pending}</Deletion>"), [409], /PENDING/],
        ["an entity ref as Deletion", body("<Deletion>{binned}</Deletion>"), [404], /No deletion/],
        ["a live Entity", body("<Entity>{io}</Entity>"), [409], /not in the recycle bin/],
        ["unknown Entity", body(`<Entity>${UNKNOWN_UUID}</Entity>`), [404], /not found/],
        ["Entity not a UUID", body("<Entity>{binned}x</Entity>"), [400], /not a UUID/],
        ["900 KB Entity", body(`<Entity>${"e".repeat(900_000)}</Entity>`), [400], /not a UUID/],
        [
          "a good Deletion and a live Entity",
          body("<Deletion>{done}</Deletion><Entity>{so}</Entity>"),
          [409],
          /not in the recycle bin/,
        ],
        [
          "a good Deletion and an unknown one",
          body(`<Deletion>{done}</Deletion><Deletion>${UNKNOWN_UUID}</Deletion>`),
          [404],
          /No deletion/,
        ],
        ["1,001 Entities", body("<Entity>{binned}</Entity>".repeat(1001)), [400], /at most 1000/],
      ],
    };
  }),
  {
    method: "POST",
    path: `${E}/retention-policies`,
    root: "RetentionPolicy",
    ns: RM,
    inner: POLICY,
    specific: [
      ["no Name", el("RetentionPolicy", RM, "<SecurityTag>open</SecurityTag>"), [400], /Name is required/],
      [
        "Name of 256 characters",
        el("RetentionPolicy", RM, `<Name>${"n".repeat(256)}</Name><SecurityTag>open</SecurityTag>`),
        [400],
        /longer than 255/,
      ],
      [
        "Name taken",
        el("RetentionPolicy", RM, "<Name>Junk fixture policy</Name><SecurityTag>open</SecurityTag>"),
        [409],
        /already exists/,
      ],
      [
        "no SecurityTag",
        el("RetentionPolicy", RM, "<Name>Junk policy</Name>"),
        [400],
        /SecurityTag is required/,
      ],
      [
        "unknown SecurityTag",
        el("RetentionPolicy", RM, "<Name>Junk policy</Name><SecurityTag>nope</SecurityTag>"),
        [400],
        /does not exist/,
      ],
      ...["0", "-1", "1.5", "1e3", "1000000", "seven", "9".repeat(300)].map(
        (p): Junk => [
          `Period ${p.slice(0, 12)}`,
          el(
            "RetentionPolicy",
            RM,
            `<Name>Junk policy</Name><SecurityTag>open</SecurityTag><Period>${p}</Period><PeriodUnit>YEARS</PeriodUnit>`,
          ),
          [400],
          /Period/,
        ],
      ),
      [
        "PeriodUnit FORTNIGHTS",
        el(
          "RetentionPolicy",
          RM,
          "<Name>Junk policy</Name><SecurityTag>open</SecurityTag><Period>7</Period><PeriodUnit>FORTNIGHTS</PeriodUnit>",
        ),
        [400],
        /PeriodUnit must be/,
      ],
      [
        "Period without PeriodUnit",
        el(
          "RetentionPolicy",
          RM,
          "<Name>Junk policy</Name><SecurityTag>open</SecurityTag><Period>7</Period>",
        ),
        [400],
        /PeriodUnit is required/,
      ],
      [
        "Assignable maybe",
        el("RetentionPolicy", RM, `${POLICY}<Assignable>maybe</Assignable>`),
        [400],
        /True or False/,
      ],
      [
        "Description over 10,000 characters",
        el("RetentionPolicy", RM, `${POLICY}<Description>${"d".repeat(10_001)}</Description>`),
        [400],
        /longer than 10000/,
      ],
      ["a RetentionAssignment", el("RetentionAssignment", RM, POLICY), [400], /not <RetentionPolicy>/],
    ],
  },
  {
    method: "PUT",
    path: `${E}/retention-policies/{policy}`,
    root: "RetentionPolicy",
    ns: RM,
    inner: "<Name>Junk fixture policy</Name><SecurityTag>closed</SecurityTag>",
    specific: [
      [
        "Ref of another policy",
        el(
          "RetentionPolicy",
          RM,
          "<Ref>{policy2}</Ref><Name>Junk fixture policy</Name><SecurityTag>closed</SecurityTag>",
        ),
        [400],
        /differs/,
      ],
      [
        "Name of another policy",
        el("RetentionPolicy", RM, "<Name>Junk fixture policy 2</Name><SecurityTag>closed</SecurityTag>"),
        [409],
        /already exists/,
      ],
      [
        "Period junk",
        el(
          "RetentionPolicy",
          RM,
          "<Name>Junk fixture policy</Name><SecurityTag>closed</SecurityTag><Period>x</Period><PeriodUnit>DAYS</PeriodUnit>",
        ),
        [400],
        /Period must be/,
      ],
    ],
  },
  {
    method: "POST",
    path: `${E}/information-objects/{io}/retention-assignments`,
    root: "RetentionAssignment",
    ns: RM,
    inner: "<RetentionPolicy>{spare}</RetentionPolicy>",
    specific: [
      ["no RetentionPolicy", el("RetentionAssignment", RM, "<Policy>{spare}</Policy>"), [400], /is required/],
      [
        "RetentionPolicy not a UUID",
        el("RetentionAssignment", RM, "<RetentionPolicy>{spare}x</RetentionPolicy>"),
        [400],
        /not a UUID/,
      ],
      [
        "900 KB RetentionPolicy",
        el("RetentionAssignment", RM, `<RetentionPolicy>${"p".repeat(900_000)}</RetentionPolicy>`),
        [400],
        /not a UUID/,
      ],
      [
        "unknown policy",
        el("RetentionAssignment", RM, `<RetentionPolicy>${UNKNOWN_UUID}</RetentionPolicy>`),
        [404],
        /not found/,
      ],
      [
        "policy already assigned",
        el("RetentionAssignment", RM, "<RetentionPolicy>{policy}</RetentionPolicy>"),
        [409],
        /already assigned/,
      ],
      [
        "policy not assignable",
        el("RetentionAssignment", RM, "<RetentionPolicy>{policy2}</RetentionPolicy>"),
        [409],
        /not assignable/,
      ],
      [
        "an entity as the policy",
        el("RetentionAssignment", RM, "<RetentionPolicy>{io}</RetentionPolicy>"),
        [404],
        /not found/,
      ],
    ],
  },
];

function xmlWriteJunk(): Case[] {
  const cases: Case[] = [];
  for (const [i, r] of XML_ROUTES.entries()) {
    const { always, shared } = xmlJunk(r.root, r.ns, r.inner);
    for (const [name, body, expectStatus, message] of [...always, ...spread(shared, i), ...r.specific]) {
      cases.push({
        name: `${r.method} ${r.path.slice(E.length)}: ${name}`,
        method: r.method,
        path: r.path,
        headers: XML_TYPE,
        body,
        expect: expectStatus,
        message,
      });
    }
    // The body in the type the Content-Type names, not XML: one kind per route, in turn. (The declared
    // type of an XML body is not checked: a right body under a wrong type is taken, as clients differ.)
    const doc = el(r.root, r.ns, r.inner);
    const typed: [string, Record<string, string>, Body][] = [
      ["JSON", JSON_TYPE, '{"Title":"Junk title"}'],
      ["a form", FORM, "Title=Junk+title&SecurityTag=open"],
      ["multipart", { "Content-Type": "multipart/form-data; boundary=xyz" }, multipart(Buffer.from(doc))],
      ["UTF-16", { "Content-Type": "application/xml; charset=utf-16" }, Buffer.from(doc, "utf16le")],
    ];
    const [kind, headers, body] = typed[i % typed.length] as [string, Record<string, string>, Body];
    cases.push({
      name: `${r.method} ${r.path.slice(E.length)}: ${kind} under its own Content-Type`,
      method: r.method,
      path: r.path,
      headers,
      body,
      expect: [400],
    });
    // The same through a versioned path: the sub-app is the same, its examples in that version's namespaces.
    cases.push({
      name: `${r.method} v6.0${r.path.slice(E.length)}: wrong root`,
      method: r.method,
      path: r.path.replace(E, `${E}/v6.0`),
      headers: XML_TYPE,
      body: el("Wrong", r.ns, r.inner),
      expect: [400],
    });
  }
  return cases;
}

export const CASES: Case[] = xmlWriteJunk();
