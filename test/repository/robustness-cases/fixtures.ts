import type { ServiceContext } from "../../../repository/context.js";
import type { RunningRepository } from "../../../repository/server.js";
import { addSecurityTag } from "../../../repository/store/auth.js";
import { login } from "../../helpers/repository.js";
import type { Fixtures } from "./case.js";
import { fill, target } from "./client.js";
import { EXPORT_OPTIONS, exportAction } from "./export.cases.js";
import { UNKNOWN_UUID } from "./junk.js";
import { START, startRequest } from "./operations.cases.js";
import { FIXTURE_KEY, ZIP_LIKE } from "./s3.cases.js";
import {
  E,
  ENT7,
  el,
  JSON_TYPE,
  M,
  md5,
  OCTET,
  R,
  RM,
  TEXT_TYPE,
  TYPES,
  WF,
  WF_NS,
  XIP7,
  XML_TYPE,
} from "./wire.js";

/**
 * Aims the client at `repo` and makes the placeholder values (target.fx): demo entities (so, io, co,
 * otherSo, otherIo), fragments (soMref, ioMref), an event, identifiers (soId, ioId, coId) and a link (ioLink,
 * from io to so), retention policies (policy and policy2 assigned to io as assignment and assignment2,
 * policy2 since made unassignable; spare unassigned), metadata groups (group, group2; groupColumn is a CSV
 * column of group) and forms (form of group; form2 of none), a folder awaiting deletion (pendingFolder,
 * deletion pending) and one in the recycle bin (binned, deletion done), the operations' fixtures
 * (operations.cases.ts), a finished export (exportDone), a report run (reportRun) and a multipart upload
 * with one part (upload, partEtag); the manager's token, the time for external auth (now) and a pending 2FA
 * continuation token of the `twofactor` user. Each area's own `fixtures` add theirs after these.
 */
export async function makeFixtures(repo: RunningRepository): Promise<void> {
  target.url = repo.url;
  const { db } = repo.svc;
  const one = (sql: string) => (db.prepare(sql).get() as { ref: string }).ref;
  const chain = db
    .prepare(
      `SELECT g.co_ref AS co, r.io_ref AS io FROM bitstreams b JOIN generations g ON g.id = b.generation_id AND g.idx = 1 AND b.idx = 1
       JOIN representation_objects ro ON ro.co_ref = g.co_ref JOIN representations r ON r.id = ro.representation_id AND r.type = 'Preservation' AND r.idx = 1
       JOIN entities e ON e.ref = r.io_ref JOIN entities ce ON ce.ref = g.co_ref
       WHERE e.security_tag = 'open' AND ce.security_tag = 'open' AND b.size > 100 LIMIT 1`,
    )
    .get() as { co: string; io: string };
  const io = chain.io;
  const twofactor = await fetch(`${repo.url}/api/accesstoken/login`, {
    method: "POST",
    body: new URLSearchParams({ username: "twofactor", password: "twofactor-demo-pw" }),
  });
  const fx: Fixtures = {
    token: (await login(repo.url, "manager")).token,
    so: one(
      "SELECT ref FROM entities WHERE type = 'SO' AND security_tag = 'open' AND parent_ref IS NULL ORDER BY id LIMIT 1",
    ),
    io,
    co: chain.co,
    soMref: one(
      "SELECT f.mref AS ref FROM metadata_fragments f JOIN entities e ON e.ref = f.entity_ref WHERE e.type = 'SO' ORDER BY f.id LIMIT 1",
    ),
    ioMref:
      (
        db.prepare("SELECT mref AS ref FROM metadata_fragments WHERE entity_ref = ?").get(io) as
          | { ref: string }
          | undefined
      )?.ref ?? UNKNOWN_UUID,
    event: one("SELECT ref FROM events ORDER BY id LIMIT 1"),
    now: String(Math.floor(Date.now() / 1000)),
    continuation: String(((await twofactor.json()) as { continuationToken?: string }).continuationToken),
  };
  // The SO fragment's route needs its own folder.
  fx.so = one(`SELECT entity_ref AS ref FROM metadata_fragments WHERE mref = '${fx.soMref}'`);
  target.fx = fx;
  await makeWriteFixtures(repo.svc);
}

