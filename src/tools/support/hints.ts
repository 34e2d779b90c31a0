import type { ToolHints } from "../define.js";

/**
 * The five kinds of tool there are, as their hints say it to clients: each tool names one of these rather
 * than spelling the four hints out, so two tools that act alike cannot drift apart in what they declare.
 * None reaches beyond this repository (openWorldHint false).
 */

/** Reads; changes nothing. */
export const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const satisfies ToolHints;

/** Makes something new (a folder, an ingest, a job): the same call twice makes two. */
export const ADDITIVE = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
} as const satisfies ToolHints;

/** A write that changes nothing it cannot change back, and does nothing more when repeated. */
export const ARRANGE = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const satisfies ToolHints;

/** Overwrites what was there (kept in the audit log, or gone), and the same call twice leaves the same state. */
export const OVERWRITE = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
} as const satisfies ToolHints;

/** Takes something away (recoverably or not), and a second call acts again. */
export const DESTRUCTIVE = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
} as const satisfies ToolHints;
