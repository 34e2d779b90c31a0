import { XMLValidator } from "fast-xml-parser";
import { expect } from "vitest";
import type { Reply } from "./case.js";

/**
 * What every reply must be, whatever junk it answers: below 500 (or S3's own 501), and, when it is an
 * error, JSON `{success:false, message}` (an `<Error>` document for S3) with a message that says something,
 * echoes no megabytes, and holds no stack frame, server path or file content; a successful XML or JSON
 * reply well-formed.
 */

/**
 * A stack frame: `at fn (where:line:col)` (a message's "at once (…)" is no frame), or a file position.
 */
const STACK_FRAME = /\n\s+at |\bat (?:async )?[\w.<>[\]]+ \([^()\n]*:\d+(?::\d+)?\)|\.(?:ts|js|mjs|cjs):\d+/;
/**
 * A server-side file path: an absolute path starting a word (URL paths follow a host), a tell-tale
 * name, or a Windows path (a drive letter, one backslash or two as JSON escapes it, then a name; not
 * the `x:\"` of a quoted XML prefix).
 */
const FILE_PATH =
  /(?:^|[\s"'(=])\/(?:work|tmp|home|usr|var|opt|private|root)\/|node_modules|preservation-repo-|\b[A-Za-z]:(?:\\){1,2}\w/;

/**
 * The S3-compatible upload answers as S3 does: errors are `<Error>` documents with a Code and a
 * Message, and what S3 does not offer is 501 NotImplemented (S3's own answer), not an internal error.
 */
const isS3 = (path: string) => /^\/api\/s3(?:[/?]|$)/.test(path);

export function checkReply(name: string, method: string, r: Reply, path = ""): void {
  const where = `${name} → ${r.status} ${r.body.toString("utf8").slice(0, 300)}`;
  expect(r.status, where).toBeGreaterThanOrEqual(200);
  if (!(isS3(path) && r.status === 501)) expect(r.status, where).toBeLessThan(500);
  const type = String(r.headers["content-type"] ?? "");
  const readable = r.status >= 400 || /json|xml/.test(type);
  if (!readable) return; // a stored file's bytes
  const text = r.body.toString("utf8");
  expect(text, where).not.toMatch(STACK_FRAME);
  expect(text, where).not.toMatch(FILE_PATH);
  // An external entity is never expanded: no file's content comes back.
  expect(text, where).not.toMatch(/root:x?:0:0/);
  if (r.status >= 400 && isS3(path)) {
    expect(type, where).toMatch(/^application\/xml/);
    if (method === "HEAD") return;
    expect(XMLValidator.validate(text), where).toBe(true);
    const m = /<Error><Code>(\w+)<\/Code><Message>([^<]*)<\/Message>/.exec(text);
    expect(m, where).not.toBeNull();
    expect(String(m?.[2]).length, where).toBeGreaterThan(10);
    expect(text.length, `${where}: the message echoes the junk`).toBeLessThan(MAX_MESSAGE);
  } else if (r.status >= 400) {
    expect(type, where).toMatch(/^application\/json/);
    if (method === "HEAD") return;
    const body = JSON.parse(text) as { success?: unknown; message?: unknown };
    expect(body.success, where).toBe(false);
    expect(typeof body.message, where).toBe("string");
    expect(String(body.message).length, where).toBeGreaterThan(10);
    expect(String(body.message).length, `${where}: the message echoes the junk`).toBeLessThan(MAX_MESSAGE);
  } else if (method !== "HEAD" && /xml/.test(type)) {
    expect(XMLValidator.validate(text), where).toBe(true);
  } else if (method !== "HEAD" && /json/.test(type)) {
    expect(() => JSON.parse(text), where).not.toThrow();
  }
}

/** The message of an error reply: JSON's `message`, or the `<Message>` of S3's `<Error>`. */
export function errorMessage(r: Reply, path: string): string {
  const text = r.body.toString("utf8");
  if (!isS3(path)) return String((JSON.parse(text) as { message?: unknown }).message);
  const m = /<Message>([^<]*)<\/Message>/.exec(text)?.[1] ?? "";
  return m
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&");
}

/** The junk message must not echo megabytes of what was sent. */
const MAX_MESSAGE = 10_000;
