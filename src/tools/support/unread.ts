import { isServiceError, XmlParseError } from "../../api/errors.js";
import { toUserMessage } from "../../server/errors.js";
import type { ToolContext } from "../context.js";

/**
 * A tool that fans out to several requests (an asset's representations, each content object's files, each
 * history) answers with what it read when one of them fails, and names what it could not read and why,
 * rather than losing the whole answer to one failed sub-request. Only the service's failures are kept
 * this way: a cancelled call still ends, and a fault of our own still surfaces.
 */
export interface UnreadPart {
  /** What could not be read, e.g. "the Access representation 2 of asset 6f1c…". */
  part: string;
  /** Why, in the words the error boundary would use. */
  reason: string;
}

export class UnreadParts {
  readonly items: UnreadPart[] = [];

  constructor(
    private readonly ctx: Pick<ToolContext, "signal">,
    private readonly tool: string,
  ) {}

  /** `read()`, or undefined (with `part` recorded) when the service failed it. */
  async attempt<T>(part: string, read: () => Promise<T>): Promise<T | undefined> {
    try {
      return await read();
    } catch (err) {
      if (this.ctx.signal.aborted || !(isServiceError(err) || err instanceof XmlParseError)) throw err;
      this.items.push({ part, reason: reasonOf(err, this.tool) });
      return undefined;
    }
  }

  /** "Not read: …" for the end of an answer's text, or undefined when everything was read. */
  text(): string | undefined {
    if (this.items.length === 0) return undefined;
    return `Not read (the rest of this answer stands): ${this.items.map((u) => `${u.part}: ${u.reason}`).join(" ")}`;
  }
}

function reasonOf(err: unknown, tool: string): string {
  // A 404 here is for something the service itself listed a moment ago: not a ref the person mistyped.
  if (isServiceError(err) && err.isNotFound) {
    return `the service answered HTTP 404 (not found; removed meanwhile, or hidden from you)${err.serviceMessage ? `: "${err.serviceMessage}"` : ""}.`;
  }
  return toUserMessage(err, tool);
}
