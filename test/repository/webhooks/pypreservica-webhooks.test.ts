import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { insertEntity } from "../../../repository/store/entities/write.js";
import { startTestRepository } from "../../helpers/repository.js";
import { tempDir } from "../../helpers/temp-dir.js";

/**
 * pyPreservica's own WebHooksAPI (the real client) against the service: subscribe (its receiver, the
 * client's own WebHookHandler, answers the challenge), list, unsubscribe; and in between a move made with
 * the client's EntityAPI arrives at that receiver, which checks the Preservica-Signature of the chunked
 * body itself (do_WORK runs only for a verified body). Runs where the client's source is extracted
 * (PYPRESERVICA_SRC, default /tmp/pyp) and the system Python has requests; skipped elsewhere.
 */

const SRC = process.env.PYPRESERVICA_SRC ?? "/tmp/pyp";
const PYTHON = "/usr/bin/python3";
const available = existsSync(join(SRC, "pyPreservica", "webHooksAPI.py")) && existsSync(PYTHON);

const SCRIPT = `
import json, sys, types, threading, time
for name in ("pyotp", "tqdm"):
    try:
        __import__(name)
    except ImportError:
        stub = types.ModuleType(name)
        stub.tqdm = object
        sys.modules[name] = stub
from http.server import HTTPServer
from pyPreservica import WebHooksAPI, EntityAPI
from pyPreservica.webHooksAPI import WebHookHandler, TriggerType

server, item, dest = sys.argv[1], sys.argv[2], sys.argv[3]
received = []

class Handler(WebHookHandler):
    def do_WORK(self, event):
        received.append(event)
    def log_message(self, *args):
        pass

httpd = HTTPServer(("127.0.0.1", 0), Handler)
httpd.secret_key = "py-shared-secret"
threading.Thread(target=httpd.serve_forever, daemon=True).start()
url = f"http://127.0.0.1:{httpd.server_address[1]}/"

out = {}
hooks = WebHooksAPI(username="manager", password="manager-demo-pw", server=server, protocol="http")
out["before"] = hooks.subscriptions()
out["subscribed"] = json.loads(hooks.subscribe(url, TriggerType.MOVED, "py-shared-secret"))
out["listed"] = hooks.subscriptions()
try:
    hooks.subscribe(url, TriggerType.MOVED, "py-shared-secret")
    out["again"] = "accepted"
except Exception as e:
    out["again"] = str(e)

entity = EntityAPI(username="manager", password="manager-demo-pw", server=server, protocol="http")
entity.move_sync(entity.asset(item), entity.folder(dest))
until = time.time() + 15
while not received and time.time() < until:
    time.sleep(0.05)
out["received"] = received

hooks.unsubscribe_all()
out["after"] = hooks.subscriptions()
try:
    hooks.subscribe("http://192.0.2.10:8080/", TriggerType.MOVED, "py-shared-secret")
    out["remote"] = "accepted"
except Exception as e:
    out["remote"] = str(e)
httpd.shutdown()
print(json.dumps(out))
`;

function runPython(args: string[], cwd: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(
      PYTHON,
      ["-c", SCRIPT, ...args],
      { cwd, env: { ...process.env, PYTHONPATH: SRC }, timeout: 60_000 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`pyPreservica failed: ${err.message}\n${stderr}`));
        else resolve(JSON.parse(stdout.trim().split("\n").pop() as string) as Record<string, unknown>);
      },
    );
  });
}

describe.skipIf(!available)("pyPreservica WebHooksAPI against the service", () => {
  let repo: RunningRepository;
  let cwd: string;
  let out: Record<string, unknown>;
  let item: string;

  beforeAll(async () => {
    repo = await startTestRepository({ webhookDelivery: { pollMs: 20, retryBaseMs: 50 } });
    const { db } = repo.svc;
    const created = "2020-01-01T00:00:00.000Z";
    const refs = db.transaction(() => {
      const source = insertEntity(db, { type: "SO", title: "Source", securityTag: "open", created }).ref;
      const dest = insertEntity(db, { type: "SO", title: "Destination", securityTag: "open", created }).ref;
      const io = insertEntity(db, {
        type: "IO",
        title: "Item",
        securityTag: "open",
        parentRef: source,
        created,
      });
      return { dest, item: io.ref };
    })();
    item = refs.item;
    cwd = tempDir("pyp-webhooks-");
    out = await runPython([new URL(repo.url).host, refs.item, refs.dest], cwd);
  }, 90_000);
  afterAll(async () => {
    await repo?.close();
  });

  it("subscribes, lists and unsubscribes", () => {
    expect(out.before).toEqual([]);
    const sub = out.subscribed as { id: string; triggerType: string };
    expect(sub.triggerType).toBe("MOVED");
    expect((out.listed as { id: string }[]).map((s) => s.id)).toEqual([sub.id]);
    expect(out.again).toMatch(/409|already subscribed/);
    expect(out.after).toEqual([]);
  });

  it("delivers a move to the client's own receiver, which verifies the signature", () => {
    const received = out.received as { events: { entityRef: string; event: string }[] }[];
    expect(received).toHaveLength(1);
    expect(received[0]?.events).toEqual([expect.objectContaining({ event: "MOVED", entityRef: item })]);
  });

  it("is refused a receiver off this machine", () => {
    expect(out.remote).toMatch(/400|not allowed/);
  });
});
