/**
 * A 404 means one of two things: the service has no such item (a ref that does not exist, or that the
 * caller may not see), or it has no such endpoint at all (an older release, a proxy that blocks the path,
 * a module this installation is not licensed for). The first asks the person to check the ref; the second
 * asks them to stop retrying and talk to whoever runs the service. This module tells them apart from
 * what the reply and the request show, since the service spec does not define an error body.
 *
 * What the reply shows:
 * - Our repository service answers an unknown path with JSON `{success:false, message:"No such endpoint:
 *   …"}` and an unknown ref with the same JSON shape naming the entity. Servlet frameworks have their own
 *   words for an unmapped path ("No handler found for …" from Spring, "No static resource …" from Spring
 *   6, "Could not find resource for full path" from RESTEasy); any of these settles it.
 * - A web page (text/html), an empty body or a bare "Not Found" is not the API answering about an item:
 *   it is a proxy's or the servlet container's page. Whether it means "no endpoint" depends on the path:
 * What the request shows:
 * - A path that names no item (`/api/entity/events`, `/api/content/search`, `/api/user/details`, a lookup
 *   by identifier) cannot be "not found" for an item: those list or search, and answer an empty list for
 *   nothing. A 404 with no API explanation there is a missing endpoint.
 * - A path that names an item (a UUID segment, or `id=`/`ref=` in the query) with a page instead of an API
 *   answer stays "not found": the real service's servlet container may render an unknown ref's 404 as a
 *   page too, and telling a person their ref is fine when it is not would send them the wrong way.
 */

const SAYS_NO_ENDPOINT =
  /^no such endpoint\b|\bno handler found for\b|\bno static resource\b|\bcould not find resource for\b|\bno endpoint\b|\bunknown (?:endpoint|path)\b/i;

/** A bare reason phrase: the status line said again, nothing about an item. */
const BARE_NOT_FOUND = /^(?:http(?: status)? ?404\b[\s–-]*)?(?:404\s*)?not found\.?$/i;

const UUID_SEGMENT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether the request (a path with query) names one item: a ref in the path or an `id`/`ref` query value. */
export function namesAnItem(pathWithQuery: string): boolean {
  const [path = "", query = ""] = pathWithQuery.split("?", 2);
  if (path.split("/").some((segment) => UUID_SEGMENT.test(safeDecode(segment)))) return true;
  return new URLSearchParams(query).has("id") || new URLSearchParams(query).has("ref");
}

/**
 * Whether a 404 reply says the endpoint is missing rather than the item: `serviceMessage` is what
 * `serviceMessageFrom` read from the body (undefined for an empty body or a page without a title).
 */
export function isMissingEndpointReply(
  pathWithQuery: string,
  body: string | undefined,
  contentType: string | undefined,
  serviceMessage: string | undefined,
): boolean {
  if (serviceMessage && SAYS_NO_ENDPOINT.test(serviceMessage)) return true;
  const text = (body ?? "").trim();
  const page = (contentType ?? "").toLowerCase().includes("html") || /^<!doctype html|^<html/i.test(text);
  const explained = serviceMessage !== undefined && !BARE_NOT_FOUND.test(serviceMessage);
  if (!page && explained) return false;
  return !namesAnItem(pathWithQuery);
}

/** The endpoint a request went to, for a person: no query, refs and ids as `{ref}`. */
export function endpointOf(pathWithQuery: string): string {
  const path = pathWithQuery.split("?", 1)[0] ?? "";
  return path
    .split("/")
    .map((segment) => (UUID_SEGMENT.test(safeDecode(segment)) || /^\d+$/.test(segment) ? "{ref}" : segment))
    .join("/");
}

/** Which release brought an endpoint (service spec §9 and the webhook note in §6), most specific first. */
const INTRODUCED: readonly { test: RegExp; since: string }[] = [
  { test: /\/config-events\/filter-info$|\/features\/usage$|\/entitlement\/limits$/, since: "8.4" },
  { test: /\/metadata-csv-edits\b|\/api\/storage\//, since: "8.4" },
  { test: /\/api\/analytics\//, since: "7.1" },
  { test: /\/api\/webhook\//, since: "6.8" },
  { test: /\/exports\b|\/retention-(?:policies|assignments)\b|\/preview$|\/deleted-objects\b/, since: "6.3" },
  { test: /\/api\/entity\//, since: "6.0" },
];

/** Why a service may lack `endpoint`, most likely first, as the end of "…: it may be …". */
export function whyEndpointMissing(endpoint: string): string {
  const since = INTRODUCED.find((r) => r.test.test(endpoint))?.since;
  const older = since ? `older than release ${since} (which added it)` : "an older release";
  return `${older}, or a proxy in front of it blocks the path, or this installation is not licensed for that module`;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
