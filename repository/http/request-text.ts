import type { HonoRequest } from "hono";

/**
 * The text of a request body that is declared (or assumed) to be UTF-8.
 *
 * A body that is not valid UTF-8 is read as ISO-8859-1 instead of having its bad bytes replaced with
 * U+FFFD. pyPreservica sends some XML bodies as a Python `str` (update_metadata, and
 * add_metadata_as_fragment): Python's http.client encodes a `str` body as ISO-8859-1 while the header
 * still says `charset=UTF-8`, so "Crème" arrives as `Cr\xE8me`. Decoding those bytes as UTF-8 silently
 * stored "Cr\uFFFDme". Every byte sequence is valid ISO-8859-1, and a valid UTF-8 body is never
 * reinterpreted (ISO-8859-1 text with accented letters is almost never valid UTF-8 by accident), so
 * this only changes what would otherwise be corrupted.
 */
export async function requestText(req: HonoRequest): Promise<string> {
  const bytes = Buffer.from(await req.arrayBuffer());
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return bytes.toString("latin1");
  }
}

// Like `Request.text()`, drops a leading byte order mark.
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
