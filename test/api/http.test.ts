import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { EntityApi } from "../../src/api/entity.js";
import { ForeignUrlError, redactPath, ServiceError, serviceMessageFrom } from "../../src/api/errors.js";
import { HttpClient, parseRetryAfter } from "../../src/api/http.js";
import { paginate } from "../../src/api/walk.js";
import { Session } from "../../src/session/session.js";
import { DEMO_USERS, startTestRepository } from "../helpers/repository.js";

describe("transport against the repository service", () => {
  let repo: RunningRepository;
  let session: Session;
  const faults = () => {
    if (!repo.faults) throw new Error("faults not enabled");
    return repo.faults;
  };
  const get = (path = "/api/user/details") =>
    session.http.request<{ userName: string }>({
      path,
      accept: "application/json",
      operation: "user.details",
    });
  const search = (idempotent: boolean) =>
    session.http.request({
      method: "POST",
      path: "/api/content/search",
      form: { q: "", max: 1 },
      operation: "content.search",
      idempotent,
    });

  beforeAll(async () => {
    repo = await startTestRepository({ faults: true });
    session = new Session({
      url: repo.url,
      ...DEMO_USERS.reader,
      keepAlive: false,
      http: { retry: { baseDelayMs: 20, maxDelayMs: 100 } },
    });
    await session.login();
  });
  afterAll(async () => {
    await session.close();
    await repo.close();
  });
  beforeEach(() => {
    faults().clear();
  });

  it("parses JSON by content type and normalises headers", async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.data.userName).toBe("reader");
    expect(res.headers["content-type"]).toMatch(/json/);
  });

  it("honours Retry-After on 503 for idempotent requests", async () => {
    faults().inject({ path: "/api/user/details", status: 503, retryAfter: 1, times: 1 });
    const started = Date.now();
    const res = await get();
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(faults().hits.map((h) => h.status)).toEqual([503]);
  });

  it("retries 429, 502 and 504 with back-off, up to three attempts in all", async () => {
    faults().inject({ path: "/api/user/details", status: 429, retryAfter: 0, times: 1 });
    faults().inject({ path: "/api/user/details", status: 502, times: 1 });
    expect((await get()).status).toBe(200);
    expect(faults().hits.map((h) => h.status)).toEqual([429, 502]);

    faults().clear();
    faults().inject({ path: "/api/user/details", status: 504, times: 5 });
    const err = (await get().catch((e: unknown) => e)) as ServiceError;
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.status).toBe(504);
    expect(err.attempts).toBe(3);
    expect(faults().hits).toHaveLength(3);
  });

  it("does not wait for a Retry-After longer than it is willing to", async () => {
    faults().inject({ path: "/api/user/details", status: 503, retryAfter: 3600, times: 1 });
    const err = (await get().catch((e: unknown) => e)) as ServiceError;
    expect(err.status).toBe(503);
    expect(err.retryAfterMs).toBe(3_600_000);
    expect(faults().hits).toHaveLength(1);
  });

  it("never retries a non-idempotent POST, but retries a query marked idempotent", async () => {
    faults().inject({ path: "/api/content/search", status: 503, retryAfter: 0, times: 1 });
    const err = (await search(false).catch((e: unknown) => e)) as ServiceError;
    expect(err.status).toBe(503);
    expect(err.serviceMessage).toMatch(/Injected fault/);
    expect(faults().hits).toHaveLength(1);

    faults().clear();
    faults().inject({ path: "/api/content/search", status: 503, retryAfter: 0, times: 1 });
    expect((await search(true)).status).toBe(200);
    expect(faults().hits).toHaveLength(1);
  });

  it("retries an idempotent request after a connection reset", async () => {
    faults().resetNext("/api/user/details");
    expect((await get()).data.userName).toBe("reader");
    expect(faults().hits.map((h) => h.action)).toEqual(["reset"]);
  });

  it("reports a reset of a non-idempotent request as a network failure (status 0 with a cause)", async () => {
    faults().resetNext("/api/content/search");
    const err = (await search(false).catch((e: unknown) => e)) as ServiceError;
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.status).toBe(0);
    expect(err.isNetworkError).toBe(true);
    expect(err.cause).toBeDefined();
    expect(err.operation).toBe("content.search");
  });

  it("waits through injected latency and aborts on a signal", async () => {
    faults().setLatency(300);
    const started = Date.now();
    await get();
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 50);
    const err = (await session.http
      .request({ path: "/api/user/details", operation: "user.details", signal: ctl.signal })
      .catch((e: unknown) => e)) as ServiceError;
    expect(err.status).toBe(0);
    expect(err.message).toMatch(/cancelled/);
    // The service still serves the cancelled request once its latency is over (it does not notice the
    // cancel). A request with the same latency, sent after it, is answered after it: so the file does not end,
    // and close the service's database, under it (that crashed the worker once these tests ran faster).
    await get();
    faults().setLatency(0);
  });

  it("turns a 404 into a ServiceError with the service's message, operation and path", async () => {
    const entity = new EntityApi(session.http);
    const err = (await entity
      .get("00000000-0000-4000-8000-000000000000", "IO")
      .catch((e: unknown) => e)) as ServiceError;
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.status).toBe(404);
    expect(err.isNotFound).toBe(true);
    expect(err.operation).toBe("entity.get");
    expect(err.method).toBe("GET");
    expect(err.path).toBe("/api/entity/information-objects/00000000-0000-4000-8000-000000000000");
    expect(err.serviceMessage).toBeTruthy();
    expect(err.message).toContain(err.serviceMessage as string);
    expect(err.toJSON()).toMatchObject({ status: 404, operation: "entity.get" });
  });

  it("fails with status 0 when nothing listens, after bounded retries", async () => {
    const dead = new HttpClient({ baseUrl: "http://127.0.0.1:9", retry: { baseDelayMs: 5 } });
    const err = (await dead
      .request({ path: "/api/x", operation: "probe" })
      .catch((e: unknown) => e)) as ServiceError;
    expect(err.status).toBe(0);
    expect(err.attempts).toBe(3);
    expect(err.message).toMatch(/could not reach the service/);
    await dead.close();
  });
});

