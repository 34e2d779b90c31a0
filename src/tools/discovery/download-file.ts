import { createHash, type Hash, randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { link, mkdir, unlink } from "node:fs/promises";
import { basename, join, resolve, sep } from "node:path";
import { pipeline } from "node:stream/promises";
import { z } from "zod";
import { isServiceError } from "../../api/errors.js";
import { existingSaveTarget } from "../../local/save-target.js";
import type { ToolContext } from "../context.js";
import { defineTool, UserInputError } from "../define.js";
import { resolveFile } from "../support/files.js";
import { ADDITIVE } from "../support/hints.js";
import { byteMeter } from "../support/meter.js";
import { formatBytes, lines } from "../support/text.js";
import { fileChoice, fixity } from "./params.js";

/**
 * Saves one file to the download folder the person configured (PRESERVATION_DOWNLOAD_DIR), verifying it
 * against every fixity the repository records before it appears under its name. The bytes go to a hidden
 * part file first and are linked into place only when size and fixities match, so a failed or cancelled
 * download leaves nothing behind, and an existing file is never overwritten.
 */

const HASHES: Record<string, string> = {
  MD5: "md5",
  SHA1: "sha1",
  "SHA-1": "sha1",
  SHA256: "sha256",
  "SHA-256": "sha256",
  SHA512: "sha512",
  "SHA-512": "sha512",
};
const PROGRESS_EVERY = 1024 * 1024;

const input = z.object({
  ...fileChoice,
  saveAs: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe("File name to save as, inside the download folder (default: the file's own name)"),
});

const output = z.object({
  path: z.string(),
  bytes: z.number(),
  contentObject: z.string(),
  generation: z.number(),
  bitstream: z.number(),
  verified: z
    .array(fixity)
    .describe("Fixities recomputed from the saved bytes, all matching the repository's"),
});

/** A plain file name: no folders, no parent references, no control characters. */
function safeName(name: string): string {
  const trimmed = name.trim();
  if (
    trimmed !== basename(trimmed) ||
    trimmed.includes("/") ||
    trimmed.includes("\\") ||
    trimmed === "." ||
    trimmed === ".." ||
    trimmed.startsWith(".") ||
    // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point.
    /[\u0000-\u001f]/.test(trimmed)
  ) {
    throw new UserInputError(
      `"${name}" is not a plain file name; give a name without folders (it is saved in the download folder). Nothing was saved.`,
    );
  }
  return trimmed;
}

export default defineTool({
  name: "download_file",
  title: "Download a file",
  description:
    "Save one file of an asset or content object into the configured download folder, verified against the repository's fixity (MD5/SHA). Never overwrites. Use `get_file` first to see what the file is.",
  toolset: "discovery",
  requires: "local-downloads",
  // Writes to the person's disk, not the repository: read-only mode keeps it.
  localOnly: true,
  transfersFiles: true,
  inputSchema: input,
  outputSchema: output,
  annotations: ADDITIVE,
  async handler(args, ctx: ToolContext) {
    const folder = ctx.config.downloadDir;
    if (!folder) throw new UserInputError("No download folder is configured (PRESERVATION_DOWNLOAD_DIR).");
    const file = await resolveFile(ctx, args);
    const name = safeName(args.saveAs ?? file.facts.filename);
    const target = resolve(folder, name);
    if (!target.startsWith(resolve(folder) + sep)) {
      throw new UserInputError(`"${name}" would fall outside the download folder. Nothing was saved.`);
    }
    if (await existingSaveTarget(target)) {
      throw new UserInputError(
        `${target} already exists; files are never overwritten. Pass saveAs with another name. Nothing was saved.`,
      );
    }
    const checks = file.facts.fixities
      .map((f) => ({ f, alg: HASHES[f.algorithm.toUpperCase()] }))
      .filter((c): c is { f: (typeof file.facts.fixities)[number]; alg: string } => c.alg !== undefined);
    const hashes: Hash[] = checks.map((c) => createHash(c.alg));

    await mkdir(folder, { recursive: true });
    const part = join(folder, `.${name}.${randomUUID()}.part`);
    const total = file.facts.size;
    const { meter, bytes: received } = byteMeter(
      PROGRESS_EVERY,
      (n) => void ctx.progress(n, total || undefined, `${formatBytes(n)} of ${formatBytes(total)}`),
      (chunk) => {
        for (const h of hashes) h.update(chunk);
      },
    );
    try {
      const content = await ctx.entity.bitstreamContent(
        file.contentObject,
        file.generation.index,
        file.bitstream,
        {
          signal: ctx.signal,
        },
      );
      await pipeline(content.stream, meter, createWriteStream(part, { flags: "wx" }), { signal: ctx.signal });
      const bytes = received();
      if (total > 0 && bytes !== total) {
        throw new Error(`received ${bytes} bytes, but the repository records ${total}`);
      }
      const verified = checks.map((c, i) => ({
        algorithm: c.f.algorithm,
        value: hashes[i]?.digest("hex") ?? "",
      }));
      const bad = verified.find((v, i) => v.value.toLowerCase() !== checks[i]?.f.value.toLowerCase());
      if (bad)
        throw new Error(`${bad.algorithm} of the received bytes does not match the repository's fixity`);
      // link() fails if the name appeared meanwhile, so even a race never overwrites a file.
      await link(part, target);
      await ctx.progress(bytes, total || bytes, "saved");
      return {
        structured: {
          path: target,
          bytes,
          contentObject: file.contentObject,
          generation: file.generation.index,
          bitstream: file.bitstream,
          verified,
        },
        // The exact byte count and the full digests: what a person compares with another copy.
        text: lines(
          `Saved ${target} (${bytes.toLocaleString("en")} bytes${bytes >= 1024 ? `, ${formatBytes(bytes)}` : ""}).`,
          `From content object ${file.contentObject}, generation ${file.generation.index}, file ${file.bitstream}.`,
          verified.length > 0
            ? `Verified against the repository's fixity: ${verified.map((v) => `${v.algorithm} ${v.value}`).join("; ")}.`
            : "The repository records no fixity for this file, so it could not be verified.",
        ),
      };
    } catch (err) {
      if (err instanceof UserInputError || isServiceError(err)) throw err;
      if ((err as NodeJS.ErrnoException).code === "EEXIST") {
        throw new UserInputError(
          `${target} appeared while downloading; it was left alone. Nothing was saved.`,
        );
      }
      if (ctx.signal.aborted) throw new UserInputError("The download was cancelled. Nothing was saved.");
      throw new UserInputError(`The download failed: ${(err as Error).message}. Nothing was saved.`);
    } finally {
      await unlink(part).catch(() => {});
    }
  },
});
