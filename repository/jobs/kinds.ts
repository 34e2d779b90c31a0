import type { ActionKind } from "./action-kind.js";
import { addRepresentationAction } from "./add-representation.js";
import { analyticsAction } from "./analytics.js";
import { deletionAction } from "./deletion.js";
import { exportAction } from "./export.js";
import { finalDeletionAction } from "./final-deletion.js";
import { ingestAction } from "./ingest.js";
import { integrityCheckAction } from "./integrity-check.js";
import { METADATA_CSV_EDIT } from "./metadata-csv-edit.js";
import { moveAction } from "./move.js";
import { recoveryAction } from "./recovery.js";
import { replaceContentAction } from "./replace-content.js";
import { reportAction } from "./report.js";
import { securityTagAction } from "./security-tag.js";

/**
 * Every kind of long-running action the service runs, in one place: the runner finds an action's
 * handler here (also for one resumed after a restart), and the action listings under
 * /api/entity/actions/{path} come from it. A new kind is added here, not registered by an import.
 */
export const ACTION_KINDS: readonly ActionKind[] = [
  moveAction,
  securityTagAction,
  deletionAction,
  recoveryAction,
  finalDeletionAction,
  ingestAction,
  exportAction,
  METADATA_CSV_EDIT,
  replaceContentAction,
  addRepresentationAction,
  integrityCheckAction,
  reportAction,
  analyticsAction,
];

const BY_KIND = new Map(ACTION_KINDS.map((k) => [k.kind, k]));

/** The kind stored in `actions.kind`, if this program knows it. */
export function actionKind(kind: string): ActionKind | undefined {
  return BY_KIND.get(kind);
}