describe("following URLs from replies", () => {
  let hostile: Server;
  let hostileUrl: string;
  let requests: string[];

  beforeAll(async () => {
    // A service that answers a children page whose Next points at another host.
    requests = [];
    hostile = createServer((req, res) => {
      requests.push(req.url ?? "");
      res.setHeader("content-type", "application/xml");
      res.end(`<?xml version="1.0"?><ChildrenResponse xmlns="http://preservica.com/EntityAPI/v7.7">
<Children><Child title="A" ref="11111111-1111-4111-8111-111111111111" type="SO">x</Child></Children>
<Paging><Next>http://attacker.example:8080/api/entity/root/children?start=1&amp;max=1</Next><TotalResults>2</TotalResults></Paging>
</ChildrenResponse>`);
    });
    await new Promise<void>((r) => hostile.listen(0, "127.0.0.1", () => r()));
    hostileUrl = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => hostile.close(() => r())));

  it("refuses a Next URL on another origin, before sending anything there", async () => {
    const http = new HttpClient({ baseUrl: hostileUrl });
    const entity = new EntityApi(http);
    const items: string[] = [];
    const walk = async () => {
      for await (const child of paginate((req) => entity.children(null, req), { pageSize: 1 }))
        items.push(child.title);
    };
    await expect(walk()).rejects.toBeInstanceOf(ForeignUrlError);
    expect(items).toEqual(["A"]);
    expect(requests).toHaveLength(1);
    await http.close();
  });

  it("resolves only same-origin URLs", () => {
    const http = new HttpClient({ baseUrl: "https://eu.example.com/prefix/" });
    expect(http.resolve("/api/entity/x")).toEqual({
      path: "/prefix/api/entity/x",
      url: "https://eu.example.com/prefix/api/entity/x",
    });
    expect(http.resolve("https://eu.example.com/prefix/api/entity/x?start=1").path).toBe(
      "/prefix/api/entity/x?start=1",
    );
    for (const bad of [
      "http://eu.example.com/api/entity/x", // other scheme
      "https://eu.example.com:8443/api", // other port
      "https://evil.example/api",
      "//evil.example/api",
      "https://eu.example.com@evil.example/api",
      "https://user:pw@eu.example.com/api",
      "file:///etc/passwd",
    ]) {
      expect(() => http.resolve(bad), bad).toThrow(ForeignUrlError);
    }
    expect(() => http.resolve("api/relative")).toThrow(TypeError);
    void http.close();
  });
});

describe("error helpers", () => {
  it("redacts secrets in paths at construction", () => {
    const e = new ServiceError({
      status: 500,
      operation: "x.y",
      method: "GET",
      path: "/api/x?token=abc123&start=0&password=hunter2&refreshToken=r-1&Refresh-Token=r-2&q=ok",
    });
    expect(e.path).toBe(
      "/api/x?token=[redacted]&start=0&password=[redacted]&refreshToken=[redacted]&Refresh-Token=[redacted]&q=ok",
    );
    for (const s of ["abc123", "hunter2", "r-1", "r-2"]) {
      expect(e.message).not.toContain(s);
      expect(JSON.stringify(e)).not.toContain(s);
    }
    expect(redactPath("https://u:p@h/x")).toBe("https://[redacted]@h/x");
  });

  it("reads the service's message defensively", () => {
    expect(serviceMessageFrom('{"success":false,"message":"Nope"}', "application/json")).toBe("Nope");
    expect(serviceMessageFrom('{"error":{"message":"Deep"}}', "application/json")).toBe("Deep");
    expect(serviceMessageFrom("{broken", "application/json")).toBe("{broken");
    expect(serviceMessageFrom("<html><title>502 Bad Gateway</title><body>…</body></html>", "text/html")).toBe(
      "502 Bad Gateway",
    );
    expect(serviceMessageFrom("<Error><Message>Bad ref</Message></Error>", "application/xml")).toBe(
      "Bad ref",
    );
    expect(serviceMessageFrom("", "text/plain")).toBeUndefined();
    expect(serviceMessageFrom("x".repeat(1000), "text/plain")?.length).toBeLessThanOrEqual(300);
  });

  it("parses Retry-After as seconds or a date", () => {
    expect(parseRetryAfter("2")).toBe(2000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4000)).toBe(6000);
    expect(parseRetryAfter("soon")).toBeUndefined();
  });
});
