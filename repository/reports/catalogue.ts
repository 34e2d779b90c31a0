import { assetsByFormat } from "./assets-by-format.js";
import { changesByUser } from "./changes-by-user.js";
import type { Report } from "./definitions.js";
import { fixityInventory } from "./fixity-inventory.js";
import { ingestHistory } from "./ingest-history.js";
import { retentionSummary } from "./retention-summary.js";
import { storageByFolder } from "./storage-by-folder.js";

/** Every report the service runs, in the order listings show them. */
export const REPORTS: readonly Report[] = [
  assetsByFormat,
  storageByFolder,
  fixityInventory,
  ingestHistory,
  retentionSummary,
  changesByUser,
];

export function findReport(id: string): Report | undefined {
  return REPORTS.find((r) => r.definition.id === id);
}

export function reportIds(): string[] {
  return REPORTS.map((r) => r.definition.id);
}
