import type { McpServer } from "@modelcontextprotocol/server";

/**
 * A call of a tool this session does not offer (a reader calling `update_entity`, any caller in read-only
 * mode) gets an answer the model can pass on, saying why and what to do, instead of the SDK's bare protocol
 * error "Tool update_entity not found". The SDK answers unknown tools inside its one `tools/call` handler
 * (McpServer.setToolRequestHandlers), the same for both protocol eras and with no hook for it, so that
 * handler is wrapped: a name `explain` knows is answered here; every other call goes to the SDK's handler
 * unchanged (validation, the 2026-07-28 input-required path, result checks). Should a later SDK keep its
 * handlers elsewhere, nothing is wrapped and the protocol error stays (test/not-offered.test.ts notices).
 */

type Handler = (request: { params?: { name?: unknown } }, ctx: unknown) => Promise<unknown>;

export function answerToolsNotOffered(
  server: McpServer,
  explain: (name: string) => string | undefined,
): boolean {
  const handlers = (server.server as unknown as { _requestHandlers?: Map<string, Handler> })._requestHandlers;
  const sdk = handlers?.get("tools/call");
  if (!handlers || !sdk) return false;
  // Not async: every call passes here, and the SDK's own promise is handed on as it is, with no extra turn.
  handlers.set("tools/call", (request, ctx) => {
    const name = request.params?.name;
    const why = typeof name === "string" ? explain(name) : undefined;
    if (why === undefined) return sdk(request, ctx);
    return Promise.resolve({ content: [{ type: "text", text: why }], isError: true });
  });
  return true;
}
