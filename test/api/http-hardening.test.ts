import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { EntityApi } from "../../src/api/entity.js";
import {
  ForeignUrlError,
  retryAdvice,
  type ServiceError,
  UnexpectedResponseError,
} from "../../src/api/errors.js";
import { HttpClient, MAX_PARSED_BODY, resolveServiceTarget } from "../../src/api/http.js";
import { paginate } from "../../src/api/walk.js";
import { toUserMessage } from "../../src/server/errors.js";
import { Session } from "../../src/session/session.js";
import { DEMO_USERS, startTestRepository } from "../helpers/repository.js";

/**
 * Issue 9 §1, the service client: links outside the API are not followed with the token, bodies cut off
 * mid-reply are retried, unreadable replies say what was wrong, parsed replies are capped, and error
 * wording promises nothing that did not happen. Raw `node:http` servers play the misbehaving service
 * where the repository service cannot (it never cuts a reply mid-body or answers with a sign-in page).
 */

type Handler = (req: IncomingMessage, res: ServerResponse, nth: number) => void;

/** A loopback server whose behaviour per path is set by each test; counts requests per path. */
async function rawServer() {
  const handlers = new Map<string, Handler>();
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0] ?? "";
    seen.push(req.url ?? "");
    const handler = handlers.get(path);
    if (!handler) {
      res.statusCode = 404;
      res.end();
      return;
    }
    handler(req, res, seen.filter((u) => u.split("?")[0] === path).length);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    seen,
    on: (path: string, h: Handler) => handlers.set(path, h),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const catchErr = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error("expected a failure");
    },
    (e: unknown) => e,
  );

