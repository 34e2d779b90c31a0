import { isIP } from "node:net";
import { normaliseHost } from "./settings.js";

/**
 * Which receiver URLs the service may call. Only http(s), no credentials in the URL, and a host that is
 * loopback or one of the configured allowed hosts: a subscription is a request to make the service send
 * HTTP requests, and it must not reach arbitrary addresses from wherever the service runs.
 */

export function isLoopbackHost(host: string): boolean {
  const h = normaliseHost(host);
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  if (isIP(h) === 6) {
    if (h === "::1" || h === "0:0:0:0:0:0:0:1") return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
    return mapped?.[1]?.startsWith("127.") === true;
  }
  return false;
}

/** Why the URL may not receive webhooks, or undefined when it may. */
export function receiverProblem(raw: string, allowedHosts: readonly string[]): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `"${raw.slice(0, 100)}" is not an absolute URL; give the receiver's address, such as http://127.0.0.1:8081/hook`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `The receiver URL must be http or https, not ${url.protocol.replace(/:$/, "")}`;
  }
  if (url.username || url.password) {
    return "Put no user name or password in the receiver URL; deliveries are signed with the subscription's secret instead";
  }
  if (url.hash) return "The receiver URL must not have a #fragment";
  const host = normaliseHost(url.hostname);
  if (isLoopbackHost(host) || allowedHosts.includes(host)) return undefined;
  const allowed = allowedHosts.length > 0 ? `, or one of ${allowedHosts.join(", ")}` : "";
  return `Receivers must be on this machine (localhost, 127.0.0.1, ::1)${allowed}; ${host} is not allowed. An administrator can allow more hosts when starting the service (--webhook-hosts)`;
}
