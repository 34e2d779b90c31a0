import { createHash } from "node:crypto";

/**
 * Name-based GUIDs (RFC 4122 version 5, SHA-1) for the registry's built-in items: the same item gets the
 * same GUID in every store, as the real registry's built-in items do, so a client may keep one.
 */

/** The registry's own namespace GUID (a fixed value; any UUID would do, but it must never change). */
const REGISTRY_NAMESPACE = "7c3b1e52-0f6d-4c1a-9a54-1d5f0a6b2e91";

export function nameGuid(kind: string, name: string): string {
  const ns = Buffer.from(REGISTRY_NAMESPACE.replaceAll("-", ""), "hex");
  const hash = createHash("sha1").update(ns).update(`${kind}:${name}`, "utf8").digest();
  const b = hash.subarray(0, 16);
  b[6] = ((b[6] as number) & 0x0f) | 0x50;
  b[8] = ((b[8] as number) & 0x3f) | 0x80;
  const h = b.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
