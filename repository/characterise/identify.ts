import { type IdentifiedFormat, identifyFormat } from "../formats.js";
import { PRONOM_BY_FILE_TYPE } from "./pronom.js";

/**
 * A file's format from its content: the signatures repository/formats.ts reads with their versions (PDF
 * 1.x, JFIF, GIF 87a/89a, the WAV header kinds, PNG, TIFF, ZIP, XML) first; then the `file-type` library's
 * signatures (well over a hundred formats: audio, video, office documents, archives, camera raw),
 * mapped to PRONOM by pronom.ts; only then text sniffing or, failing all, the file name's extension.
 */
export async function identifyContent(head: Uint8Array, filename: string): Promise<IdentifiedFormat> {
  const ours = identifyFormat(head, filename);
  if (ours.method === "Signature" && !isTextGuess(ours)) return ours;
  // Loaded on first use: file-type and the tokenizers under it (strtok3, token-types, debug) cost every start of
  // the service a few milliseconds of loading, and only characterisation needs them.
  const { fileTypeFromBuffer } = await import("file-type");
  const detected = await fileTypeFromBuffer(head).catch(() => undefined);
  const pronom = detected && PRONOM_BY_FILE_TYPE[detected.ext];
  if (detected && pronom) return { ...pronom, mimeType: detected.mime, method: "Signature" };
  return ours;
}

/** Text is recognised by the absence of binary bytes, which a binary signature outranks. */
function isTextGuess(f: IdentifiedFormat): boolean {
  return f.mimeType.startsWith("text/") || f.mimeType === "application/json";
}
