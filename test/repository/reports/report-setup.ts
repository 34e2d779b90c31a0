import { createHash } from "node:crypto";
import { expect } from "vitest";
import { DEMO } from "../../../repository/seed.js";
import type { RunningRepository } from "../../../repository/server.js";
import { ENTITY_NS, parseXml, text, XIP_NS } from "../entity-xml.js";
import { accepted, E, progress, settled } from "../writes/structure-helpers.js";
import { type Fetcher, sendXml, type Users } from "../writes/write-helpers.js";

/**
 * Changes made over HTTP before the figures are compared, so the reports meet more than the fresh demo:
 * a content replacement (an inactive generation, an active one that is not original), an asset moved to
 * the recycle bin (left out of inventories, still in the history), and retention policies assigned to
 * open and closed assets, some long expired.
 */

const NS = ENTITY_NS("7.7");
const XIP = XIP_NS("7.7");
const RM = "http://preservica.com/RetentionManagement/v6.2";

export interface Changed {
  /** The content object whose content was replaced (its first generation is now inactive). */
  replacedCo: string;
  /** The asset in the recycle bin. */
  deletedAsset: string;
  policies: { expired: string; running: string; forever: string };
}

export async function changeTheDemo(repo: RunningRepository, u: Users): Promise<Changed> {
  const { db } = repo.svc;
  const replacedCo = (
    db
      .prepare("SELECT ref FROM entities WHERE parent_ref = ? AND type = 'CO' ORDER BY id")
      .get(DEMO.refs.pdfAsset) as {
      ref: string;
    }
  ).ref;
  const bytes = Buffer.from("Council minutes 1851, rescanned as plain text.\n");
  const replaced = await u.curator(`${E}/content-objects/${replacedCo}/generations?replaceType=previous`, {
    method: "POST",
    headers: {
      "Content-Type": "application/octet-stream",
      Filename: "minutes-1851-rescan.txt",
      "Fixity-SHA-256": createHash("sha256").update(bytes).digest("hex"),
    },
    body: bytes,
  });
  expect(replaced.status, await replaced.clone().text()).toBe(200);
  expect((await settled(u.curator, await replaced.text())).status).toBe("COMPLETED");

  const deletedAsset = DEMO.refs.wavAsset;
  const deletion = await accepted(
    await sendXml(
      u.manager,
      "DELETE",
      `${E}/information-objects/${deletedAsset}`,
      `<DeletionAction xmlns="${NS}" xmlns:xip="${XIP}"><Submission><Comment>duplicate</Comment></Submission></DeletionAction>`,
    ),
  );
  expect((await progress(u.manager, deletion)).status).toBe("PENDING");
  await accepted(
    await sendXml(
      u.manager,
      "PUT",
      `${E}/actions/deletions/${deletion}`,
      `<DeletionAction xmlns="${NS}"><Approval><Approved>true</Approved><Comment>ok</Comment></Approval></DeletionAction>`,
    ),
  );
  expect((await settled(u.manager, deletion)).status).toBe("COMPLETED");

  const policies = {
    expired: await createPolicy(u.manager, "Short-term working copies", "1", "DAYS"),
    running: await createPolicy(u.manager, "Council records", "100", "YEARS"),
    forever: await createPolicy(u.manager, "Permanent preservation", null, null),
  };
  const assign = async (asset: string, policy: string) => {
    const res = await sendXml(
      u.curator,
      "POST",
      `${E}/information-objects/${asset}/retention-assignments`,
      `<RetentionAssignment xmlns="${RM}"><RetentionPolicy>${policy}</RetentionPolicy></RetentionAssignment>`,
    );
    expect(res.status, await res.text()).toBe(200);
  };
  await assign(DEMO.refs.councilMinutes1851, policies.running);
  await assign(DEMO.refs.councilMinutes1851, policies.forever);
  await assign(DEMO.refs.byeLaw1858, policies.running);
  await assign(DEMO.refs.closedAsset, policies.running);
  await assign(DEMO.refs.staffAsset, policies.expired);
  await assign(DEMO.refs.mapNorthQuay1850, policies.expired);
  await assign(DEMO.refs.photoNorthQuay1890, policies.forever);
  await repo.svc.actions.idle();
  return { replacedCo, deletedAsset, policies };
}

async function createPolicy(
  manager: Fetcher,
  name: string,
  period: string | null,
  unit: string | null,
): Promise<string> {
  const fields = period ? `<Period>${period}</Period><PeriodUnit>${unit}</PeriodUnit>` : "";
  const res = await sendXml(
    manager,
    "POST",
    `${E}/retention-policies`,
    `<RetentionPolicy xmlns="${RM}"><Name>${name}</Name><Description>${name}</Description><SecurityTag>open</SecurityTag><StartDateField>xip.created</StartDateField>${fields}<Assignable>true</Assignable></RetentionPolicy>`,
  );
  const body = await res.text();
  expect(res.status, body).toBe(200);
  const root = parseXml(body).root;
  return text(root.RetentionPolicy?.Ref);
}
