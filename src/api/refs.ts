/** References of the service's entities, actions and policies, checked before they go into a request path. */

const REF = /^[0-9a-fA-F-]{8,64}$/;

/** Whether `ref` has the shape of a service reference (a UUID: hex and dashes); only such refs go into paths. */
export function looksLikeRef(ref: string): boolean {
  return REF.test(ref);
}

/**
 * `ref` itself when it has the shape of a reference, else a TypeError naming `what` was wrong. Such a ref
 * holds only hex and dashes, so it is already safe in a URL path (no encoding needed).
 */
export function checkRef(ref: string, what = "reference"): string {
  if (!looksLikeRef(ref)) throw new TypeError(`Not a valid ${what}: "${ref}" (expected a UUID)`);
  return ref;
}
