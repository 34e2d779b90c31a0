import type { Db } from "../store/db.js";
import type { MigrationConfig, MigrationProfile } from "../store/settings/migration-config.js";
import {
  createDraft,
  createEnrichmentProfile,
  createEnrichmentRule,
  setLiveConfig,
} from "../store/settings/write.js";
import type { DemoKey } from "./demo-tree.js";
import { uuidFrom } from "./ids.js";

/**
 * The demo's settings: a live migration policy whose rules name real demo folders and assets, one draft
 * (a 2026 review that would widen PDF/A migration to all content), and metadata enrichment profiles and
 * rules. Written through the same store functions as the API, so each has its config event, dated.
 */

export const DEMO_SETTINGS = {
  profiles: {
    imagesToTiff: "images-to-tiff",
    pdfToPdfa: "pdf-to-pdfa",
    audioToBwf: "audio-to-bwf",
    retainAsIs: "retain-as-is",
  },
  rules: {
    closedCorrespondence: "closed-correspondence",
    photographs: "photographs",
    councilMinutes: "council-minutes",
    oralHistory: "oral-history",
  },
  draftId: uuidFrom("demo:settings:draft:2026-review"),
  enrichment: {
    piiScreening: uuidFrom("demo:settings:enrichment:pii-screening"),
    noEnrichment: uuidFrom("demo:settings:enrichment:no-enrichment"),
    staffRule: uuidFrom("demo:settings:enrichment:rule:staff"),
    defaultRule: uuidFrom("demo:settings:enrichment:rule:default"),
  },
} as const;

const P = DEMO_SETTINGS.profiles;

const PROFILES: Record<keyof typeof P, MigrationProfile> = {
  imagesToTiff: {
    id: P.imagesToTiff,
    name: "Images to TIFF",
    description: "Normalise PNG images to uncompressed TIFF for preservation",
    ruleSetId: null,
    formats: [{ puid: "fmt/11", action: "MIGRATE", targetPuid: "fmt/353" }],
  },
  pdfToPdfa: {
    id: P.pdfToPdfa,
    name: "PDF to PDF/A",
    description: "Migrate PDF 1.4 documents to PDF/A-1b",
    ruleSetId: null,
    formats: [{ puid: "fmt/18", action: "MIGRATE", targetPuid: "fmt/354" }],
  },
  audioToBwf: {
    id: P.audioToBwf,
    name: "Audio to Broadcast WAVE",
    description: "Migrate WAVE recordings to Broadcast WAVE with embedded metadata",
    ruleSetId: null,
    formats: [{ puid: "fmt/141", action: "MIGRATE", targetPuid: "fmt/2" }],
  },
  retainAsIs: {
    id: P.retainAsIs,
    name: "Retain as received",
    description: "Closed material under legal hold: keep every file in its original format",
    ruleSetId: null,
    formats: [
      { puid: "fmt/18", action: "RETAIN", targetPuid: null },
      { puid: "fmt/11", action: "RETAIN", targetPuid: null },
      { puid: "x-fmt/111", action: "RETAIN", targetPuid: null },
    ],
  },
};

export function seedSettings(db: Db, refs: Record<DemoKey, string>): void {
  const R = DEMO_SETTINGS.rules;
  const live: MigrationConfig = {
    profiles: [PROFILES.imagesToTiff, PROFILES.pdfToPdfa, PROFILES.audioToBwf, PROFILES.retainAsIs],
    rules: [
      {
        id: R.closedCorrespondence,
        name: "Closed correspondence stays as received",
        priority: 1,
        profileId: P.retainAsIs,
        entityRefs: [refs.closedCorrespondence],
      },
      {
        id: R.photographs,
        name: "Photographs",
        priority: 2,
        profileId: P.imagesToTiff,
        entityRefs: [refs.photographs],
      },
      {
        id: R.councilMinutes,
        name: "Council minutes",
        priority: 3,
        profileId: P.pdfToPdfa,
        entityRefs: [refs.councilMinutesSeries],
      },
      {
        id: R.oralHistory,
        name: "Oral history",
        priority: 4,
        profileId: P.audioToBwf,
        entityRefs: [refs.interviewDoyle],
      },
    ],
  };
  setLiveConfig(db, live, { username: "manager", at: "2025-09-03T10:15:00.000Z" });

  const allContent: MigrationProfile = {
    id: "all-content-2026",
    name: "All content (2026 review)",
    description: "PDF to PDF/A and PNG to TIFF wherever they are",
    ruleSetId: null,
    formats: [
      { puid: "fmt/18", action: "MIGRATE", targetPuid: "fmt/354" },
      { puid: "fmt/11", action: "MIGRATE", targetPuid: "fmt/353" },
    ],
  };
  createDraft(
    db,
    {
      id: DEMO_SETTINGS.draftId,
      name: "2026 review: PDF/A and TIFF for all content",
      description:
        "Proposed at the 2026 preservation review; closed correspondence and the oral history keep their rules",
      config: {
        profiles: [PROFILES.retainAsIs, PROFILES.audioToBwf, allContent],
        rules: [
          {
            id: R.closedCorrespondence,
            name: "Closed correspondence stays as received",
            priority: 1,
            profileId: P.retainAsIs,
            entityRefs: [refs.closedCorrespondence],
          },
          {
            id: R.oralHistory,
            name: "Oral history",
            priority: 2,
            profileId: P.audioToBwf,
            entityRefs: [refs.interviewDoyle],
          },
          {
            id: "everything-else",
            name: "Everything else",
            priority: 3,
            profileId: allContent.id,
            entityRefs: [],
          },
        ],
      },
    },
    { username: "manager", at: "2026-02-12T14:30:00.000Z" },
  );

  const E = DEMO_SETTINGS.enrichment;
  createEnrichmentProfile(
    db,
    { id: E.piiScreening, name: "PII screening", piiActive: true },
    { username: "manager", at: "2025-06-20T09:00:00.000Z" },
  );
  createEnrichmentProfile(
    db,
    { id: E.noEnrichment, name: "No enrichment", piiActive: false },
    { username: "manager", at: "2025-06-20T09:05:00.000Z" },
  );
  createEnrichmentRule(
    db,
    {
      id: E.staffRule,
      profileId: E.piiScreening,
      priority: 1,
      selectorSettings: { hierarchySelector: { entityRefs: [refs.staffRecords] } },
    },
    { username: "manager", at: "2025-06-20T09:10:00.000Z" },
  );
  createEnrichmentRule(
    db,
    { id: E.defaultRule, profileId: E.noEnrichment, priority: 2, selectorSettings: {} },
    { username: "manager", at: "2025-06-20T09:12:00.000Z" },
  );
}
