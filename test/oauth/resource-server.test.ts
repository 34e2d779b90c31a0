import { afterAll, beforeAll, expect, it } from "vitest";
import { TokenVerifier } from "../../src/http/oauth/resource-server.js";
import { labelOf, subjectOf } from "../../src/identity/runtime.js";
import { startIssuer, type TestIssuer } from "../helpers/oauth-issuer.js";

/** What a verified access token tells the server about the caller: who (the subject) and a name to show. */

const AUD = "http://127.0.0.1:1/mcp";
let issuer: TestIssuer;
let verifier: TokenVerifier;
beforeAll(async () => {
  issuer = await startIssuer();
  verifier = new TokenVerifier(issuer, () => AUD);
});
afterAll(() => issuer?.close());

it.each([
  [{ preferred_username: "ada", email: "ada@example.org", name: "Ada L." }, "ada"],
  [{ email: "ada@example.org", name: "Ada L." }, "ada@example.org"],
  [{ name: "Ada L." }, "Ada L."],
  [{ name: "  " }, undefined],
  [{}, undefined],
])("claims %j: the caller is shown as %s", async (claims, label) => {
  const auth = await verifier.verify(issuer.token("sub-42", AUD, "preservation:read", claims));
  expect(subjectOf(auth)).toBe("sub-42");
  expect(labelOf(auth)).toBe(label);
});
