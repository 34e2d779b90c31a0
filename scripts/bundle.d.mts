/** Types of scripts/bundle.mjs, for the tests that import it. */
export function binaryPlatform(file: string): "linux" | "darwin" | "win32" | "unknown";
export function honestCompatibility(
  nodeModules: string,
  engines: string,
): { platforms: string[]; node: string; abiTied: boolean; natives: string[] };
