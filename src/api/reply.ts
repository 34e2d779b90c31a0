import { UnexpectedResponseError } from "./errors.js";

/** Where a reply came from, for the error that says it could not be read. */
export interface ReplyOrigin {
  status: number;
  operation: string;
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
}

/**
 * Runs a pure reader over a reply, turning a shape it cannot read into an UnexpectedResponseError that
 * names the request, so a changed or broken service reads as such and not as a bug of ours.
 */
export function readReply<T>(origin: ReplyOrigin, reader: () => T): T {
  try {
    return reader();
  } catch (err) {
    throw unreadableReply(origin, err);
  }
}

/** The error readReply throws when `err` came out of a reader (for callers that run their reader inline). */
export function unreadableReply(origin: ReplyOrigin, err: unknown): UnexpectedResponseError {
  return new UnexpectedResponseError({
    ...origin,
    detail: `unexpected reply: ${(err as Error).message}`,
    cause: err,
  });
}

/** `{ key: value }`, or nothing when the value is missing: optional fields stay absent, not undefined. */
export function opt<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
