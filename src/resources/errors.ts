import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError } from "@modelcontextprotocol/server";
import type { Logger } from "pino";
import { looksLikeRef } from "../api/entity.js";
import { isNotFound, isServiceError } from "../api/errors.js";
import { toUserMessage } from "../server/errors.js";

/**
 * How a resource read fails, in the protocol's terms (resource handlers answer with JSON-RPC errors, not
 * `isError` results): a malformed URI variable is InvalidParams, an unknown entity is ResourceNotFoundError,
 * and anything else becomes one short actionable sentence. Status and the service's message go to the log.
 */

/** A URI template variable as one decoded string (the SDK hands over the raw, still-encoded text). */
export function variable(value: string | string[] | undefined, name: string): string {
  const raw = Array.isArray(value) ? value.join(",") : (value ?? "");
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `The ${name} in the URI is not valid percent-encoding`,
    );
  }
}

/** A reference from a URI, or InvalidParams saying how to find a good one. */
export function requireRef(value: string | string[] | undefined, name: string, what: string): string {
  const ref = variable(value, name);
  if (!looksLikeRef(ref)) {
    // Fragment refs are not found by title: an entity lists its own.
    const how =
      name === "mref"
        ? "the entity's fragments are listed by the `get_entity` tool and by completing the URI's mref"
        : `find refs with the \`search\` or \`browse\` tools, or complete the URI's ${name} by title`;
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `"${ref}" is not a valid ${what} reference (expected a UUID); ${how}`,
      { reason: "invalid_ref", [name]: ref },
    );
  }
  return ref;
}

/** A positive whole number from a URI (generation and bitstream indexes count from 1). */
export function requireIndex(value: string | string[] | undefined, name: string): number {
  const raw = variable(value, name);
  if (!/^[1-9]\d{0,8}$/.test(raw)) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `The ${name} in the URI must be a whole number from 1, got "${raw}"`,
      { reason: "invalid_index", [name]: raw },
    );
  }
  return Number(raw);
}

/**
 * Any failure of a read as a protocol error. ProtocolErrors pass through; a 404 from the service becomes
 * ResourceNotFoundError with `notFound` as its message; the rest become InternalError (403: InvalidRequest)
 * with the same sentence a tool would show.
 */
export function asResourceError(err: unknown, uri: string, notFound: string, log: Logger): ProtocolError {
  if (err instanceof ProtocolError) return err;
  if (isNotFound(err)) return new ResourceNotFoundError(uri, notFound);
  log.warn(
    {
      uri,
      err: isServiceError(err) ? err.toJSON() : { name: (err as Error)?.name, message: String(err) },
    },
    "resource read failed",
  );
  const message = toUserMessage(err, "reading the resource");
  const code =
    isServiceError(err) && err.status === 403
      ? ProtocolErrorCode.InvalidRequest
      : ProtocolErrorCode.InternalError;
  return new ProtocolError(code, message, { uri });
}
