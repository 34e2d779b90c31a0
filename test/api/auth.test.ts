import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { AuthApi, TokenGrant, TwoFactorOutcome } from "../../src/api/auth.js";
import { ServiceError } from "../../src/api/errors.js";
import { HttpClient } from "../../src/api/http.js";
import { createLogger, REDACT_PATHS } from "../../src/log.js";
import { DEMO_USERS, startTestRepository } from "../helpers/repository.js";

describe("Access Token API client", () => {
  let repo: RunningRepository;
  let http: HttpClient;
  let auth: AuthApi;

  beforeAll(async () => {
    repo = await startTestRepository({ tokenTtlMs: 3000 });
    http = new HttpClient({ baseUrl: repo.url });
    auth = new AuthApi(http);
  });
  afterAll(async () => {
    await http.close();
    await repo.close();
  });

  it("logs in with user details and a fractional lifetime, holding the token privately", async () => {
    const outcome = await auth.login(DEMO_USERS.curator);
    if (outcome.kind !== "token") throw new Error(`unexpected ${outcome.kind}`);
    const grant = outcome.grant;
    expect(grant).toBeInstanceOf(TokenGrant);
    expect(grant.user).toBe("curator");
    expect(grant.roles).toContain("ROLE_SDB_DATA_MANAGEMENT_USER");
    expect(grant.tenant).toBe("DEMO");
    expect(grant.validForMs).toBe(3000);
    const token = grant.accessToken();
    expect(token).toMatch(/^[0-9a-f-]{36}$/);
    for (const text of [
      JSON.stringify(grant),
      String(grant),
      inspect(grant, { showHidden: true, depth: 5 }),
    ]) {
      expect(text).not.toContain(token);
      expect(text).not.toContain(grant.refreshToken() as string);
    }
  });

  it("refreshes a live grant into a new one", async () => {
    const first = await auth.login(DEMO_USERS.curator);
    if (first.kind !== "token") throw new Error("no token");
    const second = await auth.refresh(first.grant);
    expect(second.accessToken()).not.toBe(first.grant.accessToken());
    expect(second.roles).toContain("ROLE_SDB_DATA_MANAGEMENT_USER");
    // The old pair is spent.
    const again = (await auth.refresh(first.grant).catch((e: unknown) => e)) as ServiceError;
    expect(again).toBeInstanceOf(ServiceError);
    expect(again.status).toBe(401);
    expect(again.operation).toBe("auth.refresh");
  });

  it("turns the e-mail challenge and 2FA answers into typed outcomes", async () => {
    const guest = await auth.acquireTempUser(DEMO_USERS.guest);
    expect(guest).toEqual({ kind: "email-challenge", tenant: "DEMO" });
    const viaLogin = await auth.login(DEMO_USERS.guest);
    expect(viaLogin.kind).toBe("email-challenge");

    const tf = await auth.login({ username: "twofactor", password: "twofactor-demo-pw" });
    expect(tf).toBeInstanceOf(TwoFactorOutcome);
    const continuation = (tf as TwoFactorOutcome).continuationToken();
    expect(continuation).toBeTruthy();
    expect(JSON.stringify(tf)).not.toContain(continuation);
  });

  it("reports other refusals as ServiceErrors with the service's message", async () => {
    const err = (await auth
      .login({ username: "manager", password: "definitely-wrong" })
      .catch((e: unknown) => e)) as ServiceError;
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.status).toBe(401);
    expect(err.serviceMessage).toMatch(/invalid/i);
    expect(JSON.stringify(err)).not.toContain("definitely-wrong");
    const bad = await auth.completeChallenge("NOPE").catch((e: unknown) => e);
    expect(bad).toMatchObject({ status: 401, operation: "auth.completeChallenge" });
  });
});

describe("logger", () => {
  it("redacts secrets by key at any of the first levels", () => {
    const lines: string[] = [];
    const log = createLogger({ level: "info", destination: { write: (s: string) => void lines.push(s) } });
    log.info(
      {
        token: "T-1",
        password: "P-1",
        "refresh-token": "R-1",
        req: { headers: { authorization: "Bearer A-1", "preservica-access-token": "H-1" } },
        form: { refreshToken: "R-2", continuationToken: "C-1" },
        ok: "visible",
      },
      "hello",
    );
    const out = lines.join("");
    for (const s of ["T-1", "P-1", "R-1", "A-1", "H-1", "R-2", "C-1"]) expect(out).not.toContain(s);
    expect(out).toContain("visible");
    expect(REDACT_PATHS).toContain("*.password");
  });

  it("takes its level from the argument, then the environment", () => {
    const sink = { write: () => {} };
    expect(createLogger({ level: "debug", destination: sink }).level).toBe("debug");
    expect(createLogger({ level: "nonsense", destination: sink }).level).toMatch(
      /info|debug|warn|error|trace/,
    );
    const saved = process.env.PRESERVATION_LOG_LEVEL;
    process.env.PRESERVATION_LOG_LEVEL = "warn";
    try {
      expect(createLogger({ destination: sink }).level).toBe("warn");
    } finally {
      if (saved === undefined) delete process.env.PRESERVATION_LOG_LEVEL;
      else process.env.PRESERVATION_LOG_LEVEL = saved;
    }
  });
});
