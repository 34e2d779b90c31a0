import { type IncomingHttpHeaders, request } from "node:http";
import { connect } from "node:net";
import type { Case, Fixtures, Reply } from "./case.js";

/**
 * How the junk is sent. Requests go through node:http, which sends the path exactly as written (fetch
 * would normalise `..` and re-encode), or straight onto a socket for what no HTTP client would send.
 */

/** The service the junk goes to and the placeholder values, set once it runs (fixtures.ts). */
export const target: { url: string; fx: Fixtures } = { url: "", fx: {} };

/** `text` with its placeholders ({so}, {token} …) filled; an unknown one is left as written. */
export function fill(text: string): string {
  return text.replace(/\{(\w+)\}/g, (whole, k: string) => target.fx[k] ?? whole);
}

/** Sends one case (the manager's token unless `auth: false`); rejects when no answer comes within 3 s. */
export function send(c: Case): Promise<Reply> {
  const url = new URL(target.url);
  const headers: Record<string, string> = {};
  if (c.auth !== false) headers["Preservica-Access-Token"] = target.fx.token as string;
  for (const [k, v] of Object.entries(c.headers ?? {})) headers[k] = fill(v);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, method: c.method ?? "GET", path: fill(c.path), headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (d: Buffer) => chunks.push(d));
        res.on("end", () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
        });
        res.on("error", reject);
      },
    );
    // "Never a hang": no answer within 3 s fails the case (the slowest answer takes a tenth of that).
    const timer = setTimeout(() => req.destroy(new Error(`no answer within 3 s: ${c.name}`)), 3000);
    req.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    const body = c.body;
    if (body === undefined) req.end();
    else if (typeof body === "object" && "chunks" in body) {
      for (const chunk of body.chunks) req.write(chunk);
      req.end();
    } else {
      const whole =
        typeof body === "string"
          ? Buffer.from(fill(body))
          : Buffer.isBuffer(body)
            ? body
            : Buffer.from(fill(body.latin1), "latin1");
      // node:http declares no length of its own on a DELETE with a body, so the body would be read as
      // the next request. Clients declare it; so does this one, for every whole body.
      const declared = Object.keys(headers).some((h) => h.toLowerCase() === "content-length");
      if (!declared && !["GET", "HEAD"].includes(c.method ?? "GET"))
        req.setHeader("Content-Length", whole.length);
      req.end(whole);
    }
  });
}

/** The first HTTP response in `raw`: status, headers, and its body (by Content-Length when given). */
function firstResponse(raw: Buffer): Reply & { complete: boolean } {
  const split = raw.indexOf("\r\n\r\n");
  const head = raw.subarray(0, split < 0 ? raw.length : split).toString("latin1");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
  const headers: IncomingHttpHeaders = {};
  for (const line of head.split("\r\n").slice(1)) {
    const i = line.indexOf(":");
    if (i > 0) headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  const rest = split < 0 ? Buffer.alloc(0) : raw.subarray(split + 4);
  const length = headers["content-length"] === undefined ? undefined : Number(headers["content-length"]);
  const body = length === undefined ? rest : rest.subarray(0, length);
  return { status, headers, body, complete: split >= 0 && length !== undefined && rest.length >= length };
}

/**
 * Bytes straight onto a socket, for requests no HTTP client would send. By default the client then
 * half-closes (nothing more comes); with `waitForAnswer` it keeps sending side open until the first
 * answer is in, as a client whose request the server has taken whole would.
 */
export function sendRaw(text: string, timeoutMs = 10_000, waitForAnswer = false): Promise<Reply> {
  const url = new URL(target.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    socket.on("data", (d) => {
      chunks.push(d);
      if (waitForAnswer && firstResponse(Buffer.concat(chunks)).complete) socket.end();
    });
    socket.on("error", reject);
    socket.on("close", () => {
      const { status, headers, body } = firstResponse(Buffer.concat(chunks));
      resolve({ status, headers, body });
    });
    const bytes = Buffer.from(fill(text), "latin1");
    if (waitForAnswer) socket.write(bytes);
    else socket.end(bytes);
  });
}
