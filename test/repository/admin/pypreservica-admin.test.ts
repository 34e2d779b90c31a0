import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { startTestRepository } from "../../helpers/repository.js";
import { tempDir } from "../../helpers/temp-dir.js";

/**
 * pyPreservica's own AdminAPI (the real client, 3.4.4) run against the service: every user, security-tag
 * and system-role call it has, plus `security_tags_base(with_permissions=True)` of the Security API.
 * The client's source is not installable from the registries here, so this runs where it has been
 * extracted (PYPRESERVICA_SRC, default /tmp/pyp: `git archive HEAD pyPreservica` of carj/pyPreservica)
 * and the system Python has requests, dateutil and boto3; it is skipped elsewhere. pyotp and tqdm, which
 * the client imports but these calls never use, are stubbed in the Python process when absent.
 */

const SRC = process.env.PYPRESERVICA_SRC ?? "/tmp/pyp";
const PYTHON = "/usr/bin/python3";
const available = existsSync(join(SRC, "pyPreservica", "adminAPI.py")) && existsSync(PYTHON);

const SCRIPT = `
import json, sys, types, csv, os
for name in ("pyotp", "tqdm"):
    try:
        __import__(name)
    except ImportError:
        stub = types.ModuleType(name)
        stub.tqdm = object
        sys.modules[name] = stub
from pyPreservica import AdminAPI

server = sys.argv[1]
out = {}
client = AdminAPI(username="manager", password="manager-demo-pw", server=server, protocol="http")
out["users"] = client.all_users()
out["curator"] = client.user_details("curator")
out["added"] = client.add_user("py.user@example.org", "Py User", ["SDB_ACCESS_USER", "SDB_DATA_MANAGEMENT_USER"])
out["renamed"] = client.change_user_display_name("py.user@example.org", "Py User Renamed")
client.disable_user("py.user@example.org")
out["disabled"] = client.user_details("py.user@example.org")["Enabled"]
client.enable_user("py.user@example.org")
out["enabled"] = client.user_details("py.user@example.org")["Enabled"]
client.user_report(report_name="users.csv")
with open("users.csv", encoding="utf-8") as f:
    out["report"] = list(csv.DictReader(f))
client.delete_user("py.user@example.org")
out["users_after"] = client.all_users()
out["tags"] = client.security_tags()
out["tag_added"] = client.add_security_tag("py tag")
out["tags_with_new"] = client.security_tags()
client.delete_security_tag("py tag")
out["tags_after"] = client.security_tags()
out["roles"] = client.system_roles()
out["role_added"] = client.add_system_role("SDB_PY_USER")
out["roles_with_new"] = client.system_roles()
client.delete_system_role("SDB_PY_USER")
out["roles_after"] = client.system_roles()
out["permissions"] = client.security_tags_base(with_permissions=True)
print(json.dumps(out))
`;

function runPython(server: string, cwd: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(
      PYTHON,
      ["-c", SCRIPT, server],
      { cwd, env: { ...process.env, PYTHONPATH: SRC }, timeout: 60_000 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`pyPreservica failed: ${err.message}\n${stderr}`));
        else resolve(JSON.parse(stdout.trim().split("\n").pop() as string) as Record<string, unknown>);
      },
    );
  });
}

describe.skipIf(!available)("pyPreservica AdminAPI against the service", () => {
  let repo: RunningRepository;
  let cwd: string;
  let out: Record<string, unknown>;

  beforeAll(async () => {
    repo = await startTestRepository();
    cwd = tempDir("pyp-admin-");
    out = await runPython(new URL(repo.url).host, cwd);
  }, 90_000);
  afterAll(async () => {
    await repo?.close();
  });

  it("lists users and reads a user's details", () => {
    expect(out.users).toEqual(expect.arrayContaining(["curator", "guest", "manager", "reader", "twofactor"]));
    expect(out.curator).toEqual({
      UserName: "curator",
      FullName: "Daniel Okafor",
      Email: "daniel.okafor@example.org",
      Tenant: "DEMO",
      Enabled: true,
      Roles: ["SDB_ACCESS_USER", "SDB_DATA_MANAGEMENT_USER"],
    });
  });

  it("adds, renames, disables, enables, reports and deletes a user", () => {
    expect(out.added).toMatchObject({ UserName: "py.user@example.org", FullName: "Py User", Enabled: true });
    expect(out.renamed).toMatchObject({ FullName: "Py User Renamed" });
    expect(out.disabled).toBe(false);
    expect(out.enabled).toBe(true);
    const report = out.report as Record<string, string>[];
    expect(report.find((r) => r.UserName === "py.user@example.org")).toMatchObject({
      FullName: "Py User Renamed",
      Enabled: "True",
    });
    expect(out.users_after).not.toContain("py.user@example.org");
  });

  it("adds and deletes a security tag and a system role", () => {
    expect(out.tags).toEqual(["closed", "open", "staff"]);
    expect(out.tag_added).toBe("py tag");
    expect(out.tags_with_new).toContain("py tag");
    expect(out.tags_after).toEqual(["closed", "open", "staff"]);
    // Roles are listed as the real service lists them, with ROLE_ (pyPreservica's own tests look for
    // ROLE_SDB_ACCESS_USER); add_system_role("SDB_X") answers "ROLE_SDB_X", as test_security.py asserts.
    expect(out.roles).toContain("ROLE_SDB_MANAGER_USER");
    expect(out.role_added).toBe("ROLE_SDB_PY_USER");
    expect(out.roles_with_new).toContain("ROLE_SDB_PY_USER");
    expect(out.roles_after).not.toContain("ROLE_SDB_PY_USER");
    expect(out.roles_after).toContain("ROLE_SDB_MANAGER_USER");
  });

  it("reads the permissions the manager has per tag from the Security API", () => {
    const all = [
      "Change Security Tag",
      "Delete",
      "Download",
      "Ingest",
      "Move",
      "Read Metadata",
      "Update Metadata",
    ];
    expect(out.permissions).toEqual({ closed: all, open: all, staff: all });
  });

  it("left a config event for each change it made", () => {
    const rows = repo.svc.db
      .prepare("SELECT category, command_type AS c, subject FROM config_events ORDER BY id")
      .all() as { category: string; c: string; subject: string }[];
    expect(rows.map((r) => `${r.category} ${r.c} ${r.subject}`)).toEqual([
      "USER CREATE py.user@example.org",
      "USER UPDATE py.user@example.org",
      "USER DISABLE py.user@example.org",
      "USER ENABLE py.user@example.org",
      // The client's delete_user disables the user first, then deletes.
      "USER DISABLE py.user@example.org",
      "USER DELETE py.user@example.org",
      "SECURITY CREATE py tag",
      "SECURITY DELETE py tag",
      "SECURITY CREATE ROLE_SDB_PY_USER",
      "SECURITY DELETE ROLE_SDB_PY_USER",
    ]);
  });
});
