/**
 * How many examples a fast-check property draws. `npm test` runs every property with the quick count, so each
 * case still runs on every change; `npm run test:properties` (PROP_DEEP=1) draws the deep count, for a longer
 * search before a release or after touching the code a property guards.
 */
export const DEEP_PROPERTIES = process.env.PROP_DEEP === "1";

export function propertyRuns(quick: number, deep: number): number {
  return DEEP_PROPERTIES ? deep : quick;
}
