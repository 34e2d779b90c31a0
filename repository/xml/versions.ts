/**
 * Entity API versions. A version picks the response namespaces (`…/EntityAPI/vX.Y`, `…/XIP/vX.Y`) and a
 * few version-dependent fields. The service answers the unversioned path in its newest version and each
 * `/vX.Y` path in that version, for every release from 6.0 up to the newest it is configured to speak.
 */

export interface ApiVersion {
  major: number;
  minor: number;
  /** "7.7" */
  label: string;
  /** Default namespace of responses (`…/EntityAPI/v6.0` for every version before 6.2). */
  entityNs: string;
  /** Namespace bound to the `xip` prefix. */
  xipNs: string;
}

/**
 * Last minor release of each finished major line (6.12 is the last 6.x the published API summaries
 * mention). The newest major line runs up to the configured newest version.
 */
const LAST_MINOR: Record<number, number> = { 6: 12, 7: 7 };
const OLDEST_MAJOR = 6;

const cache = new Map<string, ApiVersion>();

/**
 * Namespaces were first versioned per release in 6.2; servers before it answered in the 6.0 namespaces
 * (wire-formats §2.1). Clients depend on it: pyPreservica reads a 6.0 or 6.1 server with
 * `…/XIP/v6.0` and `…/EntityAPI/v6.0`, so a `…/v6.1` namespace would hide every element from it.
 */
const FIRST_VERSIONED_NAMESPACE = { major: 6, minor: 2 };

function namespaceLabel(major: number, minor: number): string {
  return compare({ major, minor }, FIRST_VERSIONED_NAMESPACE) < 0 ? "6.0" : `${major}.${minor}`;
}

export function apiVersion(major: number, minor: number): ApiVersion {
  const label = `${major}.${minor}`;
  let v = cache.get(label);
  if (!v) {
    const ns = namespaceLabel(major, minor);
    v = {
      major,
      minor,
      label,
      entityNs: `http://preservica.com/EntityAPI/v${ns}`,
      xipNs: `http://preservica.com/XIP/v${ns}`,
    };
    cache.set(label, v);
  }
  return v;
}

/** Parses "7.7", "v7.7" or "7.7.0" (the patch part is ignored). */
function parseVersion(text: string): { major: number; minor: number } | undefined {
  const m = /^v?(\d{1,3})\.(\d{1,3})(?:\.\d{1,3})?$/.exec(text.trim());
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]) };
}

function compare(a: { major: number; minor: number }, b: { major: number; minor: number }): number {
  return a.major - b.major || a.minor - b.minor;
}

/** "v6.0–v6.12, v7.0–v7.7": the versions served when `newest` is the newest. */
function servedRanges(newest: ApiVersion): string {
  const ranges: string[] = [];
  for (let major = OLDEST_MAJOR; major <= newest.major; major++) {
    const last = major === newest.major ? newest.minor : LAST_MINOR[major];
    if (last !== undefined) ranges.push(`v${major}.0–v${major}.${last}`);
  }
  return ranges.join(", ");
}

/** The version a `/vX.Y` path asks for, or a message saying why it is not served. */
export function resolveRequestedVersion(
  requested: string,
  newest: ApiVersion,
): { version: ApiVersion } | { error: string } {
  const v = parseVersion(requested);
  const served = servedRanges(newest);
  if (!v) return { error: `"${requested}" is not an Entity API version; use /api/entity/v${newest.label}/…` };
  if (compare(v, newest) > 0) {
    return {
      error: `Entity API v${v.major}.${v.minor} is newer than this service (newest ${newest.label}); use /api/entity/v${newest.label}/… or the unversioned /api/entity/…`,
    };
  }
  const last = v.major === newest.major ? newest.minor : LAST_MINOR[v.major];
  if (v.major < OLDEST_MAJOR || last === undefined || v.minor > last) {
    return {
      error: `Entity API v${v.major}.${v.minor} is not served; this service answers ${served} (or the unversioned /api/entity/…)`,
    };
  }
  return { version: apiVersion(v.major, v.minor) };
}

/** The configured newest version ("7.7" or "7.7.0"), validated once at start-up. */
export function newestVersion(configured: string): ApiVersion {
  const v = parseVersion(configured);
  if (!v || v.major < OLDEST_MAJOR) {
    throw new Error(
      `Unsupported Entity API version "${configured}"; give major.minor, 6.0 or later (e.g. 7.7)`,
    );
  }
  return apiVersion(v.major, v.minor);
}

/** The three-part version string clients parse from /versiondetails/version (e.g. "7.7.0"). */
export function fullVersionString(configured: string): string {
  const parts = configured.trim().replace(/^v/, "").split(".");
  while (parts.length < 3) parts.push("0");
  return parts.slice(0, 3).join(".");
}

/**
 * Whether a version answers in the XIP v6.0 schema (6.0 and 6.1), which has none of the elements 6.2
 * added: Identifier/ApiId, Event Ref/Date/WorkflowInstanceId, EventAction/Date, and a Representation's
 * RepresentationFormats and RepresentationProperties. A reply carrying them would not be valid XIP v6.0.
 */
export function isXip60(v: ApiVersion): boolean {
  return compare(v, FIRST_VERSIONED_NAMESPACE) < 0;
}

/** Bitstream OriginalName appeared in XIP v6.3. */
export function hasOriginalName(v: ApiVersion): boolean {
  return compare(v, { major: 6, minor: 3 }) >= 0;
}
