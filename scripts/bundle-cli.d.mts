/** Types of scripts/bundle-cli.mjs, for the tests and benchmarks that import it. */
export const EXTERNAL: RegExp[];
export function bundleCli(opts?: { outDir?: string; entry?: string }): Promise<string>;
