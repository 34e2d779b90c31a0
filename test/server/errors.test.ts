import { describe, expect, it } from "vitest";
import { ServiceError } from "../../src/api/errors.js";
import { LocalPathError } from "../../src/local/roots.js";
import { classify, type FailureKind, ToolDeadlineExceeded, toUserMessage } from "../../src/server/errors.js";
import { ChallengeRequired } from "../../src/session/session.js";
import { SignInFailed } from "../../src/session/sign-in-failure.js";
import { StateUnavailableError } from "../../src/state/types.js";
import { UserInputError } from "../../src/tools/define.js";

/**
 * What the tool-call boundary (src/server/call-boundary.ts) does with a thrown error: "refused" is audited as
 * refused (nothing was done), "failed" as failed and logged as a warning, "bug" logged as an error with its stack.
 */

const serviceError = (status: number) =>
  new ServiceError({ status, operation: "entity.get", method: "GET", path: "/api/entity/x" });

type Case = [what: string, err: unknown, kind: FailureKind];
const CASES: Case[] = [
  ["arguments the tool rejected", new UserInputError("no such field"), "refused"],
  ["a path outside the ingest roots", new LocalPathError("outside"), "refused"],
  ["the shared state away", new StateUnavailableError(), "refused"],
  ...[400, 403, 404, 409, 422].map((s): Case => [`the service's ${s}`, serviceError(s), "refused"]),
  ...[0, 401, 429, 500, 503].map((s): Case => [`the service's ${s || "silence"}`, serviceError(s), "failed"]),
  ["a sign-in that needs a code", new ChallengeRequired("two-factor", "ann", "Enter the code."), "failed"],
  [
    "a sign-in that failed",
    new SignInFailed("unreachable", "http://127.0.0.1:1", "unreachable", serviceError(0)),
    "failed",
  ],
  ["the call's deadline", new ToolDeadlineExceeded(45), "failed"],
  ["anything else", new TypeError("x is undefined"), "bug"],
  ["a thrown string", "boom", "bug"],
];

describe("classify", () => {
  it.each(CASES)("%s: %s", (_, err, kind) => {
    expect(classify(err)).toBe(kind);
  });
});

describe("toUserMessage", () => {
  it("passes on the shared state's own words (what is away, that reading still works)", () => {
    expect(toUserMessage(new StateUnavailableError(), "delete_entity")).toMatch(
      /^The team server's shared state store \(PRESERVATION_STATE_URL\) cannot be reached, so no change is made/,
    );
  });

  it("never shows a bug's own message", () => {
    expect(toUserMessage(new TypeError("secret at line 3"), "search")).toBe(
      "search failed unexpectedly; the details are in the server log.",
    );
  });
});
