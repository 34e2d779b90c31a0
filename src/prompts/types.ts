import type { GetPromptResult } from "@modelcontextprotocol/server";
import type { Logger } from "pino";
import type { z } from "zod";
import type { ContentApi } from "../api/content.js";
import type { EntityApi } from "../api/entity.js";
import type { Audience } from "../guards/visibility.js";

/**
 * What prompt handlers get: the typed service APIs (sharing the session's token), the logger, and the
 * audience, read when a prompt is fetched, so the steps name only tools this session really lists.
 */
export interface PromptDeps {
  entity: EntityApi;
  content: ContentApi;
  log: Logger;
  audience: Audience;
}

/**
 * One prompt: what prompts/list shows, its arguments (built per server, since completion needs the
 * service), and the messages for given arguments. Arguments are strings on the wire.
 */
export interface PromptDefinition<A extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  args: (deps: PromptDeps) => A;
  messages: (args: z.output<A>, deps: PromptDeps, signal: AbortSignal) => Promise<GetPromptResult>;
}

/** Identity, there for type inference (as `defineTool`). */
export function definePrompt<A extends z.ZodObject>(p: PromptDefinition<A>): PromptDefinition<A> {
  return p;
}
