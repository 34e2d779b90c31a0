import type { Case, RawRequest } from "./case.js";
import { BAD_TOKENS, TWO_MIB } from "./junk.js";
import { AUTH_ROUTES, READ_PATHS } from "./read-routes.js";
import { C, E, FORM, JSON_TYPE } from "./wire.js";

/**
 * HTTP-level junk: wrong methods, HEAD, odd content types, bodies over the limit, bad tokens in each place
 * a token goes, the authentication forms, huge headers and URLs, paths that are no route; and requests no
 * HTTP client would send (RAW_REQUESTS).
 */

function httpJunk(): Case[] {
  const cases: Case[] = [];
  // Two of these methods are no longer wrong: PUT of an asset is a save (refused: the form body is not
  // XML) and DELETE of a content object a deletion (refused: content objects go with their asset).
  const nowWrites: Record<string, [number, RegExp]> = {
    [`PUT ${E}/information-objects/{io}`]: [400, /not well-formed XML/],
    [`DELETE ${E}/content-objects/{co}`]: [409, /deleted with their asset/],
  };
  for (const [i, p] of READ_PATHS.entries()) {
    // One odd method per route, in turn; the 405 (naming the methods the path takes) comes from the one
    // notFound handler.
    for (const method of [["PUT", "DELETE", "PATCH", "OPTIONS"][i % 4] as string]) {
      const [status, message] = nowWrites[`${method} ${p}`] ?? [405, /use GET/];
      cases.push({
        name: `${method} ${p}`,
        method,
        path: p,
        headers: FORM,
        body: method === "PUT" ? "a=1" : undefined,
        expect: [status],
        message,
      });
    }
    cases.push({ name: `HEAD ${p}`, method: "HEAD", path: p });
  }
  for (const r of AUTH_ROUTES) {
    for (const method of ["GET", "PUT", "DELETE", "PATCH"]) {
      cases.push({
        name: `${method} ${r}`,
        method,
        path: r,
        auth: false,
        expect: [405],
        message: /take POST/,
      });
    }
    cases.push({ name: `empty body ${r}`, method: "POST", path: r, auth: false, expect: [401] });
    cases.push({
      name: `empty form ${r}`,
      method: "POST",
      path: r,
      headers: FORM,
      body: "",
      auth: false,
      expect: [401],
    });
    cases.push({
      name: `empty JSON ${r}`,
      method: "POST",
      path: r,
      headers: JSON_TYPE,
      body: "",
      auth: false,
      expect: [401],
    });
    cases.push({
      name: `2 MiB body ${r}`,
      method: "POST",
      path: r,
      headers: FORM,
      body: TWO_MIB,
      auth: false,
      expect: [413],
      message: /1 MiB/,
    });
  }
  for (const r of ["/api/accesstoken/login", `${C}/search`]) {
    const creds = "username=manager&password=manager-demo-pw";
    const types: [string, string | Buffer, number[]][] = [
      ["multipart/form-data", creds, [400]],
      ["Multipart/Form-Data", creds, [400]],
      ["multipart/form-data; boundary=xyz", creds, [400]],
      [
        "multipart/form-data; boundary=xyz",
        "--xyz\r\nContent-Disposition: form-data\r\n\r\nx\r\n--xyz--\r\n", // a part without a name
        [400],
      ],
      ["multipart/form-data; boundary=", "", [400]],
      // Only the Content API reads JSON; the login reads any other body as a form.
      ["application/json", creds, r.includes("login") ? [200] : [400]],
      [
        "application/json",
        '{"username":"manager","password":"manager-demo-pw"}',
        r.includes("login") ? [401] : [200],
      ],
      ["application/xml", "<login><username>manager</username></login>", r.includes("login") ? [401] : [200]],
      [
        "application/octet-stream",
        Buffer.from([0, 0xff, 0xfe, 0x80, 0x25, 0x3d]),
        r.includes("login") ? [401] : [200],
      ],
      ["text/plain; charset=utf-16", Buffer.from(creds, "utf16le"), r.includes("login") ? [401] : [200]],
      ["application/x-www-form-urlencoded; charset=bogus", creds, [200]],
      ["", creds, [200]],
      ["%%%", creds, [200]],
    ];
    for (const [type, body, expectStatus] of types) {
      const message = /^multipart/i.test(type)
        ? /form-encoded/
        : type === "application/json" && expectStatus[0] === 401
          ? /as form fields/
          : undefined;
      cases.push({
        name: `Content-Type "${type}" at ${r}`,
        method: "POST",
        path: r,
        headers: { "Content-Type": type },
        body,
        auth: !r.includes("login"),
        expect: expectStatus,
        message,
      });
    }
    cases.push({
      name: `2 MiB form at ${r}`,
      method: "POST",
      path: r,
      headers: FORM,
      body: TWO_MIB,
      expect: [413],
      message: /1 MiB/,
    });
    cases.push({
      name: `2 MiB JSON at ${r}`,
      method: "POST",
      path: r,
      headers: JSON_TYPE,
      body: TWO_MIB,
      expect: [413],
      message: /1 MiB/,
    });
    cases.push({
      name: `1 MiB form at ${r}`,
      method: "POST",
      path: r,
      headers: FORM,
      body: Buffer.alloc(1024 * 1024, "a"),
      expect: r.includes("login") ? [401] : [200],
    });
    cases.push({
      name: `2 MiB chunked at ${r}`,
      method: "POST",
      path: r,
      headers: FORM,
      body: { chunks: Array.from({ length: 32 }, () => Buffer.alloc(64 * 1024, "b")) },
      expect: [413],
      message: /1 MiB/,
    });
  }
  for (const t of BAD_TOKENS) {
    for (const p of ["/api/user/details", `${E}/root/children`, `${C}/search?q=maps`]) {
      cases.push({
        name: `token "${t.slice(0, 16)}" ${p}`,
        path: p,
        auth: false,
        headers: { "Preservica-Access-Token": t },
        expect: [401],
      });
    }
    cases.push({
      name: `Bearer "${t.slice(0, 16)}"`,
      path: "/api/user/details",
      auth: false,
      headers: { Authorization: `Bearer ${t}` },
      expect: [401],
    });
    cases.push({
      name: `cookie "${t.slice(0, 16)}"`,
      path: "/api/user/details",
      auth: false,
      headers: { Cookie: `Preservica-Access-Token=${t}` },
      expect: [401],
    });
  }
  for (const h of [
    "Authorization: Basic bWFuYWdlcjptYW5hZ2VyLWRlbW8tcHc=",
    "Authorization: Bearer",
    "Authorization: Bearer a b",
    "Service-Access-Token: %00",
  ]) {
    const [k = "", v = ""] = h.split(": ");
    cases.push({ name: h, path: "/api/user/details", auth: false, headers: { [k]: v }, expect: [401] });
  }
  cases.push({ name: "no token", path: `${E}/root/children`, auth: false, expect: [401] });
  const login = "/api/accesstoken/login";
  const forms: [string, string, number[]][] = [
    ["no fields", "", [401]],
    ["username only", "username=manager", [401]],
    ["password only", "password=manager-demo-pw", [401]],
    ["empty username", "username=&password=manager-demo-pw", [401]],
    ["repeated username, last wins", "username=nobody&username=manager&password=manager-demo-pw", [200]],
    ["repeated password, last wrong", "username=manager&password=manager-demo-pw&password=x", [401]],
    ["username with NUL", "username=manager%00&password=manager-demo-pw", [401]],
    ["username invalid UTF-8", "username=%C3%28&password=x", [401]],
    ["long password", `username=manager&password=${"x".repeat(500_000)}`, [401]],
    ["long username", `username=${"x".repeat(500_000)}&password=x`, [401]],
    ["tenant junk", "username=manager&password=manager-demo-pw&tenant=%00", [401]],
    ["includeUserDetails junk", "username=manager&password=manager-demo-pw&includeUserDetails=%FF", [200]],
    ["no = signs", "username&password", [401]],
    ["stray ampersands and percents", "&&=&%&username=%&password=%%", [401]],
  ];
  for (const [name, body, expectStatus] of forms) {
    cases.push({
      name: `login: ${name}`,
      method: "POST",
      path: login,
      headers: FORM,
      body,
      auth: false,
      expect: expectStatus,
    });
  }
  const other: [string, string, string, number[], RegExp?][] = [
    ["acquire-temp-user", "manager repeated", "username=manager&username=manager&password=x", [401]],
    ["complete-challenge", "code junk", "challengeToken=%00%C3%28", [401]],
    ["complete-challenge", "code empty", "challengeToken=", [401]],
    ["complete-2fa", "nothing", "", [401]],
    ["complete-2fa", "code junk", "continuationToken={continuation}&twoFactorToken=%C3%28", [401]],
    [
      "complete-2fa",
      "long code",
      `continuationToken={continuation}&twoFactorToken=${"9".repeat(100_000)}`,
      [401],
    ],
    [
      "complete-2fa",
      "other user",
      "continuationToken={continuation}&twoFactorToken=1&username=manager",
      [401],
    ],
    ["refresh", "junk refresh token", "refreshToken=%C3%28", [401]],
    ["refresh", "multibyte refresh token", `refreshToken=${"é".repeat(36)}`, [401]],
    [
      "acquire-external",
      "multibyte hash",
      `username=manager&timestamp={now}&hash=${"é".repeat(40)}`,
      [401],
      /hash does not match/,
    ],
    ["acquire-external", "short hash", "username=manager&timestamp={now}&hash=00", [401]],
    ["acquire-external", "huge timestamp", `username=manager&timestamp=${"9".repeat(400)}&hash=00`, [401]],
    ["acquire-external", "timestamp 1e309", "username=manager&timestamp=1e309&hash=00", [401]],
    [
      "acquire-external",
      "repeated username",
      "username=nobody&username=manager&timestamp={now}&hash=x",
      [401],
    ],
  ];
  for (const [r, name, body, expectStatus, message] of other) {
    const withToken = r === "refresh";
    cases.push({
      name: `${r}: ${name}`,
      method: "POST",
      path: `/api/accesstoken/${r}`,
      headers: FORM,
      body,
      auth: withToken,
      expect: expectStatus,
      message,
    });
  }
  // Huge headers and URLs: Node's parser refuses them before the app sees them.
  const big = { expect: [431], message: /POST body/ };
  cases.push({
    name: "20 KB header",
    path: `${E}/root/children`,
    headers: { "X-Junk": "x".repeat(20_000) },
    ...big,
  });
  cases.push({
    name: "20 KB cookie",
    path: `${E}/root/children`,
    headers: { Cookie: `a=${"x".repeat(20_000)}` },
    ...big,
  });
  cases.push({ name: "1 MB URL", path: `${C}/search?q=${"a".repeat(1_000_000)}`, ...big });
  cases.push({
    name: "200 headers",
    path: `${E}/root/children`,
    headers: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`X-H${i}`, "x".repeat(50)])),
    expect: [200],
  });
  cases.push({
    name: "8 KB header",
    path: `${E}/root/children`,
    headers: { "X-Junk": "x".repeat(8000) },
    expect: [200],
  });
  // Places that are not routes, traversal included.
  const nowhere = [
    "/",
    "/api",
    "/api/entity",
    "/api/entity/",
    "/api/content",
    "/api/content/nope",
    "/api/user",
    "/api/entity/../../etc/passwd",
    "/api/entity/..%2f..%2fpackage.json",
    "/%2e%2e/%2e%2e/etc/passwd",
    "/api/content/download/..%2f..%2f..%2fetc%2fpasswd",
    "//api//entity//root//children",
    "/api/entity/root/children/extra",
    "/api/entity/information-objects/{io}/representations/Preservation/1/extra",
    "/api/entity/v7.7",
    "/api/entity/%",
    "/api/entity/%C3%28",
    // Not /api/entity/information-objects any more: it takes POST (a new asset), so GET is a 405 (WRONG_METHODS).
  ];
  for (const p of nowhere)
    cases.push({ name: `nowhere ${p}`, path: p, expect: [404], message: /look like|are under/ });
  cases.push({ name: "nowhere, no token", path: "/api/entity/nope", auth: false, expect: [401] });
  return cases;
}

