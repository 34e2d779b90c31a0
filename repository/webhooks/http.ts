import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";

/**
 * The service's outgoing HTTP to webhook receivers: the subscription challenge and signed deliveries.
 * One connection per request (no pooling: receivers are few and attempts far apart), a time limit on the
 * whole exchange, and redirects never followed (a 3xx is a failed attempt: following one would let a
 * receiver send the service to an address it may not call).
 */

/** Largest receiver answer read; the rest is discarded (a receiver has nothing long to say). */
const MAX_REPLY_BYTES = 64 * 1024;
/** Size of the chunks a delivery's body is sent in. */
const CHUNK_BYTES = 8 * 1024;

export interface ReceiverReply {
  status: number;
  body: string;
}

interface PostOptions {
  headers: Record<string, string>;
  /** Sent with Transfer-Encoding: chunked, one chunk each; no body (Content-Length: 0) when absent. */
  chunks?: readonly Buffer[];
  timeoutMs: number;
  signal?: AbortSignal;
}

export function post(url: string, opts: PostOptions): Promise<ReceiverReply> {
  const target = new URL(url);
  const send = target.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<ReceiverReply>((resolve, reject) => {
    let settled = false;
    const finish = (err: Error | undefined, reply?: ReceiverReply) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      if (err) reject(err);
      else resolve(reply as ReceiverReply);
    };
    const headers: Record<string, string> = { "User-Agent": "preservation-mcp-webhooks", ...opts.headers };
    if (opts.chunks) headers["Transfer-Encoding"] = "chunked";
    else headers["Content-Length"] = "0";
    const req = send(target, { method: "POST", headers, agent: false }, (res: IncomingMessage) => {
      const parts: Buffer[] = [];
      let size = 0;
      res.on("data", (d: Buffer) => {
        if (size < MAX_REPLY_BYTES) parts.push(d);
        size += d.length;
      });
      res.on("end", () =>
        finish(undefined, {
          status: res.statusCode ?? 0,
          body: Buffer.concat(parts).subarray(0, MAX_REPLY_BYTES).toString("utf8"),
        }),
      );
      res.on("error", (err) => finish(err));
    });
    const timer = setTimeout(() => {
      const err = new Error(`no answer within ${opts.timeoutMs} ms`);
      finish(err);
      req.destroy(err);
    }, opts.timeoutMs);
    const onAbort = () => {
      const err = new Error("the service is stopping");
      finish(err);
      req.destroy(err);
    };
    if (opts.signal?.aborted) return onAbort();
    opts.signal?.addEventListener("abort", onAbort);
    req.on("error", (err: NodeJS.ErrnoException) => finish(new Error(describeNetworkError(err))));
    for (const chunk of opts.chunks ?? []) req.write(chunk);
    req.end();
  });
}

function describeNetworkError(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case "ECONNREFUSED":
      return "connection refused (is the receiver running?)";
    case "ECONNRESET":
      return "the receiver closed the connection without answering";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "the receiver's host name does not resolve";
    default:
      return err.message;
  }
}

/** hex HMAC-SHA256 of `message` keyed with `secret` (both UTF-8). */
export function hmacHex(secret: string, message: string): string {
  return createHmac("sha256", Buffer.from(secret, "utf8")).update(Buffer.from(message, "utf8")).digest("hex");
}

/** The `Preservica-Signature` of a delivery body (wire-writes-admin.md §6). */
export function deliverySignature(secret: string, body: string): string {
  return hmacHex(secret, `preservica-webhook-auth${body}`);
}

/**
 * The subscription handshake: `POST <url>?challengeCode=X` (no body); the receiver must answer 2xx with
 * JSON `{challengeCode: X, challengeResponse: hex HMAC-SHA256(secret, X)}`. Returns what was wrong, or
 * undefined when the receiver proved it holds the secret.
 */
export async function challengeReceiver(
  url: string,
  secret: string,
  timeoutMs: number,
): Promise<string | undefined> {
  const code = randomBytes(16).toString("hex");
  const target = `${url}${url.includes("?") ? "&" : "?"}challengeCode=${code}`;
  let reply: ReceiverReply;
  try {
    reply = await post(target, { headers: { Accept: "application/json" }, timeoutMs });
  } catch (err) {
    return `the receiver could not be reached: ${(err as Error).message}`;
  }
  if (reply.status >= 300 && reply.status < 400) {
    return `the receiver answered ${reply.status} (a redirect); redirects are not followed, give the final URL`;
  }
  if (reply.status < 200 || reply.status >= 300) return `the receiver answered ${reply.status}`;
  let answer: unknown;
  try {
    answer = JSON.parse(reply.body);
  } catch {
    return 'the receiver\'s answer is not JSON; it must be {"challengeCode": "...", "challengeResponse": "..."}';
  }
  const { challengeCode, challengeResponse } = (answer ?? {}) as Record<string, unknown>;
  if (challengeCode !== undefined && challengeCode !== code) {
    return "the receiver's challengeCode is not the one sent";
  }
  if (typeof challengeResponse !== "string") return "the receiver's answer has no challengeResponse";
  const expected = Buffer.from(hmacHex(secret, code), "utf8");
  const given = Buffer.from(challengeResponse.trim().toLowerCase(), "utf8");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return "the receiver's challengeResponse is not the HMAC-SHA256 of the challenge code with the secret";
  }
  return undefined;
}

/** A delivery body as the chunks it is sent in. */
export function chunksOf(body: string): Buffer[] {
  const bytes = Buffer.from(body, "utf8");
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += CHUNK_BYTES) chunks.push(bytes.subarray(i, i + CHUNK_BYTES));
  return chunks;
}
