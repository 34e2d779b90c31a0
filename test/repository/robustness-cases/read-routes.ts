import { C, E } from "./wire.js";

/**
 * The read routes the reads' junk is aimed at: every Entity API read route (relative to a version prefix),
 * the Content API's listings and id routes, and the authentication routes.
 */

export interface Route {
  path: string;
  /** Takes start/max. */
  paged?: boolean;
  /** Placeholders in the path that name an entity, fragment or event. */
  refs: string[];
}

const TYPE_PATHS = { so: "structural-objects", io: "information-objects", co: "content-objects" } as const;
const refsIn = (path: string) =>
  [...path.matchAll(/\{(so|io|co|soMref|ioMref|event)\}/g)].map((m) => m[1] as string);
export const route = (path: string, paged = false): Route => ({ path, paged, refs: refsIn(path) });

/** Every Entity API route (entity.ts, entity-files.ts, entity-events.ts), relative to a version prefix. */
export const ENTITY_ROUTES: Route[] = [
  route("/versiondetails/version"),
  route("/root/children", true),
  route("/structural-objects/{so}/children", true),
  ...Object.entries(TYPE_PATHS).flatMap(([ph, p]) => [
    route(`/${p}/{${ph}}`),
    route(`/${p}/{${ph}}/metadata`, true),
    route(`/${p}/{${ph}}/identifiers`, true),
    route(`/${p}/{${ph}}/links`, true),
    route(`/${p}/{${ph}}/event-actions`, true),
  ]),
  route("/structural-objects/{so}/metadata/{soMref}"),
  route("/information-objects/{io}/metadata/{ioMref}"),
  route("/information-objects/{io}/representations", true),
  route("/information-objects/{io}/representations/Preservation"),
  route("/information-objects/{io}/representations/Preservation/1"),
  route("/content-objects/{co}/generations", true),
  route("/content-objects/{co}/generations/1"),
  route("/content-objects/{co}/generations/1/bitstreams/1"),
  route("/content-objects/{co}/generations/1/bitstreams/1/content"),
  route("/content-objects/{co}/generations/1/bitstreams/1/integrity-check-history", true),
  route("/events", true),
  route("/events/{event}/event-actions", true),
  route("/entities/updated-since?date=2000-01-01", true),
  route("/entities/by-identifier?type=code&value=x", true),
];

/** Content API listings (content.ts): GET or POST, parameters in the query or the body. */
export const LISTINGS = [
  "/search?q=maps",
  "/search-within?parenthierarchy=sdb:SO|{so}&q=",
  "/top-level-list?q=",
  "/object-children?id=sdb:SO|{so}",
];
/** Content API id routes and the rest of the read routes. */
const OTHER_ROUTES = [
  `${C}/object-details?id=sdb:IO|{io}`,
  `${C}/indexed-fields`,
  `${C}/download?id=sdb:IO|{io}`,
  `${C}/thumbnail?id=sdb:IO|{io}`,
  "/api/user/details",
];
export const AUTH_ROUTES = [
  "login",
  "acquire-temp-user",
  "complete-challenge",
  "complete-2fa",
  "refresh",
  "acquire-external",
].map((r) => `/api/accesstoken/${r}`);

export const withParam = (path: string, param: string) => `${path}${path.includes("?") ? "&" : "?"}${param}`;
export const READ_PATHS = [
  ...ENTITY_ROUTES.map((r) => E + r.path),
  ...ENTITY_ROUTES.slice(0, 8).map((r) => `${E}/v6.0${r.path}`),
  ...LISTINGS.map((l) => C + l),
  ...OTHER_ROUTES,
];