/** Requests no HTTP client would send; Node's parser answers them itself. */
export const RAW_REQUESTS: RawRequest[] = [
  ["space in the path", "GET /api/entity/root children HTTP/1.1\r\nHost: x\r\n\r\n", 400],
  ["bad header name", "GET /api/entity/root/children HTTP/1.1\r\nHost: x\r\nBad Header: x\r\n\r\n", 400],
  [
    "Content-Length not a number",
    "POST /api/accesstoken/login HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
    400,
  ],
  [
    "two Content-Lengths",
    "POST /api/accesstoken/login HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
    400,
  ],
  [
    "chunked and Content-Length",
    "POST /api/accesstoken/login HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    400,
  ],
  [
    "bad chunk size",
    "POST /api/accesstoken/login HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    400,
  ],
  ["not HTTP", "HELLO\r\n\r\n", 400],
  ["huge header", `GET / HTTP/1.1\r\nHost: x\r\nX: ${"x".repeat(20_000)}\r\n\r\n`, 431],
  // These two pass Node's parser; the Hono adapter cannot build a URL from them.
  ["backslash in the path", "GET /api\\entity\\root HTTP/1.1\r\nHost: x\r\n\r\n", 400],
  ["bad Host header", "GET /api/user/details HTTP/1.1\r\nHost: a b@c\r\n\r\n", 400],
];

export const CASES: Case[] = httpJunk();
