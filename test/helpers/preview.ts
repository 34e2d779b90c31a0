import { expect } from "vitest";
import { type McpHarness, textOf } from "./mcp.js";

/** A destructive tool's first answer: what it would do, and the token that confirms it (nothing changed yet). */
export interface Preview {
  confirmationRequired: {
    summary: string;
    details: string[];
    targets: { ref: string; title: string }[];
    preview?: Record<string, unknown>;
    token: string;
  };
}

type ToolResult = Awaited<ReturnType<McpHarness["raw"]>>;

/** What a confirmed call answered, and the preview it confirmed. */
export interface Confirmed<T> {
  preview: Preview;
  answer: T;
  text: string;
  res: ToolResult;
}

/**
 * The flow a person goes through: call `name` with `args` (a preview), let `check` look at the preview (and at
 * the repository, unchanged so far), then call again with the preview's token. Fails the test when the
 * confirmed call answers an error.
 */
export async function confirmed<T = Record<string, unknown>>(
  mcp: Pick<McpHarness, "call" | "raw">,
  name: string,
  args: Record<string, unknown>,
  check?: (p: Preview) => Promise<void> | void,
): Promise<Confirmed<T>> {
  const preview = await mcp.call<Preview>(name, args);
  await check?.(preview);
  const res = await mcp.raw(name, { ...args, confirmation: preview.confirmationRequired.token });
  expect(res.isError, textOf(res)).toBeFalsy();
  return { preview, answer: res.structuredContent as T, text: textOf(res), res };
}
