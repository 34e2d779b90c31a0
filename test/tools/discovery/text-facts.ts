/**
 * The answer policy's first rule, checked mechanically: every fact of a tool's structured content a person
 * acts on (refs, titles, exact sizes, fixity values, dates, users, paths) is also in its text, since some
 * clients pass only the text to the model. Facts are the string and number leaves of the structured
 * content; keys that are handles for programs (resource URIs, paging flags) are left out by the caller.
 */

export interface Fact {
  path: string;
  value: string;
}

/**
 * Leaf values of `structured`, each with its JSON path, except under keys in `ignore`: a key (`uri`) or a
 * key within its parent's (`touched.type`).
 */
export function factsOf(structured: unknown, ignore: readonly string[] = []): Fact[] {
  const out: Fact[] = [];
  const visit = (v: unknown, path: string, key: string, parent = "") => {
    if (ignore.includes(key) || ignore.includes(`${parent}.${key}`)) return;
    if (typeof v === "string") {
      if (v !== "") out.push({ path, value: v });
    } else if (typeof v === "number") {
      out.push({ path, value: String(v) });
    } else if (Array.isArray(v)) {
      for (const [i, x] of v.entries()) visit(x, `${path}[${i}]`, key, parent);
    } else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) visit(x, path ? `${path}.${k}` : k, k, key);
    }
  };
  visit(structured, "", "");
  return out;
}

/**
 * A number may be written with thousands separators ("1,234,567 bytes"); an ISO time to the minute a person
 * reads ("2026-01-20 09:15"), its seconds and milliseconds being for programs.
 */
function spellings(value: string): string[] {
  if (/^\d+$/.test(value)) return [value, Number(value).toLocaleString("en")];
  const iso = value.match(/^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/);
  return iso ? [value, `${iso[1]} ${iso[2]}`, `${iso[1]}T${iso[2]}`] : [value];
}

/** The facts of `structured` that `text` does not carry (white space runs compared collapsed). */
export function missingFacts(structured: unknown, text: string, ignore: readonly string[] = []): string[] {
  const flat = text.replace(/\s+/g, " ");
  return factsOf(structured, ignore)
    .filter((f) => !spellings(f.value.replace(/\s+/g, " ").trim()).some((s) => flat.includes(s)))
    .map((f) => `${f.path} = ${JSON.stringify(f.value)}`);
}
