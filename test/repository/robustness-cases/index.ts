import * as admin from "./admin.cases.js";
import type { CaseModule } from "./case.js";
import * as cmis from "./cmis.cases.js";
import * as content from "./content.cases.js";
import * as contentQuery from "./content-query.cases.js";
import * as csvEdits from "./csv-edits.cases.js";
import * as entityReads from "./entity-reads.cases.js";
import * as entityWrites from "./entity-writes.cases.js";
import * as exports from "./export.cases.js";
import * as fileWrites from "./file-writes.cases.js";
import * as http from "./http.cases.js";
import * as metadata from "./metadata.cases.js";
import * as oaiPmh from "./oai-pmh.cases.js";
import * as operations from "./operations.cases.js";
import * as registry from "./registry.cases.js";
import * as reports from "./reports.cases.js";
import * as s3 from "./s3.cases.js";
import * as settings from "./settings.cases.js";
import * as storage from "./storage.cases.js";
import * as system from "./system.cases.js";
import * as textWrites from "./text-writes.cases.js";
import * as webhooks from "./webhooks.cases.js";
import * as writePaths from "./write-paths.cases.js";
import * as writeSideReads from "./write-side-reads.cases.js";
import * as wrongMethods from "./wrong-methods.cases.js";

/**
 * Every area's junk, by file name (`<name>.cases.ts`), in the order the table sends it: reads first, then
 * HTTP-level junk, the Entity API's writes, and each API after. Fixtures are made in this order too. A new
 * area's file goes here; the test fails while a `*.cases.ts` is not listed.
 */
export const AREAS: Record<string, CaseModule> = {
  "entity-reads": entityReads,
  content,
  "content-query": contentQuery,
  http,
  "entity-writes": entityWrites,
  "write-paths": writePaths,
  "text-writes": textWrites,
  "file-writes": fileWrites,
  "csv-edits": csvEdits,
  metadata,
  "write-side-reads": writeSideReads,
  "wrong-methods": wrongMethods,
  operations,
  export: exports,
  s3,
  reports,
  admin,
  cmis,
  "oai-pmh": oaiPmh,
  registry,
  settings,
  storage,
  system,
  webhooks,
};