/** A request of the fixtures' own, which must succeed; placeholders filled. Returns the reply's text. */
async function call(method: string, path: string, body?: string, type = XML_TYPE["Content-Type"]) {
  const res = await fetch(target.url + fill(path), {
    method,
    headers: { "Preservica-Access-Token": target.fx.token as string, "Content-Type": type },
    body: body === undefined ? undefined : fill(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`fixture ${method} ${path}: ${res.status} ${text}`);
  return text;
}

/** Things for the write junk to aim at, made through the API before the stored state is taken. */
async function makeWriteFixtures(svc: ServiceContext): Promise<void> {
  const { db } = svc;
  const fx = target.fx;
  const pick = (sql: string, ...params: string[]) => {
    const v = db
      .prepare(sql)
      .pluck()
      .get(...params);
    if (typeof v !== "string") throw new Error(`no fixture for ${sql}`);
    return v;
  };
  fx.otherIo = pick(
    "SELECT ref FROM entities WHERE type = 'IO' AND deleted = 0 AND ref <> ? LIMIT 1",
    fx.io as string,
  );
  fx.otherSo = pick(
    "SELECT ref FROM entities WHERE type = 'SO' AND parent_ref IS NULL AND ref <> ? ORDER BY id DESC LIMIT 1",
    fx.so as string,
  );
  for (const [ph, path] of TYPES) {
    await call(
      "POST",
      `${E}/${path}/{${ph}}/identifiers`,
      el("Identifier", XIP7, "<Type>junk-fixture</Type><Value>F-1</Value>"),
    );
    fx[`${ph}Id`] = pick(
      "SELECT api_id FROM identifiers WHERE entity_ref = ? AND type = 'junk-fixture'",
      fx[ph] as string,
    );
  }
  await call(
    "POST",
    `${E}/information-objects/{io}/links`,
    el("Link", XIP7, "<Type>http://purl.org/dc/terms/references</Type><ToEntity>{so}</ToEntity>"),
  );
  fx.ioLink = pick(
    "SELECT api_id FROM links WHERE from_ref = ? AND to_ref = ?",
    fx.io as string,
    fx.so as string,
  );

  for (const [key, name] of [
    ["policy", "Junk fixture policy"],
    ["policy2", "Junk fixture policy 2"],
    ["spare", "Junk spare policy"],
  ]) {
    await call(
      "POST",
      `${E}/retention-policies`,
      el("RetentionPolicy", RM, `<Name>${name}</Name><SecurityTag>open</SecurityTag>`),
    );
    fx[key as string] = pick("SELECT ref FROM retention_policies WHERE name = ?", name as string);
  }
  for (const [key, policy] of [
    ["assignment", "policy"],
    ["assignment2", "policy2"],
  ]) {
    await call(
      "POST",
      `${E}/information-objects/{io}/retention-assignments`,
      el("RetentionAssignment", RM, `<RetentionPolicy>{${policy}}</RetentionPolicy>`),
    );
    fx[key as string] = pick(
      "SELECT api_id FROM retention_assignments WHERE policy_ref = ?",
      fx[policy as string] as string,
    );
  }
  await call("PUT", `${E}/retention-policies/{policy2}/assignable`, "False", TEXT_TYPE["Content-Type"]);

  const json = JSON_TYPE["Content-Type"];
  const made = JSON.parse(
    await call(
      "POST",
      `${M}/groups/`,
      '{"name":"Junk Fixture Group","fields":[{"id":"accession_number","name":"Accession number"}]}',
      json,
    ),
  ) as { id: string; schemaUri: string };
  fx.group = made.id;
  fx.groupColumn = `${made.schemaUri};/ns:junk_fixture_group/ns:accession_number`;
  fx.group2 = (
    JSON.parse(await call("POST", `${M}/groups`, '{"name":"Junk Café Group"}', json)) as { id: string }
  ).id;
  await call(
    "POST",
    `${M}/forms/`,
    JSON.stringify({ title: "Junk fixture form", schemaUri: made.schemaUri }),
    json,
  );
  await call("POST", `${M}/forms`, '{"title":"Junk café loose form"}', json);
  fx.form = pick("SELECT id FROM metadata_forms WHERE title = 'Junk fixture form'");
  fx.form2 = pick("SELECT id FROM metadata_forms WHERE title = 'Junk café loose form'");

  // A folder (inside so) whose deletion awaits approval, and one in the recycle bin.
  const submission = el("DeletionAction", ENT7, "<Submission><Comment>fixture</Comment></Submission>");
  for (const [folder, deletion] of [
    ["pendingFolder", "pending"],
    ["binned", "done"],
  ] as const) {
    const title = `Junk ${folder}`;
    await call(
      "POST",
      `${E}/structural-objects`,
      el(
        "StructuralObject",
        XIP7,
        `<Title>${title}</Title><SecurityTag>open</SecurityTag><Parent>{so}</Parent>`,
      ),
    );
    fx[folder] = pick("SELECT ref FROM entities WHERE title = ?", title);
    fx[deletion] = await call("DELETE", `${E}/structural-objects/{${folder}}`, submission);
  }
  await call(
    "PUT",
    `${E}/actions/deletions/{done}`,
    el("DeletionAction", ENT7, "<Approval><Approved>true</Approved><Comment>fixture</Comment></Approval>"),
  );
  await svc.actions.idle();
  if (pick("SELECT status FROM actions WHERE id = ?", fx.done as string) !== "COMPLETED") {
    throw new Error("the fixture deletion did not complete");
  }

  // Operations: the deletions as workflow instances, a finished Integrity Check (of the empty folder
  // awaiting deletion), an uploaded definition and its context, a folder the manager cannot read.
  const seqOf = (id: string) => pick("SELECT CAST(seq AS TEXT) FROM actions WHERE id = ?", id);
  fx.pendingSeq = seqOf(fx.pending as string);
  fx.doneSeq = seqOf(fx.done as string);
  await call("POST", `${WF}/instances`, startRequest(START));
  await svc.actions.idle();
  fx.check = pick(
    "SELECT id FROM actions WHERE kind = 'integrity-check' AND status = 'COMPLETED' AND entity_ref = ?",
    fx.pendingFolder as string,
  );
  fx.checkSeq = seqOf(fx.check);
  await call(
    "POST",
    `${WF}/definitions`,
    `<WorkflowDefinition xmlns="${WF_NS}" id="org.example.junk.fixture" name="Junk fixture" type="Access"/>`,
  );
  fx.definition = pick(
    "SELECT CAST(id AS TEXT) FROM workflow_definitions WHERE text_id = 'org.example.junk.fixture'",
  );
  await call(
    "POST",
    `${WF}/contexts`,
    el(
      "WorkflowContext",
      WF_NS,
      "<Name>Junk uploaded context</Name><WorkflowDefinitionId>org.example.junk.fixture</WorkflowDefinitionId>",
    ),
  );
  fx.uploadedContext = pick(
    "SELECT CAST(id AS TEXT) FROM workflow_contexts WHERE name = 'Junk uploaded context'",
  );
  addSecurityTag(db, "junk-hidden");
  await call(
    "POST",
    `${E}/structural-objects`,
    el(
      "StructuralObject",
      XIP7,
      "<Title>Junk hidden folder</Title><SecurityTag>junk-hidden</SecurityTag><Parent>{so}</Parent>",
    ),
  );
  fx.hidden = pick("SELECT ref FROM entities WHERE title = 'Junk hidden folder'");
  fx.exportDone = await call("POST", `${E}/information-objects/{io}/exports`, exportAction(EXPORT_OPTIONS));
  // A report run, and a multipart upload with one part stored (S3).
  fx.reportRun = (
    JSON.parse(await call("POST", `${R}/assets-by-format/run`, "{}", JSON_TYPE["Content-Type"])) as {
      value: { progressToken: string };
    }
  ).value.progressToken;
  await svc.actions.idle();
  const initiated = await call("POST", `${FIXTURE_KEY}?uploads`, "");
  fx.upload = String(/<UploadId>([^<]+)<\/UploadId>/.exec(initiated)?.[1]);
  const stored = await fetch(`${target.url}${fill(FIXTURE_KEY)}?uploadId=${fx.upload}&partNumber=1`, {
    method: "PUT",
    headers: { "Preservica-Access-Token": fx.token as string, ...OCTET },
    body: ZIP_LIKE,
  });
  if (stored.status !== 200) throw new Error(`fixture part: ${stored.status} ${await stored.text()}`);
  fx.partEtag = md5(ZIP_LIKE);
}
