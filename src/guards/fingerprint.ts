import { createHash } from "node:crypto";
import { canonicalJson } from "./audit.js";

/**
 * The fingerprint of a confirmation target: a digest of the state a plan was made from (a title, parent and
 * tag; a fragment's XML; a policy as the service reads it). The preview seals it into the token, and the
 * confirmed call plans again and compares (confirm.ts, `recheck`): any difference refuses the call, changing
 * nothing. One hasher for every tool, so that a part left out or run together (`"a" + "b"` against
 * `"ab"`) cannot make two states look the same: the parts go in as canonical JSON, `undefined` as null.
 */
export function fingerprint(...parts: unknown[]): string {
  return `sha256:${createHash("sha256").update(canonicalJson(parts)).digest("hex")}`;
}
