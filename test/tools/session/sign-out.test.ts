import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { loadConfig } from "../../../src/config.js";
import { audienceFrom } from "../../../src/guards/visibility.js";
import { PersonMode } from "../../../src/identity/gate.js";
import { SignInLinks } from "../../../src/identity/links.js";
import { PersonSessions } from "../../../src/identity/people.js";
import { createLogger } from "../../../src/log.js";
import { buildServer, personDeps, type ServerDeps } from "../../../src/server/server.js";
import { Session } from "../../../src/session/session.js";
import { MemoryState } from "../../../src/state/memory.js";
import { signInPerson } from "../../helpers/people.js";
import { startTestRepository } from "../../helpers/repository.js";

/**
 * `sign_out` on a person mode team server: our server built as one caller sees it (their own session from
 * PersonSessions over the in-process shared state), a real client in memory, a real repository service.
 * The sign-in itself goes through the service's Authentication API, as the sign-in page does.
 */

let repo: RunningRepository;
let people: PersonSessions;
let state: MemoryState;
let mode: PersonMode;
let base: ServerDeps;
const log = createLogger({ level: "silent" });

beforeAll(async () => {
  repo = await startTestRepository({ seed: "demo" });
  state = new MemoryState();
  people = new PersonSessions({
    state,
    confirmKey: undefined,
    url: repo.url,
    maxSessionLifetimeMins: 480,
    logger: log,
  });
  mode = new PersonMode(people, new SignInLinks(undefined), () => "http://127.0.0.1:1");
  const config = loadConfig([], {
    PRESERVATION_URL: repo.url,
    PRESERVATION_USERNAME: "unused",
    PRESERVATION_PASSWORD: "unused",
  });
  const nobody = new Session({
    url: repo.url,
    username: "",
    person: { load: async () => undefined, save: async () => {} },
  });
  base = {
    config: { ...config, identity: "person" },
    session: nobody,
    log,
    audience: audienceFrom({ ...config, identity: "person" }, undefined),
  };
});

afterAll(async () => {
  await people.close();
  await repo.close();
});

async function connect(subject: string) {
  const session = await people.sessionFor(subject);
  const roles = await session.whoAmI().then(
    (me) => me.roles,
    () => undefined,
  );
  const server = buildServer(personDeps(base, session, roles, mode.gateFor(subject)));
  const client = new Client({ name: "sign-out-test", version: "1.0.0" });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  await client.connect(a);
  const call = async (name: string) => {
    const r = await client.callTool({ name, arguments: {} });
    return {
      isError: r.isError === true,
      text: (r.content as { text?: string }[]).map((c) => c.text).join(" "),
    };
  };
  return { client, call, close: () => client.close() };
}

describe("sign_out", () => {
  it("ends the person's session: the kept grant is gone, and the next call asks them to sign in", async () => {
    await signInPerson(people, repo.url, "anna", "reader");
    const c = await connect("anna");
    try {
      expect((await c.call("whoami")).text).toMatch(/^Ruth Albright \(reader\)/);
      const out = await c.call("sign_out");
      expect(out.isError).toBe(false);
      expect(out.text).toMatch(/Signed out: the repository session of reader on this server has ended/);
      expect(await people.waitForSignIn("anna", 0)).toBe(false);
    } finally {
      await c.close();
    }
    const after = await connect("anna");
    try {
      const asked = await after.call("whoami");
      expect(asked.isError).toBe(true);
      expect(asked.text).toMatch(/not signed in to the repository yet.*\/sign-in\?state=/is);
    } finally {
      await after.close();
    }
  });

  it("says so when the caller was not signed in, without asking them to sign in first", async () => {
    const c = await connect("bert");
    try {
      const out = await c.call("sign_out");
      expect(out.isError).toBe(false);
      expect(out.text).toMatch(/You were not signed in to the repository on this server; nothing to end/);
    } finally {
      await c.close();
    }
  });

  it("is not offered where the server has one repository account (identity service)", async () => {
    const config = loadConfig([], {});
    const server = buildServer({ ...base, config, audience: audienceFrom(config, ["SDB_ACCESS_USER"]) });
    const client = new Client({ name: "sign-out-test", version: "1.0.0" });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    await client.connect(a);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain("whoami");
      expect(names).not.toContain("sign_out");
    } finally {
      await client.close();
    }
  });
});
