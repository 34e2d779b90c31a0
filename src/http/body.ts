/**
 * The request body of a Streamable HTTP POST, read with a size limit, and the JSON-RPC id of a body too large
 * to accept: found in what was read (the limit's worth), so the refusal still answers the request it refuses.
 */

/** 4 MiB: the SDK's own default, hundreds of times the largest legitimate tool call (metadata XML included). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

export type BoundedBody = { tooLarge: false; text: string } | { tooLarge: true; prefix: string };

/**
 * Reads at most `limit` bytes (plus the chunk that crosses it). A declared Content-Length over the limit is
 * refused as soon as the prefix is read, like a chunked body that runs over it; the rest is never buffered.
 */
export async function readBounded(request: Request, limit: number): Promise<BoundedBody> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      text += decoder.decode(value, { stream: true });
      if (bytes > limit) {
        reader.releaseLock();
        return { tooLarge: true, prefix: text };
      }
    }
  }
  text += decoder.decode();
  // A body shorter than it claimed was cut off; one longer than the limit is refused either way.
  if (declared > limit) return { tooLarge: true, prefix: text };
  return { tooLarge: false, text };
}

/**
 * The `id` member of the top-level JSON object in `text`, which may be cut off anywhere: a string or a number,
 * or null when the text is not an object, the id is not there (yet), or it is of another type. Members of
 * nested objects (a tool's arguments may well have an `id`) are skipped.
 */
export function topLevelId(text: string): string | number | null {
  let i = text.search(/\S/);
  if (i < 0 || text[i] !== "{") return null;
  let depth = 0;
  for (; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const end = stringEnd(text, i);
      if (end < 0) return null;
      if (depth === 1) {
        const colon = skipSpace(text, end + 1);
        if (text[colon] === ":" && JSON.parse(text.slice(i, end + 1)) === "id") {
          return idValue(text, skipSpace(text, colon + 1));
        }
      }
      i = end;
    } else if (c === "{" || c === "[") {
      depth++;
    } else if (c === "}" || c === "]") {
      depth--;
    }
  }
  return null;
}

/** Index of the quote closing the string that opens at `start`, or -1 when the text ends first. */
function stringEnd(text: string, start: number): number {
  for (let j = start + 1; j < text.length; j++) {
    if (text[j] === "\\") j++;
    else if (text[j] === '"') return j;
  }
  return -1;
}

function skipSpace(text: string, from: number): number {
  let j = from;
  while (j < text.length && /\s/.test(text[j] as string)) j++;
  return j;
}

function idValue(text: string, at: number): string | number | null {
  if (text[at] === '"') {
    const end = stringEnd(text, at);
    return end < 0 ? null : (JSON.parse(text.slice(at, end + 1)) as string);
  }
  const number = text.slice(at, at + 40).match(/^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?=\s*[,}])/);
  return number ? Number(number[0]) : null;
}
