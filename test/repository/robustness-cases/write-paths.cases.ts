import type { Body, Case } from "./case.js";
import { spread, UNKNOWN_UUID } from "./junk.js";
import {
  APPROVAL,
  container,
  DC_DOC,
  DELETION,
  E,
  ENT7,
  el,
  OCTET,
  PNG,
  RM,
  TEXT_TYPE,
  TYPES,
  XIP7,
  XML_TYPE,
} from "./wire.js";

/**
 * Write routes: refs, ApiIds and fragment refs in the path, with a body the route would take
 */

/** Refs for write paths: a selection of BAD_REFS (the read junk covers the rest through the same helper). */
const WRITE_BAD_REFS = ["not-a-uuid", "%00", "..%2f..%2fetc%2fpasswd", "%C3%28", "{io}x", "x".repeat(5000)];
const BAD_API_IDS = ["a%20b", "%00", "a%2fb", "x".repeat(101), "%C3%28", "'%20OR%201%3D1"];

export function pathJunk(): Case[] {
  const cases: Case[] = [];
  const add = (
    name: string,
    method: string,
    path: string,
    expectStatus: number[],
    body?: Body,
    headers = XML_TYPE,
  ) => cases.push({ name, method, path, headers, body, expect: expectStatus });
  for (const [ph, path, root] of TYPES) {
    const others = TYPES.filter(([o]) => o !== ph).map(([o]) => o);
    const save = el(root, XIP7, "<Title>Junk title</Title>");
    const writes: [string, string, Body | undefined][] = [
      ["PUT", `${E}/${path}/{ref}`, save],
      ["POST", `${E}/${path}/{ref}/metadata`, el("MetadataContainer", XIP7, `<Content>${DC_DOC}</Content>`)],
      [
        "POST",
        `${E}/${path}/{ref}/identifiers`,
        el("Identifier", XIP7, "<Type>junk</Type><Value>J-3</Value>"),
      ],
      ["POST", `${E}/${path}/{ref}/links`, el("Link", XIP7, "<Type>junk</Type><ToEntity>{so}</ToEntity>")],
      ["PUT", `${E}/${path}/{ref}/parent-ref`, "@root@"],
      ["PUT", `${E}/${path}/{ref}/security-descriptor`, "closed"],
      ["DELETE", `${E}/${path}/{ref}`, el("DeletionAction", ENT7, DELETION)],
      [
        "POST",
        `${E}/${path}/{ref}/retention-assignments`,
        el("RetentionAssignment", RM, "<RetentionPolicy>{spare}</RetentionPolicy>"),
      ],
    ];
    if (ph !== "co")
      writes.push(
        ["PUT", `${E}/${path}/{ref}/preview`, PNG],
        ["DELETE", `${E}/${path}/{ref}/preview`, undefined],
      );
    for (const [j, [method, p, body]] of writes.entries()) {
      const headers = p.endsWith("preview")
        ? OCTET
        : p.endsWith("-ref") || p.endsWith("descriptor")
          ? TEXT_TYPE
          : XML_TYPE;
      const short = p.slice(E.length).replace(`/${path}/`, "/");
      for (const bad of spread(WRITE_BAD_REFS, ph === "so" ? 0 : j + 1)) {
        add(
          `${method} ${path} ${short} ref ${bad.slice(0, 16)}`,
          method,
          p.replace("{ref}", bad),
          [404],
          body,
          headers,
        );
      }
      add(
        `${method} ${path} ${short} unknown ref`,
        method,
        p.replace("{ref}", UNKNOWN_UUID),
        [404],
        body,
        headers,
      );
      add(
        `${method} ${path} ${short} deleted ref`,
        method,
        p.replace("{ref}", "{binned}"),
        [404],
        body,
        headers,
      );
      const other = others[j % others.length] as string;
      add(
        `${method} ${path} ${short} {${other}} as ref`,
        method,
        p.replace("{ref}", `{${other}}`),
        [404],
        body,
        headers,
      );
    }
    // Fragment refs and ApiIds: malformed, unknown, another entity's.
    const mine = ph === "so" ? "soMref" : "ioMref";
    const fragmentBody = container(`{${ph}}`);
    for (const method of ["PUT", "DELETE"]) {
      const body = method === "PUT" ? fragmentBody : undefined;
      for (const bad of ["not-a-uuid", "%00", "x".repeat(3000)]) {
        add(
          `${method} ${path} metadata/${bad.slice(0, 12)}`,
          method,
          `${E}/${path}/{${ph}}/metadata/${bad}`,
          [404],
          body,
        );
      }
      add(
        `${method} ${path} unknown fragment`,
        method,
        `${E}/${path}/{${ph}}/metadata/${UNKNOWN_UUID}`,
        [404],
        body,
      );
      const foreign = ph === "so" ? "ioMref" : "soMref";
      add(
        `${method} ${path} another entity's fragment`,
        method,
        `${E}/${path}/{${ph}}/metadata/{${foreign}}`,
        [404],
        body,
      );
      if (ph !== "co")
        add(
          `${method} ${path} the entity ref as fragment`,
          method,
          `${E}/${path}/{${ph}}/metadata/{${ph}}`,
          [404],
          body,
        );
      if (ph === "co")
        add(
          `${method} ${path} a fragment as the entity`,
          method,
          `${E}/${path}/{${mine}}/metadata/{${mine}}`,
          [404],
          body,
        );
    }
    const idBody = el("Identifier", XIP7, "<Type>junk</Type><Value>J-4</Value>");
    for (const [method, kind] of [
      ["GET", "identifiers"],
      ["PUT", "identifiers"],
      ["DELETE", "identifiers"],
      ["GET", "links"],
      ["DELETE", "links"],
    ] as const) {
      const body = method === "PUT" ? idBody : undefined;
      for (const bad of spread(BAD_API_IDS, kind === "identifiers" && ph === "io" ? 0 : method.length)) {
        add(
          `${method} ${path} ${kind}/${bad.slice(0, 12)}`,
          method,
          `${E}/${path}/{${ph}}/${kind}/${bad}`,
          [400],
          body,
        );
      }
      add(
        `${method} ${path} ${kind} unknown ApiId`,
        method,
        `${E}/${path}/{${ph}}/${kind}/deadbeef`,
        [404],
        body,
      );
      const foreign =
        kind === "identifiers" ? (ph === "io" ? "{soId}" : "{ioId}") : ph === "co" ? "{ioLink}" : "{soId}";
      add(
        `${method} ${path} ${kind} not the entity's`,
        method,
        `${E}/${path}/{${ph}}/${kind}/${foreign}`,
        [404],
        body,
      );
    }
    // Retention assignments belong to assets.
    if (ph !== "io") {
      add(`GET ${path} retention-assignments`, "GET", `${E}/${path}/{${ph}}/retention-assignments`, [400]);
      add(
        `POST ${path} retention-assignments`,
        "POST",
        `${E}/${path}/{${ph}}/retention-assignments`,
        [400],
        el("RetentionAssignment", RM, "<RetentionPolicy>{spare}</RetentionPolicy>"),
      );
      add(
        `DELETE ${path} retention-assignments`,
        "DELETE",
        `${E}/${path}/{${ph}}/retention-assignments/{assignment}`,
        [400],
      );
    }
  }
  for (const bad of [...WRITE_BAD_REFS, "x".repeat(200)]) {
    add(
      `DELETE assignment ${bad.slice(0, 12)}`,
      "DELETE",
      `${E}/information-objects/{io}/retention-assignments/${bad}`,
      [404],
    );
  }
  add(
    "DELETE assignment of another policy's ApiId form",
    "DELETE",
    `${E}/information-objects/{io}/retention-assignments/${UNKNOWN_UUID}`,
    [404],
  );
  add(
    "DELETE assignment on another asset",
    "DELETE",
    `${E}/information-objects/{otherIo}/retention-assignments/{assignment}`,
    [404],
  );
  add(
    "DELETE assignment of a policy not assignable",
    "DELETE",
    `${E}/information-objects/{io}/retention-assignments/{assignment2}`,
    [409],
  );
  add("DELETE preview of a folder without one", "DELETE", `${E}/structural-objects/{so}/preview`, [404]);
  add("DELETE preview of an asset without one", "DELETE", `${E}/information-objects/{io}/preview`, [404]);
  add("DELETE preview of a content object", "DELETE", `${E}/content-objects/{co}/preview`, [400]);
  add(
    "DELETE a deleted folder",
    "DELETE",
    `${E}/structural-objects/{binned}`,
    [404],
    el("DeletionAction", ENT7, DELETION),
  );
  // Policies and deletion actions by ref.
  const policyBody = el(
    "RetentionPolicy",
    RM,
    "<Name>Junk fixture policy</Name><SecurityTag>closed</SecurityTag>",
  );
  for (const [method, suffix, body, headers] of [
    ["GET", "", undefined, XML_TYPE],
    ["PUT", "", policyBody, XML_TYPE],
    ["PUT", "/assignable", "False", TEXT_TYPE],
    ["DELETE", "", undefined, XML_TYPE],
  ] as const) {
    for (const bad of spread(
      WRITE_BAD_REFS,
      method === "PUT" && suffix === "" ? 0 : suffix.length + method.length,
    )) {
      add(
        `${method} policy${suffix} ${bad.slice(0, 12)}`,
        method,
        `${E}/retention-policies/${bad}${suffix}`,
        [404],
        body,
        headers,
      );
    }
    add(
      `${method} policy${suffix} unknown`,
      method,
      `${E}/retention-policies/${UNKNOWN_UUID}${suffix}`,
      [404],
      body,
      headers,
    );
    add(
      `${method} policy${suffix} an entity ref`,
      method,
      `${E}/retention-policies/{io}${suffix}`,
      [404],
      body,
      headers,
    );
  }
  add("DELETE a policy in use", "DELETE", `${E}/retention-policies/{policy}`, [409]);
  add("DELETE a policy in use, not assignable", "DELETE", `${E}/retention-policies/{policy2}`, [409]);
  const approve = el("DeletionAction", ENT7, "<Approval><Approved>true</Approved></Approval>");
  for (const bad of WRITE_BAD_REFS) {
    add(`approve deletion ${bad.slice(0, 12)}`, "PUT", `${E}/actions/deletions/${bad}`, [404], approve);
  }
  add("approve an unknown deletion", "PUT", `${E}/actions/deletions/${UNKNOWN_UUID}`, [404], approve);
  add("approve an entity ref", "PUT", `${E}/actions/deletions/{io}`, [404], approve);
  add("approve a completed deletion", "PUT", `${E}/actions/deletions/{done}`, [409], approve);
  add(
    "reject a completed deletion",
    "PUT",
    `${E}/actions/deletions/{done}`,
    [409],
    el("DeletionAction", ENT7, APPROVAL),
  );
  add("approve through v7.7", "PUT", `${E}/v7.7/actions/deletions/{done}`, [409], approve);
  return cases;
}

export const CASES: Case[] = pathJunk();
