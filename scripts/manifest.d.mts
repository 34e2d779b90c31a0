/** Types of scripts/manifest.mjs, for the tests that import it. */
export interface ManifestTool {
  name: string;
  description: string;
}
export function toolEntries(tools: readonly { name: string; description: string }[]): ManifestTool[];
export function manifestDrift(
  manifest: { version?: string; tools?: ManifestTool[] },
  pkg: { version: string },
  tools: readonly { name: string; description: string }[],
): string[];
export function loadRegistry(): Promise<{ name: string; description: string }[]>;
export function readJson(relative: string): Record<string, unknown>;
