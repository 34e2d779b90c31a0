/** Types of scripts/manifest.mjs, for the tests that import it. */
export interface ManifestTool {
  name: string;
  description: string;
}
export function toolEntries(tools: readonly { name: string; description: string }[]): ManifestTool[];
export interface ManifestPrompt {
  name: string;
  description: string;
  arguments?: string[];
  text: string;
}
/** What promptEntries reads of a prompt definition (src/prompts/types.ts). */
export interface PromptLike {
  name: string;
  title: string;
  description: string;
  // biome-ignore lint/suspicious/noExplicitAny: the definitions' args take the prompt deps; only the shape's keys are read
  args: (deps: any) => { shape: Record<string, unknown> };
}
export function promptEntries(prompts: readonly PromptLike[]): ManifestPrompt[];
export function manifestDrift(
  manifest: { version?: string; tools?: ManifestTool[]; prompts?: ManifestPrompt[] },
  pkg: { version: string },
  tools: readonly { name: string; description: string }[],
  prompts: readonly PromptLike[],
): string[];
export function loadPrompts(): Promise<PromptLike[]>;
export function loadRegistry(): Promise<{ name: string; description: string }[]>;
export function readJson(relative: string): Record<string, unknown>;
