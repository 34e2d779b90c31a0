import { createHmac } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A webhook receiver for tests (node:http on loopback): answers the challenge as pyPreservica's
 * WebHookHandler does (or wrongly, when told), verifies each delivery's Preservica-Signature, and keeps
 * what arrived. `failNext` makes the next deliveries answer 503, as a receiver having trouble.
 */

export interface Delivered {
  headers: IncomingHttpHeaders;
  body: string;
  /** The body's signature matched the secret. */
  verified: boolean;
  json: { subscriptionId: string; triggerType: string; events: WebhookEvent[] };
}

export interface WebhookEvent {
  event: string;
  entityRef: string;
  entityType: string | null;
  eventType: string;
  identifiers?: { type: string; value: string }[];
  [k: string]: unknown;
}

export interface Receiver {
  url: string;
  port: number;
  delivered: Delivered[];
  /** Every request, challenge or delivery, as "challenge" / "delivery" / "refused" (a failure it answered). */
  log: string[];
  failNext: number;
  /** Status to answer deliveries with while failing (default 503). */
  failStatus: number;
  wrongChallenge: boolean;
  close(): Promise<void>;
  /** Waits until `n` verified deliveries have arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<Delivered[]>;
}

export function hmac(secret: string, message: string): string {
  return createHmac("sha256", secret).update(message).digest("hex");
}

export async function startReceiver(secret: string, port = 0): Promise<Receiver> {
  const state = {
    delivered: [] as Delivered[],
    log: [] as string[],
    failNext: 0,
    failStatus: 503,
    wrongChallenge: false,
  };
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const code = url.searchParams.get("challengeCode");
    const parts: Buffer[] = [];
    req.on("data", (d: Buffer) => parts.push(d));
    req.on("end", () => {
      if (code !== null) {
        state.log.push("challenge");
        const response = state.wrongChallenge ? hmac(`${secret}-not`, code) : hmac(secret, code);
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(`{ "challengeCode": "${code}",     "challengeResponse": "${response}" }`);
        return;
      }
      if (state.failNext > 0) {
        state.failNext--;
        state.log.push("refused");
        res.writeHead(state.failStatus, state.failStatus === 302 ? { Location: "http://127.0.0.1:9/" } : {});
        res.end();
        return;
      }
      state.log.push("delivery");
      const body = Buffer.concat(parts).toString("utf8");
      const verified = req.headers["preservica-signature"] === hmac(secret, `preservica-webhook-auth${body}`);
      state.delivered.push({ headers: req.headers, body, verified, json: JSON.parse(body) });
      res.writeHead(verified ? 200 : 401);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const bound = (server.address() as AddressInfo).port;
  const receiver: Receiver = {
    url: `http://127.0.0.1:${bound}/hook`,
    port: bound,
    get delivered() {
      return state.delivered;
    },
    get log() {
      return state.log;
    },
    get failNext() {
      return state.failNext;
    },
    set failNext(n: number) {
      state.failNext = n;
    },
    get failStatus() {
      return state.failStatus;
    },
    set failStatus(n: number) {
      state.failStatus = n;
    },
    get wrongChallenge() {
      return state.wrongChallenge;
    },
    set wrongChallenge(v: boolean) {
      state.wrongChallenge = v;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
    async waitFor(n: number, timeoutMs = 15_000) {
      const until = Date.now() + timeoutMs;
      while (state.delivered.length < n) {
        if (Date.now() > until) {
          throw new Error(
            `only ${state.delivered.length} of ${n} deliveries arrived (log: ${state.log.join(",")})`,
          );
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      return state.delivered;
    },
  };
  return receiver;
}
