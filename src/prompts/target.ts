import {
  completable,
  type GetPromptResult,
  ProtocolError,
  ProtocolErrorCode,
} from "@modelcontextprotocol/server";
import type { EntityType } from "../api/entity.js";
import { isNotFound, isServiceError } from "../api/errors.js";
import { completeRefs } from "../resources/complete.js";
import { entityUri } from "../resources/uris.js";
import { refParam } from "../tools/discovery/params.js";
import { spoken, withArticle } from "../tools/support/kinds.js";
import { clip } from "../tools/support/text.js";
import type { PromptDeps } from "./types.js";

/**
 * The entity a prompt is about: a ref argument that completes by title (as the resource templates do), and
 * one request to the service for the facts filled into the prompt (kind, title, security tag, parent).
 * Nothing else is looked up here: the path and the rest are the steps' job, done by the tools.
 */

/** A ref argument of one kind; typing part of a title completes to the refs of matching entities. */
export function refArg(deps: PromptDeps, type: "SO" | "IO", description: string) {
  return completable(refParam(description), (typed) =>
    completeRefs(deps.content, [type], typed ?? "", deps.log),
  );
}

export interface Target {
  ref: string;
  type: EntityType;
  /** Absent when the service could not be asked just now (the prompt then names the ref only). */
  title?: string;
  securityTag?: string;
  parentRef?: string;
  uri: string;
}

const invalid = (message: string, data: Record<string, string>) =>
  new ProtocolError(ProtocolErrorCode.InvalidParams, message, data);

/**
 * Reads the entity `ref` names, expecting `type`. An unknown ref, a ref of another kind and a ref the user
 * may not read are InvalidParams saying what to do; any other failure (service down, timeout) still gives
 * the prompt, with the ref alone, since the steps will meet and report the same failure.
 */
export async function loadTarget(
  deps: PromptDeps,
  ref: string,
  type: "SO" | "IO",
  arg: string,
  signal: AbortSignal,
): Promise<Target> {
  const how = `complete the ${arg} argument by typing part of its title, or find refs with \`search\` or \`browse\``;
  try {
    const e = await deps.entity.get(ref, type, signal);
    return {
      ref: e.ref,
      type: e.type,
      title: e.title,
      securityTag: e.securityTag,
      ...(e.parentRef ? { parentRef: e.parentRef } : {}),
      uri: entityUri(e.type, e.ref),
    };
  } catch (err) {
    if (isNotFound(err)) {
      const other = await otherKind(deps, ref, type, signal);
      throw invalid(
        other
          ? `${ref} is ${withArticle(other.type)} ("${clip(other.title, 80)}"), not ${withArticle(type)}; ${how}.`
          : `No ${spoken(type)} has ref ${ref} (or it was deleted); ${how}.`,
        { reason: other ? "wrong_kind" : "not_found", [arg]: ref },
      );
    }
    if (isServiceError(err) && err.status === 403) {
      throw invalid(`The signed-in user may not read ${ref}; pick another ${spoken(type)}.`, {
        reason: "forbidden",
        [arg]: ref,
      });
    }
    deps.log.warn(
      { ref, err: isServiceError(err) ? err.toJSON() : (err as Error)?.message },
      "prompt target look-up failed",
    );
    return { ref, type, uri: entityUri(type, ref) };
  }
}

/** The same ref as another kind of entity, for a message that says what it is (undefined if none). */
async function otherKind(deps: PromptDeps, ref: string, type: EntityType, signal: AbortSignal) {
  for (const t of (["IO", "SO", "CO"] as const).filter((x) => x !== type)) {
    try {
      return await deps.entity.get(ref, t, signal);
    } catch {
      // not this kind either (or unreadable): the plain "not found" message is still true
    }
  }
  return undefined;
}

/** `folder "Council minutes" (ref …, security tag open)` or, without the service's answer, the ref alone. */
export function describeTarget(t: Target): string {
  const kind = spoken(t.type);
  if (t.title === undefined) return `the ${kind} with ref ${t.ref} (its title could not be read just now)`;
  const tag = t.securityTag ? `, security tag ${t.securityTag}` : "";
  return `the ${kind} "${clip(t.title, 200)}" (ref ${t.ref}${tag})`;
}

/** The entity as a resource link, so a client can attach it as context. */
export function targetLink(t: Target) {
  return {
    role: "user" as const,
    content: {
      type: "resource_link" as const,
      uri: t.uri,
      name: t.title ? clip(t.title, 200) : t.ref,
      mimeType: "application/json",
    },
  };
}

/** A prompt about one target: the request as the person's message, then a link to the target itself. */
export function aboutTarget(t: Target, description: string, text: string): GetPromptResult {
  return { description, messages: [{ role: "user", content: { type: "text", text } }, targetLink(t)] };
}
