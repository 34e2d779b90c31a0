import { createHash } from "node:crypto";
import { UserInputError } from "../define.js";

/**
 * Paging cursors: opaque to the model, plain to us. A cursor is base64url JSON of the next offset and a
 * short hash of the question it belongs to, so a cursor passed back with different filters is refused
 * instead of silently paging through another result. It carries no state on the server (no session),
 * so it works across connections and restarts.
 */

interface CursorBody {
  /** Offset of the first item of the next page. */
  o: number;
  /** Hash of the tool name and the arguments that define the result (not cursor or limit). */
  h: string;
}

/** JSON with object keys sorted at every level, so equal arguments hash equally. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The identity of a question: the tool and every argument except `cursor` and `limit`. */
export function queryHash(tool: string, args: Record<string, unknown>): string {
  const { cursor: _cursor, limit: _limit, ...rest } = args;
  return createHash("sha256")
    .update(`${tool}\n${stableJson(rest)}`)
    .digest("base64url")
    .slice(0, 12);
}

export function encodeCursor(offset: number, hash: string): string {
  const body: CursorBody = { o: offset, h: hash };
  return Buffer.from(JSON.stringify(body)).toString("base64url");
}

/** The offset a cursor stands for (0 without one); a cursor from another question is a UserInputError. */
export function decodeCursor(cursor: string | undefined, hash: string): number {
  if (cursor === undefined || cursor === "") return 0;
  let body: Partial<CursorBody> | undefined;
  try {
    body = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as Partial<CursorBody>;
  } catch {
    body = undefined;
  }
  if (!body || typeof body.o !== "number" || !Number.isSafeInteger(body.o) || body.o < 0) {
    throw new UserInputError(
      "The cursor is not one this tool returned; pass `nextCursor` from the previous answer unchanged, or leave it out to start again.",
    );
  }
  if (body.h !== hash) {
    throw new UserInputError(
      "The cursor belongs to a different question (other filters or ref); repeat the call with the same arguments, or leave the cursor out to start again.",
    );
  }
  return body.o;
}

export interface PageFacts {
  total: number;
  hasMore: boolean;
  nextCursor?: string;
}

/** Totals and the next cursor for a page of `shown` items that started at `offset`. */
export function pageFacts(offset: number, shown: number, total: number, hash: string): PageFacts {
  const hasMore = shown > 0 && offset + shown < total;
  return { total, hasMore, ...(hasMore ? { nextCursor: encodeCursor(offset + shown, hash) } : {}) };
}
