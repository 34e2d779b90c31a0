import type { Item } from "./kinds.js";
import { spoken, TYPE_OF } from "./kinds.js";

/**
 * The compact text renderings of answers (the answer policy): our terms, no empty fields, long lists
 * capped with a count of what was left out, refs in full because they are handles for the next call.
 */

/** White space that `clip` would change: a run, a character other than a plain space, or at either end. */
const UNEVEN_SPACE = /\s(?:\s|$)|[^\S ]|^\s/;

/** `s` cut to `max` characters with an ellipsis; white space runs collapsed. */
export function clip(s: string, max: number): string {
  // Most text has nothing to collapse: then it is only tested (a replace would copy it every time).
  const one = UNEVEN_SPACE.test(s) ? s.replace(/\s+/g, " ").trim() : s;
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString("en")} ${n === 1 ? one : many}`;
}

/** `asset "Council minutes, 1851" 3f2a…` on one line. */
export function itemLine(item: Item): string {
  return `- ${spoken(TYPE_OF[item.type])} "${clip(item.title, 100)}" ${item.ref}`;
}

/**
 * The paging sentence: what this page shows of the total, and how to get the next one.
 * `offset` is the position of the first item shown (0-based).
 */
export function pageNote(offset: number, shown: number, total: number, nextCursor?: string): string {
  if (total === 0) return "";
  if (shown === 0) return `Nothing at this position: all ${total.toLocaleString("en")} were listed before.`;
  if (offset === 0 && !nextCursor) return shown === 1 ? "" : `All ${total.toLocaleString("en")} shown.`;
  const range = `Showing ${offset + 1}–${offset + shown} of ${total.toLocaleString("en")}`;
  return nextCursor ? `${range}; for more, call again with cursor "${nextCursor}".` : `${range} (the end).`;
}

/** Lines joined, empty ones dropped. (A loop: every answer's text is made here, and filter() made an array more.) */
export function lines(...parts: (string | undefined | false)[]): string {
  let out = "";
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (typeof p !== "string" || p === "") continue;
    out = out === "" ? p : `${out}\n${p}`;
  }
  return out;
}

/** "20,876 bytes (20 KB)": the exact count a person compares, with a readable size beside it. */
export function exactBytes(n: number): string {
  const readable = formatBytes(n);
  return n < 1024 ? readable : `${n.toLocaleString("en")} bytes (${readable})`;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10 * 1024 ? 1 : 0)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
