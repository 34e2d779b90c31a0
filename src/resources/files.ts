import type { Readable } from "node:stream";
import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  ResourceTemplate,
} from "@modelcontextprotocol/server";
import { isTextMediaType, mediaType } from "../tools/support/file-text.js";
import { formatBytes } from "../tools/support/text.js";
import { completeFileIndexes, completeFragments, completeRefs } from "./complete.js";
import { asResourceError, requireIndex, requireRef } from "./errors.js";
import type { ResourceRegistrar } from "./types.js";
import { metadataUri } from "./uris.js";

/**
 * Metadata fragments (the XML document itself) and files (bitstreams) as resources. Files are inlined only
 * up to a cap: text as text, everything else as base64; a larger file is refused with a pointer to the
 * `get_file` tool, which reads ranges and pages, so a resource read can never flood a client's context.
 */

/** The most bytes a bitstream resource inlines (base64 makes a blob a third larger on the wire). */
export const MAX_RESOURCE_BYTES = 1024 * 1024;

const XML_MIME = "application/xml";

function charsetOf(contentType: string | undefined): string {
  const cs = contentType?.match(/charset="?([\w-]+)"?/i)?.[1];
  try {
    if (cs) return new TextDecoder(cs).encoding;
  } catch {
    // an unknown charset: read as UTF-8
  }
  return "utf-8";
}

function tooLarge(uri: string, filename: string, size: number): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `${filename || "This file"} is ${formatBytes(size)}, over the ${formatBytes(MAX_RESOURCE_BYTES)} limit for reading a file as a resource; read it in parts with the \`get_file\` tool`,
    { uri, reason: "too_large", size, limit: MAX_RESOURCE_BYTES },
  );
}

/** Reads a stream to the end, or throws once it passes `limit` bytes (and stops the download). */
export async function readCapped(
  stream: Readable,
  limit: number,
  onOver: (seen: number) => Error,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let seen = 0;
  try {
    for await (const chunk of stream) {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      seen += buf.length;
      if (seen > limit) throw onOver(seen);
      chunks.push(buf);
    }
  } finally {
    if (!stream.readableEnded) stream.destroy();
  }
  return Buffer.concat(chunks);
}

export const registerFileResources: ResourceRegistrar = (server, deps) => {
  const { entity, content, log } = deps;

  server.registerResource(
    "metadata",
    new ResourceTemplate("preservation://metadata/{entityRef}/{mref}", {
      // Fragments are listed by the entity they describe (folder, asset and content object resources).
      list: undefined,
      complete: {
        entityRef: (value) => completeRefs(content, ["SO", "IO"], value, log),
        mref: (value, ctx) => completeFragments(entity, ctx?.arguments?.entityRef, value, log),
      },
    }),
    {
      title: "Metadata fragment",
      description:
        "One descriptive metadata document of an entity (Dublin Core, accession records, …), verbatim XML.",
      mimeType: XML_MIME,
    },
    async (uri, vars, ctx) => {
      const entityRef = requireRef(vars.entityRef, "entityRef", "entity");
      const mref = requireRef(vars.mref, "mref", "metadata fragment");
      const signal = ctx.mcpReq.signal;
      try {
        const owner = await entity.get(entityRef, undefined, signal);
        const fragment = owner.fragments.find((f) => f.mref.toLowerCase() === mref.toLowerCase());
        if (!fragment) {
          const known = owner.fragments.map((f) => metadataUri(entityRef, f.mref));
          throw new ResourceNotFoundError(
            uri.href,
            known.length
              ? `"${owner.title}" has no metadata fragment ${mref}; its fragments are ${known.join(", ")}`
              : `"${owner.title}" has no metadata fragments`,
          );
        }
        const md = await entity.metadata(fragment, signal);
        return { contents: [{ uri: uri.href, mimeType: XML_MIME, text: md.document }] };
      } catch (err) {
        throw asResourceError(
          err,
          uri.href,
          `No entity ${entityRef} (or it is not visible to you); find one with the \`search\` tool`,
          log,
        );
      }
    },
  );

  server.registerResource(
    "bitstream",
    new ResourceTemplate("preservation://bitstream/{coRef}/{generation}/{index}", {
      // Files are listed by their content object (preservation://content-object/{ref}).
      list: undefined,
      complete: {
        coRef: (value) => completeRefs(content, ["CO"], value, log),
        generation: (value, ctx) =>
          completeFileIndexes(entity, { coRef: ctx?.arguments?.coRef }, "generation", value, log),
        index: (value, ctx) =>
          completeFileIndexes(
            entity,
            { coRef: ctx?.arguments?.coRef, generation: ctx?.arguments?.generation },
            "index",
            value,
            log,
          ),
      },
    }),
    {
      title: "File (bitstream)",
      description: `The bytes of one file of a content object: text for text formats, base64 otherwise, up to ${formatBytes(MAX_RESOURCE_BYTES)}; larger files through the \`get_file\` tool.`,
    },
    async (uri, vars, ctx) => {
      const coRef = requireRef(vars.coRef, "coRef", "content object");
      const generation = requireIndex(vars.generation, "generation");
      const index = requireIndex(vars.index, "index");
      const signal = ctx.mcpReq.signal;
      try {
        const facts = await entity.bitstream(coRef, generation, index, signal);
        if (facts.size > MAX_RESOURCE_BYTES) throw tooLarge(uri.href, facts.filename, facts.size);
        const file = await entity.bitstreamContent(coRef, generation, index, { signal });
        const bytes = await readCapped(file.stream, MAX_RESOURCE_BYTES, (seen) =>
          tooLarge(uri.href, facts.filename, Math.max(seen, facts.size)),
        );
        const mimeType = mediaType(file.contentType, facts.filename || file.filename || "");
        if (isTextMediaType(mimeType)) {
          const text = new TextDecoder(charsetOf(file.contentType)).decode(bytes);
          return { contents: [{ uri: uri.href, mimeType, text }] };
        }
        return { contents: [{ uri: uri.href, mimeType, blob: bytes.toString("base64") }] };
      } catch (err) {
        throw asResourceError(
          err,
          uri.href,
          `No file ${index} in generation ${generation} of content object ${coRef}; read preservation://content-object/${coRef} for its files`,
          log,
        );
      }
    },
  );
};
