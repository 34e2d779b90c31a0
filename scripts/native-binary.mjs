/**
 * Which operating system and CPU a native addon (.node) was built for, read from its file header: ELF
 * (Linux), Mach-O (macOS) or PE (Windows). Used by the bundle script to check the binaries it stages and by
 * the bundle test to check the binaries in the packed archive; neither loads a binary to find out.
 */
import { closeSync, openSync, readSync } from "node:fs";

/** Enough of the start of a file for every header read below (PE headers sit at an offset given at 0x3c). */
export const HEADER_BYTES = 4096;

// The CPU field of each format, as the format's own documentation writes it (hex), to `process.arch`.
const ELF_MACHINES = new Map([
  [0x03, "ia32"],
  [0x28, "arm"],
  [0x3e, "x64"],
  [0xb7, "arm64"],
]);
const MACHO_CPUS = new Map([
  [0x07, "ia32"],
  [0x0c, "arm"],
  [0x01000007, "x64"],
  [0x0100000c, "arm64"],
]);
const PE_MACHINES = new Map([
  [0x014c, "ia32"],
  [0x01c4, "arm"],
  [0x8664, "x64"],
  [0xaa64, "arm64"],
]);

/**
 * The `process.platform` and `process.arch` a binary whose first bytes are `head` runs on;
 * "unknown" for what it cannot tell (a universal Mach-O is darwin with arch "universal").
 */
export function binaryTarget(head) {
  const unknown = { platform: "unknown", arch: "unknown" };
  if (head.length < 64) return unknown;
  if (head.toString("latin1", 0, 4) === "\x7fELF") {
    const littleEndian = head[5] === 1;
    const machine = littleEndian ? head.readUInt16LE(18) : head.readUInt16BE(18);
    return { platform: "linux", arch: ELF_MACHINES.get(machine) ?? "unknown" };
  }
  if (head.toString("latin1", 0, 2) === "MZ") {
    const peOffset = head.readUInt32LE(0x3c);
    if (peOffset + 6 > head.length || head.toString("latin1", peOffset, peOffset + 4) !== "PE\0\0") {
      return { platform: "win32", arch: "unknown" };
    }
    return { platform: "win32", arch: PE_MACHINES.get(head.readUInt16LE(peOffset + 4)) ?? "unknown" };
  }
  const magic = head.readUInt32BE(0);
  if (magic === 0xcafebabe) return { platform: "darwin", arch: "universal" };
  if (magic === 0xfeedface || magic === 0xfeedfacf) {
    return { platform: "darwin", arch: MACHO_CPUS.get(head.readUInt32BE(4)) ?? "unknown" };
  }
  if (magic === 0xcefaedfe || magic === 0xcffaedfe) {
    return { platform: "darwin", arch: MACHO_CPUS.get(head.readUInt32LE(4)) ?? "unknown" };
  }
  return unknown;
}

/** `binaryTarget` of a file on disk. */
export function fileBinaryTarget(file) {
  const fd = openSync(file, "r");
  const head = Buffer.alloc(HEADER_BYTES);
  try {
    const read = readSync(fd, head, 0, HEADER_BYTES, 0);
    return binaryTarget(head.subarray(0, read));
  } finally {
    closeSync(fd);
  }
}
