/** Types of scripts/native-binary.mjs, for the tests that import it. */
export interface BinaryTarget {
  platform: "linux" | "darwin" | "win32" | "unknown";
  arch: "ia32" | "arm" | "x64" | "arm64" | "universal" | "unknown";
}
export const HEADER_BYTES: number;
export function binaryTarget(head: Buffer): BinaryTarget;
export function fileBinaryTarget(file: string): BinaryTarget;