describe("which URLs the client follows with the token (base URL with a path prefix)", () => {
  const base = { origin: "http://host:8080", basePath: "/preservica" };

  it("follows paths and URLs under the base path's /api/, normalised", () => {
    expect(resolveServiceTarget(base, "/api/entity/x?start=1")).toEqual({
      path: "/preservica/api/entity/x?start=1",
      url: "http://host:8080/preservica/api/entity/x?start=1",
    });
    expect(
      resolveServiceTarget(base, "http://host:8080/preservica/api/entity/root/children?max=1").path,
    ).toBe("/preservica/api/entity/root/children?max=1");
    // dot segments that stay inside the API are resolved, and the normalised path is what is sent
    expect(resolveServiceTarget(base, "http://host:8080/preservica/api/entity/../content/x").path).toBe(
      "/preservica/api/content/x",
    );
  });

  it("refuses links that leave the API, however they are spelt", () => {
    for (const bad of [
      "http://host:8080/other-app/api/entity/x", // another application on the same host
      "http://host:8080/preservica/../other-app/api/x",
      "http://host:8080/preservica/api/../../other-app/api/x",
      "http://host:8080/preservica/api/%2e%2e/%2E%2e/other-app/api/x", // percent-encoded dots
      "http://host:8080/preservica/api/.%2e/.%2E/other-app/api/x",
      "http://host:8080/preservica/api/..%2f..%2fother-app/api/x", // encoded slashes
      "http://host:8080/preservica/api/%252e%252e/x", // double-encoded dots
      "http://host:8080/preservica/api\\..\\..\\other-app/x", // backslashes, read as slashes
      "http://host:8080/preservica/admin/x", // the application, but not its API
      "http://host:8080/preservica-other/api/x", // a prefix of the path, not of a segment
      "http:/host:9090/preservica/api/x", // one slash: parsers read it relative to the base
      "http:host:9090/preservica/api/x",
      "http://host:9090/preservica/api/x", // another port
      "https://host:8080/preservica/api/x", // another scheme
      "http://evil.example/preservica/api/x",
      "//evil.example/preservica/api/x",
      "/\\evil.example/preservica/api/x",
      "http://u:p@host:8080/preservica/api/x",
      "/api/../../other-app/x", // a relative path from a reply, too
    ]) {
      expect(() => resolveServiceTarget(base, bad), bad).toThrow(ForeignUrlError);
    }
  });

  it("gives the client's own paths the same target as the full check, and checks every other one", async () => {
    // HttpClient.resolve skips URL parsing for plain paths it builds itself; the answer must be the same.
    const client = new HttpClient({ baseUrl: "http://host:8080/preservica/" });
    try {
      for (const plain of [
        "/api/entity/information-objects/7f3e0c1a-2b4d-4e5f-8a9b-0c1d2e3f4a5b",
        "/api/entity/root/children",
        "/api/content/search",
        "/api/x",
      ]) {
        expect(client.resolve(plain), plain).toEqual(resolveServiceTarget(base, plain));
      }
      for (const other of ["/api/entity/x?start=1", "/api/entity/../content/x", "/api//entity/x"]) {
        expect(client.resolve(other), other).toEqual(resolveServiceTarget(base, other));
      }
      for (const bad of [
        "/api/../../other-app/x",
        "/api/%2e%2e/%2e%2e/other-app/x",
        "/api\\..\\..\\x",
        "/apix/y",
      ]) {
        expect(() => client.resolve(bad), bad).toThrow(ForeignUrlError);
      }
    } finally {
      await client.close();
    }
  });

  it("says which URL was refused, why, and where links may lead", () => {
    const err = (() => {
      try {
        resolveServiceTarget(base, "http://host:8080/other-app/api/x?token=secret");
      } catch (e) {
        return e as ForeignUrlError;
      }
    })();
    expect(err?.message).toMatch(/outside the service's API/);
    expect(err?.message).toContain("http://host:8080/preservica/api/");
    expect(err?.message).not.toContain("secret");
  });

  describe("end to end: a reply whose Paging/Next leaves the API", () => {
    let srv: Awaited<ReturnType<typeof rawServer>>;
    let next: string;
    beforeAll(async () => {
      srv = await rawServer();
      srv.on("/preservica/api/entity/root/children", (_req, res, nth) => {
        res.setHeader("content-type", "application/xml");
        res.end(`<?xml version="1.0"?><ChildrenResponse xmlns="http://preservica.com/EntityAPI/v7.7">
<Children><Child title="Page ${nth}" ref="11111111-1111-4111-8111-11111111111${nth}" type="SO">x</Child></Children>
<Paging>${nth === 1 ? `<Next>${next.replace(/&/g, "&amp;")}</Next>` : ""}<TotalResults>2</TotalResults></Paging>
</ChildrenResponse>`);
      });
      srv.on("/other-app/api/entity/root/children", (_req, res) => res.end("stolen"));
    });
    afterAll(() => srv.close());
    beforeEach(() => {
      srv.seen.length = 0;
    });

    const walk = async (http: HttpClient) => {
      const titles: string[] = [];
      const entity = new EntityApi(http);
      for await (const c of paginate((req) => entity.children(null, req), { pageSize: 1 }))
        titles.push(c.title);
      return titles;
    };

    it("refuses /preservica/../other-app/ and %2e%2e forms before sending anything there", async () => {
      const http = new HttpClient({ baseUrl: `${srv.origin}/preservica` });
      for (const link of [
        `${srv.origin}/other-app/api/entity/root/children?start=1&max=1`,
        `${srv.origin}/preservica/../other-app/api/entity/root/children?start=1`,
        `${srv.origin}/preservica/api/%2e%2e/%2e%2e/other-app/api/entity/root/children?start=1`,
        `http:/${srv.origin.slice("http://".length)}/other-app/api/entity/root/children`,
      ]) {
        srv.seen.length = 0;
        next = link;
        const err = await catchErr(walk(http));
        expect(err, link).toBeInstanceOf(ForeignUrlError);
        expect(srv.seen, link).toEqual(["/preservica/api/entity/root/children?start=0&max=1"]);
      }
      await http.close();
    });

    it("follows a Next link under the base path's API", async () => {
      const http = new HttpClient({ baseUrl: `${srv.origin}/preservica/` });
      next = `${srv.origin}/preservica/api/entity/root/children?start=1&max=1`;
      expect(await walk(http)).toEqual(["Page 1", "Page 2"]);
      await http.close();
    });
  });
});

describe("replies cut off, unreadable or too large (raw test server)", () => {
  let srv: Awaited<ReturnType<typeof rawServer>>;
  let http: HttpClient;
  const XML = `<?xml version="1.0"?><EntityResponse xmlns="http://preservica.com/EntityAPI/v7.7"><Title>${"x".repeat(2000)}</Title></EntityResponse>`;

  beforeAll(async () => {
    srv = await rawServer();
    http = new HttpClient({ baseUrl: srv.origin, retry: { baseDelayMs: 5, maxDelayMs: 20 } });
    /** Headers and half the body, then the connection is destroyed: the first `cuts` times only. */
    const cutting =
      (cuts: number, declareLength: boolean): Handler =>
      (_req, res, nth) => {
        res.setHeader("content-type", "application/xml");
        if (nth > cuts) {
          res.end(XML);
          return;
        }
        if (declareLength) res.setHeader("content-length", Buffer.byteLength(XML));
        res.flushHeaders();
        res.write(XML.slice(0, 500), () => setTimeout(() => res.socket?.destroy(), 10));
      };
    srv.on("/api/cut-once", cutting(1, true));
    srv.on("/api/cut-once-chunked", cutting(1, false));
    srv.on("/api/cut-always", cutting(99, true));
    srv.on("/api/sign-in-page", (_req, res) => {
      res.setHeader("content-type", "text/html; charset=utf-8");
      res.end("<!DOCTYPE html><html><head><title>Sign in</title></head><body><form></form></body></html>");
    });
    srv.on("/api/html-as-xml", (_req, res) => {
      res.setHeader("content-type", "application/xml");
      res.end("<!doctype html>\n<html><head><title>Portal</title></head></html>");
    });
    srv.on("/api/half-xml", (_req, res) => {
      res.setHeader("content-type", "application/xml");
      res.end(XML.slice(0, 1200)); // complete as HTTP, but the document stops half way
    });
    srv.on("/api/broken-xml", (_req, res) => {
      res.setHeader("content-type", "application/xml");
      res.end("<a><b></a>");
    });
    srv.on("/api/half-json", (_req, res) => {
      res.setHeader("content-type", "application/json");
      res.end('{"userName":"rea');
    });
    srv.on("/api/big-declared", (_req, res) => {
      res.setHeader("content-type", "application/xml");
      res.setHeader("content-length", 2048);
      res.end("x".repeat(2048));
    });
    srv.on("/api/big-chunked", (_req, res) => {
      res.setHeader("content-type", "application/xml");
      for (let i = 0; i < 4; i++) res.write("x".repeat(1024));
      res.end();
    });
    /** Headers and a first part of the body, then nothing more: the reply never ends. */
    const stalling =
      (status: number): Handler =>
      (_req, res) => {
        res.statusCode = status;
        res.setHeader("content-type", "application/xml");
        res.setHeader("x-repeated", ["one", "two"]);
        res.write(`<error><message>kept busy</message>${"x".repeat(70 * 1024)}`);
      };
    srv.on("/api/stall-200", stalling(200));
    srv.on("/api/stall-500", stalling(500));
    srv.on("/api/nine-mib", (_req, res) => {
      res.setHeader("content-type", "application/json");
      const chunk = "x".repeat(1024 * 1024);
      res.write('"');
      for (let i = 0; i < 9; i++) res.write(chunk);
      res.end('"');
    });
  });
  afterAll(async () => {
    await http.close();
    await srv.close();
  });
  beforeEach(() => {
    srv.seen.length = 0;
  });

  const get = (path: string, extra: Partial<Parameters<HttpClient["request"]>[0]> = {}) =>
    http.request({ path, operation: "probe", ...extra });

  it("retries an idempotent GET whose reply is cut off after the headers", async () => {
    for (const path of ["/api/cut-once", "/api/cut-once-chunked"]) {
      srv.seen.length = 0;
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(typeof res.data, path).toBe("object");
      expect(srv.seen, path).toHaveLength(2);
    }
  });

  it("says the reply was cut off, after bounded retries, or at once for a non-idempotent request", async () => {
    const err = (await catchErr(get("/api/cut-always"))) as UnexpectedResponseError;
    expect(err).toBeInstanceOf(UnexpectedResponseError);
    expect(err.attempts).toBe(3);
    expect(srv.seen).toHaveLength(3);
    expect(err.isNetworkError).toBe(true);
    expect(err.detail).toMatch(/the reply was cut off after 500 bytes: the connection closed/);
    expect(toUserMessage(err, "probe")).toMatch(/reply could not be read \(probe\): the reply was cut off/);

    srv.seen.length = 0;
    const post = (await catchErr(get("/api/cut-always", { method: "POST" }))) as UnexpectedResponseError;
    expect(post.detail).toMatch(/cut off after 500 bytes/);
    expect(post.attempts).toBe(1);
    expect(srv.seen).toHaveLength(1);
  });

  it("names an HTML page answered with 200 and points at PRESERVATION_URL", async () => {
    for (const path of ["/api/sign-in-page", "/api/html-as-xml"]) {
      const err = (await catchErr(get(path, { accept: "application/xml" }))) as UnexpectedResponseError;
      expect(err, path).toBeInstanceOf(UnexpectedResponseError);
      expect(err.status).toBe(200);
      expect(err.detail).toMatch(/^the reply was not XML but an HTML page \("(Sign in|Portal)"\)/);
      expect(err.detail).toMatch(/is PRESERVATION_URL the API's base URL/);
      expect(toUserMessage(err, "probe")).not.toMatch(/answered HTTP 200/);
    }
  });

  it("tells a cut-off document from a broken one", async () => {
    const half = (await catchErr(get("/api/half-xml"))) as UnexpectedResponseError;
    expect(half.detail).toMatch(
      /cut off: the XML document ends before its root element <EntityResponse> closes/,
    );
    const broken = (await catchErr(get("/api/broken-xml"))) as UnexpectedResponseError;
    expect(broken.detail).toMatch(/^the reply is not readable XML \(not well-formed XML/);
    const json = (await catchErr(get("/api/half-json"))) as UnexpectedResponseError;
    expect(json.detail).toMatch(/cut off: the JSON document ends early/);
  });

  it("refuses replies larger than the cap, declared or not, but streams are not limited", async () => {
    const small = new HttpClient({ baseUrl: srv.origin, maxBodyBytes: 1024 });
    for (const path of ["/api/big-declared", "/api/big-chunked"]) {
      const err = (await catchErr(small.request({ path, operation: "probe" }))) as UnexpectedResponseError;
      expect(err, path).toBeInstanceOf(UnexpectedResponseError);
      expect(err.detail).toMatch(/larger than 1024 bytes, more than this client reads at once; ask for less/);
    }
    const streamed = await small.request({
      path: "/api/big-chunked",
      operation: "download",
      responseType: "stream",
    });
    let bytes = 0;
    for await (const c of streamed.data as AsyncIterable<Buffer>) bytes += c.length;
    expect(bytes).toBe(4096);
    await small.close();
  });

  it("cancels a request whose reply stops half way when its signal aborts", async () => {
    const ctl = new AbortController();
    const pending = catchErr(get("/api/stall-200", { signal: ctl.signal }));
    await new Promise((r) => setTimeout(r, 50));
    ctl.abort();
    const err = (await pending) as ServiceError;
    expect(err.status).toBe(0);
    expect(err.detail).toBe("request cancelled");
    expect(srv.seen).toHaveLength(1);
  });

  it("reads an error reply for its message only, without waiting for its end", async () => {
    const err = (await catchErr(get("/api/stall-500", { method: "POST" }))) as ServiceError;
    expect(err.status).toBe(500);
    expect(err.serviceMessage).toBe("kept busy");
  });

  it("joins a repeated reply header with commas", async () => {
    srv.on("/api/repeated", (_req, res) => {
      res.setHeader("x-repeated", ["one", "two"]);
      res.setHeader("content-type", "text/plain");
      res.end("fine");
    });
    const res = await get("/api/repeated");
    expect(res.headers["x-repeated"]).toBe("one, two");
    expect(res.data).toBe("fine");
  });

  it("caps parsed replies at 8 MiB by default", async () => {
    expect(MAX_PARSED_BODY).toBe(8 * 1024 * 1024);
    const err = (await catchErr(get("/api/nine-mib"))) as UnexpectedResponseError;
    expect(err.detail).toMatch(/larger than 8 MiB/);
  });
});

describe("wording and logging of service errors", () => {
  let repo: RunningRepository;
  let session: Session;
  const faults = () => {
    if (!repo.faults) throw new Error("faults not enabled");
    return repo.faults;
  };
  const get = () =>
    session.http.request({
      path: "/api/user/details",
      accept: "application/json",
      operation: "user.details",
    });

  beforeAll(async () => {
    repo = await startTestRepository({ faults: true });
    session = new Session({
      url: repo.url,
      ...DEMO_USERS.reader,
      keepAlive: false,
      http: { retry: { baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 1000 } },
    });
    await session.login();
  });
  afterAll(async () => {
    await session.close();
    await repo.close();
  });
  beforeEach(() => faults().clear());

  it("does not claim retries for a 500, which is not retried", async () => {
    faults().inject({ path: "/api/user/details", status: 500 });
    const err = (await catchErr(get())) as ServiceError;
    expect(err.attempts).toBe(1);
    const msg = toUserMessage(err, "whoami");
    expect(msg).toMatch(/HTTP 500, user\.details\); try again shortly/);
    expect(msg).not.toMatch(/retr|attempts/);
  });

  it("says how many attempts were made when it did retry", async () => {
    faults().inject({ path: "/api/user/details", status: 503, times: 5 });
    const err = (await catchErr(get())) as ServiceError;
    expect(toUserMessage(err, "whoami")).toMatch(
      /HTTP 503, user\.details\) after 3 attempts; try again shortly/,
    );
  });

  it("says when to try again for a Retry-After longer than the client waits", async () => {
    faults().inject({ path: "/api/user/details", status: 503, retryAfter: 120 });
    const err = (await catchErr(get())) as ServiceError;
    expect(err.attempts).toBe(1);
    const msg = toUserMessage(err, "whoami");
    expect(msg).toMatch(
      /HTTP 503, user\.details\); the service asks to wait: try again in 2 min \(after \d\d:\d\d UTC\)/,
    );
    expect(msg).not.toMatch(/retries|attempts/);
    expect(retryAdvice(err, Date.UTC(2030, 0, 1, 14, 3))).toBe(
      "; the service asks to wait: try again in 2 min (after 14:05 UTC)",
    );
  });

  it("logs a service error with a useful stack, not an empty one", async () => {
    faults().inject({ path: "/api/user/details", status: 404 });
    const err = (await catchErr(
      session.http.request({
        path: "/api/user/details",
        query: { token: "s3cret" },
        operation: "user.details",
      }),
    )) as ServiceError;
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    pino({}, sink).warn({ err: err.toJSON() }, "tool call failed");
    const logged = JSON.parse(lines[0] ?? "{}") as { err: { stack: string; status: number } };
    expect(logged.err.status).toBe(404);
    expect(logged.err.stack).toMatch(/^ServiceError: user\.details failed: HTTP 404/);
    expect(logged.err.stack).toMatch(/\n\s+at /);
    expect(lines[0]).not.toContain("s3cret");
  });
});
