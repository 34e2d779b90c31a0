import { maxHeaderSize, type Server, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { RequestError } from "@hono/node-server";

/**
 * Answers for requests that never reach the app: ones Node's HTTP parser refuses (bad request line,
 * bad headers, headers over the size limit) and ones the Hono adapter cannot turn into a URL (a
 * backslash in the path, an invalid Host). Node and the adapter answer these with an empty body; the
 * service's clients expect the same JSON `{success:false, message}` as every other error.
 */

function json(status: number, message: string): { status: number; body: string } {
  return { status, body: JSON.stringify({ success: false, message }) };
}

function parserErrorReply(code: string | undefined, headerLimit: number) {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return json(
        431,
        `The request line and headers are larger than ${headerLimit / 1024} KiB; send long parameters (such as q) in a form-encoded POST body instead of the URL`,
      );
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return json(413, "The chunk extensions of the request body are too large; send the body without them");
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return json(408, "The request was not received in time; send it again");
    default:
      return json(
        400,
        "The request is not valid HTTP/1.1 (malformed request line, header or body framing); check the client",
      );
  }
}

/** Node's own (undocumented, long-standing) link from a socket to its response in flight. */
interface InFlight {
  _httpMessage?: { _headerSent?: boolean } | null;
}

/** Replaces Node's default `clientError` answer (an empty 400/431) with a JSON one. */
export function answerClientErrors(server: Server): void {
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex & InFlight) => {
    // As Node's default handler: answer unless a response on this connection has begun (a kept-alive
    // connection has carried earlier, finished ones), since bytes written now would corrupt it.
    if (err.code === "ECONNRESET" || !socket.writable || socket._httpMessage?._headerSent) {
      socket.destroy();
      return;
    }
    const { status, body } = parserErrorReply(err.code, maxHeaderSize);
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        "Content-Type: application/json\r\n" +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        "Connection: close\r\n\r\n" +
        body,
    );
  });
}

/**
 * The adapter's error handler. Requests it could not build (its RequestError) are the client's 400;
 * anything else escaped the app's own error handler and is logged like any other internal error.
 */
export function requestErrorReply(err: unknown): Response {
  const reply =
    err instanceof RequestError
      ? json(400, `The request could not be read (${err.message}); check the URL and the Host header`)
      : json(500, "Internal error; see the repository service's log");
  if (reply.status === 500) console.error("repository: request failed outside the app:", err);
  return new Response(reply.body, { status: reply.status, headers: { "Content-Type": "application/json" } });
}
