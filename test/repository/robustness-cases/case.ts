import type { IncomingHttpHeaders } from "node:http";
import type { ServiceContext } from "../../../repository/context.js";

/**
 * One junk request of the robustness table (test/repository/robustness.test.ts). Each API area keeps its
 * junk in one `<area>.cases.ts`, exporting `CASES` (and, when it needs values of its own, `fixtures`):
 * index.ts lists them in the order the table runs them, and the test's "every route the app serves" check
 * counts them.
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

/**
 * Placeholder values, by name: the demo entities and what fixtures.ts makes on them (described there), the
 * manager's token, and what each area's `fixtures` adds.
 */
export type Fixtures = Record<string, string>;

/** An answer as the junk's checks read it. */
export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Bytes for a socket (placeholders filled, sent as Latin-1): [name, request, the status it must get]. */
export type RawRequest = [name: string, text: string, status: number];
/** A write sent raw (its Content-Length lies): [name, request, statuses allowed, what the answer must say]. */
export type RawWrite = [name: string, text: string, expect: number[], message?: RegExp];

export interface CaseModule {
  CASES: Case[];
  /** Extra placeholder values, made once the service runs (e.g. a user or an adapter to aim junk at). */
  fixtures?: (ctx: FixtureContext) => Promise<Record<string, string>>;
  /** Requests no HTTP client would send, straight onto a socket. */
  RAW_REQUESTS?: RawRequest[];
  /** Writes whose declared length lies, straight onto a socket. */
  RAW_WRITES?: RawWrite[];
  /** Cases whose reply has a reported defect: each also runs as a test expected to fail (it.fails). */
  KNOWN_DEFECTS?: Case[];
  /**
   * A check of the shape of this area's successful replies, run on every case of every area (it picks its
   * own paths), after the checks every reply gets.
   */
  replyShape?: (c: Case, r: Reply) => void;
}
