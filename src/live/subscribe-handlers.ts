import { type McpServer, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { ROOT_URI } from "../resources/uris.js";

/**
 * The 2025-era `resources/subscribe` and `resources/unsubscribe` requests, on a server instance that belongs
 * to a session (live-resources on). What a session watches is held by its sink; the updates arrive on the
 * session's stream (legacy-sessions.ts). 2026-07-28 clients use `subscriptions/listen` instead, which the
 * SDK's listen router serves from the same event bus.
 */

export interface SubscriptionSink {
  subscribe(uri: string): void;
  unsubscribe(uri: string): void;
}

/** The resources whose changes the repository's webhooks report: entities, their metadata and their files. */
const WATCHABLE =
  /^preservation:\/\/(?:(?:folder|asset|content-object)\/[^/?#]+|metadata\/[^/?#]+\/[^/?#]+|bitstream\/[^/?#]+\/\d+\/\d+)$/;

/** Why `uri` cannot be watched, or undefined when it can. */
export function unwatchableReason(uri: unknown): string | undefined {
  if (typeof uri !== "string" || uri.length === 0) return "uri is required";
  if (uri.length > 512) return "uri is too long";
  if (uri === ROOT_URI || WATCHABLE.test(uri)) return undefined;
  return `${uri.slice(0, 120)} is not a resource this server can watch: subscribe to preservation://root or a preservation://folder/…, asset/…, content-object/…, metadata/… or bitstream/… URI (resources/list and the resource templates give them)`;
}

export function offerSubscriptions(server: McpServer, sink: SubscriptionSink): void {
  server.server.setRequestHandler("resources/subscribe", async (req) => {
    const uri = req.params?.uri;
    const why = unwatchableReason(uri);
    if (why) throw new ProtocolError(ProtocolErrorCode.InvalidParams, why);
    sink.subscribe(uri as string);
    return {};
  });
  server.server.setRequestHandler("resources/unsubscribe", async (req) => {
    const uri = req.params?.uri;
    if (typeof uri !== "string") throw new ProtocolError(ProtocolErrorCode.InvalidParams, "uri is required");
    sink.unsubscribe(uri);
    return {};
  });
}
