import type { ServiceContext } from "../../../repository/context.js";

/**
 * One junk request of the robustness table (test/repository/robustness.test.ts). APIs added since that file
 * keep their junk here, one `<area>.cases.ts` per API, each exporting `CASES` (and, when it needs values of
 * its own, `fixtures`): the table loads every such file, and its "every route the app serves" check counts
 * them.
 */

/** A body: text (placeholders filled), bytes, chunks, or text sent as Latin-1 bytes (for bad UTF-8). */
export type Body = string | Buffer | { chunks: Buffer[] } | { latin1: string };

export interface Case {
  name: string;
  method?: string;
  /** May hold placeholders ({so}, {io}, {token}, and those the area's `fixtures` adds). */
  path: string;
  headers?: Record<string, string>;
  body?: Body;
  /** Send the manager's token (default true). */
  auth?: boolean;
  /** Allowed statuses; any status below 500 when absent. */
  expect?: number[];
  /** What the error message must say (for the cases a fix was made for). */
  message?: RegExp;
  /** A reported defect in the reply's shape: its checks are left to a test of its own (it.fails). */
  knownDefect?: string;
}

/** What an area's `fixtures` gets: the running service, and the manager's token. */
export interface FixtureContext {
  url: string;
  token: string;
  svc: ServiceContext;
}

export interface CaseModule {
  CASES: Case[];
  /** Extra placeholder values, made once the service runs (e.g. a user or an adapter to aim junk at). */
  fixtures?: (ctx: FixtureContext) => Promise<Record<string, string>>;
}
