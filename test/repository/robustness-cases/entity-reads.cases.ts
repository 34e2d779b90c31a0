import type { Case } from "./case.js";
import { BAD_DATES, BAD_NUMBERS, BAD_REFS, BAD_VERSIONS, spread, UNKNOWN_UUID } from "./junk.js";
import { ENTITY_ROUTES, READ_PATHS, withParam } from "./read-routes.js";
import { E } from "./wire.js";

/**
 * Junk at the Entity API's read routes (read-routes.ts): every route once as it should be (the baselines),
 * then bad paging values, refs that are not UUIDs or name the wrong kind of thing, bad indexes, API
 * versions and dates.
 */

function entityJunk(): Case[] {
  const cases: Case[] = [];
  const paged = ENTITY_ROUTES.filter((r) => r.paged);
  for (const [i, r] of paged.entries()) {
    for (const p of ["start", "max"]) {
      for (const v of spread(BAD_NUMBERS, i)) {
        // max=-1 means "the largest page" (some Content API clients send it); start=-1 is junk.
        const expectStatus = p === "max" && v === "-1" ? [200] : [400];
        cases.push({
          name: `${p}=${v.slice(0, 20)} on ${r.path}`,
          path: withParam(E + r.path, `${p}=${v}`),
          expect: expectStatus,
        });
      }
    }
    for (const ok of spread(
      ["max=-1", "max=1000000", "max=0", "start=9007199254740991", "start=0001&max=0002"],
      i,
    )) {
      cases.push({ name: `${ok} on ${r.path}`, path: withParam(E + r.path, ok), expect: [200] });
    }
  }
  for (const [i, r] of ENTITY_ROUTES.entries()) {
    for (const ref of r.refs) {
      // Each handler reads its refs through one helper; the first route of each kind gets everything.
      const first = ENTITY_ROUTES.findIndex((o) => o.refs.includes(ref)) === i;
      for (const bad of spread(BAD_REFS, first ? 0 : i)) {
        const path = E + r.path.replace(`{${ref}}`, bad);
        // A ref that is not a UUID names nothing: 404, as the real service answers (pyPreservica maps only
        // 404 to ReferenceNotFoundException), saying why. `%2e%2e` is a dot segment: the URL resolves it
        // away, so the path names no route (404 too).
        cases.push({
          name: `${ref}=${bad.slice(0, 24)} in ${r.path}`,
          path,
          expect: [404],
          ...(bad === "not-a-uuid" ? { message: /is not a UUID/ } : {}),
        });
      }
      const unknown = E + r.path.replace(`{${ref}}`, UNKNOWN_UUID);
      cases.push({ name: `unknown ${ref} in ${r.path}`, path: unknown, expect: [404] });
      // The same ref as another kind of thing: an entity of another type, a fragment as an entity …
      const others = ["so", "io", "co", "ioMref", "event"].filter(
        (o) => o !== ref && !(ref === "io" && o === "ioMref"),
      );
      for (const other of first ? others : [others[i % others.length] as string]) {
        const path = E + r.path.replace(`{${ref}}`, `{${other}}`);
        cases.push({ name: `{${other}} as ${ref} in ${r.path}`, path, expect: [404] });
      }
    }
  }
  for (const r of [
    "/information-objects/{io}/representations/Preservation/",
    "/content-objects/{co}/generations/",
  ]) {
    for (const n of ["0", "-1", "1.5", "1e3", "9999999999", "%31%30", "x", "%00"]) {
      cases.push({ name: `index ${n} in ${r}`, path: E + r + n, expect: n === "%31%30" ? [404] : [400] });
    }
  }
  for (const v of BAD_VERSIONS) {
    for (const r of ["/versiondetails/version", "/root/children", "/information-objects/{io}"]) {
      cases.push({ name: `version ${v.slice(0, 12)} ${r}`, path: `${E}/${v}${r}`, expect: [404] });
    }
  }
  for (const d of BAD_DATES) {
    for (const p of [
      "/events?from=",
      "/events?to=",
      "/entities/updated-since?date=",
      "/entities/updated-since?date=2000-01-01&endDate=",
    ]) {
      cases.push({ name: `date ${d} at ${p}`, path: `${E}${p}${d}`, expect: [400] });
    }
  }
  cases.push({ name: "updated-since without date", path: `${E}/entities/updated-since`, expect: [400] });
  cases.push({
    name: "by-identifier without value",
    path: `${E}/entities/by-identifier?type=x`,
    expect: [400],
  });
  cases.push({
    name: "events types junk",
    path: `${E}/events?types=%00,%C3%28,${"x".repeat(3000)}&username=%25`,
    expect: [200],
  });
  return cases;
}

export const CASES: Case[] = [
  ...READ_PATHS.map((p) => ({
    name: `baseline ${p}`,
    path: p,
    expect: p.includes("thumbnail") ? [200, 404] : [200],
  })),
  ...entityJunk(),
];
