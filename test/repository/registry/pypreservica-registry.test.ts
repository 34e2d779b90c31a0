import { execFile } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { startTestRepository } from "../../helpers/repository.js";
import { tempDir } from "../../helpers/temp-dir.js";

/**
 * The real Python client against the service: pyPreservica 3.4.4's PreservationActionRegistry (PAR API,
 * `/Registry/par`, reads without a token, writes with Basic credentials) and AuthorityAPI
 * (`/api/reference-metadata`, CSV import through its add_records), unpatched. Skipped when the client's
 * source is not extracted at /tmp/pyp (see the helper brief) or python3 is missing.
 */

const PYP = "/tmp/pyp";
const PYTHON = "/usr/bin/python3";
const run = promisify(execFile);
const available = existsSync(join(PYP, "pyPreservica", "parAPI.py")) && existsSync(PYTHON);

let repo: RunningRepository;
let dir: string;

beforeAll(async () => {
  repo = await startTestRepository();
  dir = tempDir("pyp-registry-");
});
afterAll(async () => {
  await repo?.close();
});

const SCRIPT = `
import json, sys
sys.path.insert(0, sys.argv[1])
from pyPreservica import PreservationActionRegistry, AuthorityAPI, Table
server, csv_path = sys.argv[2], sys.argv[3]
out = {}
par = PreservationActionRegistry(username="manager", password="manager-demo-pw", server=server, protocol="http")
out["families"] = [f["id"]["name"] for f in json.loads(par.format_families())["formatFamilies"]]
out["pdf"] = json.loads(par.file_format("fmt/18"))["name"]
out["types"] = [t["label"] for t in json.loads(par.preservation_action_types())["preservationActionTypes"]]
added = json.loads(par.add_tool(json.dumps({"toolName": "ffmpeg", "toolVersion": "6.0"})))
guid = added["id"]["guid"]
par.update_tool(guid, json.dumps({"toolName": "ffmpeg", "toolVersion": "6.1"}))
out["tool"] = json.loads(par.tool(guid))["toolVersion"]
par.delete_tool(guid)
out["tools_after"] = [t["toolName"] for t in json.loads(par.tools())["tools"]]
out["rulesets"] = [r["name"] for r in json.loads(par.rule_sets())["ruleSets"]]
try:
    par.delete_file_format("fmt/18")
    out["builtin_delete"] = "deleted"
except RuntimeError as e:
    out["builtin_delete"] = e.args[0]

auth = AuthorityAPI(username="manager", password="manager-demo-pw", server=server, protocol="http")
table = auth.add_table(Table("Places", "open"))
out["table"] = [table.name, table.security_tag]
out["tables"] = sorted(t.name for t in auth.tables())
auth.add_records(table, csv_path)
records = auth.records(table)
out["records"] = [{f["name"]: f["value"] for f in r["fieldValues"]} for r in records]
one = auth.record(records[0]["ref"])
out["record"] = one["ref"] == records[0]["ref"]
auth.delete_record(records[0]["ref"])
out["after_delete"] = len(auth.records(table))
print(json.dumps(out))
`;

describe.skipIf(!available)("pyPreservica PreservationActionRegistry and AuthorityAPI", () => {
  it("reads, adds, updates and deletes registry items, and manages authority tables and records", async () => {
    const script = join(dir, "run.py");
    const csvPath = join(dir, "places.csv");
    writeFileSync(script, SCRIPT);
    writeFileSync(csvPath, "Name,County\nExeter,Devon\nTaunton,Somerset\n");
    const server = new URL(repo.url).host;
    const { stdout } = await run(PYTHON, [script, PYP, server, csvPath], { timeout: 120_000 });
    const out = JSON.parse(stdout.trim().split("\n").pop() as string);
    expect(out.families).toEqual(expect.arrayContaining(["document", "image", "text"]));
    expect(out.pdf).toBe("Acrobat PDF 1.4 - Portable Document Format");
    expect(out.types).toEqual(expect.arrayContaining(["Identification", "Migration"]));
    expect(out.tool).toBe("6.1");
    expect(out.tools_after).not.toContain("ffmpeg");
    expect(out.rulesets).toContain("Default");
    expect(out.builtin_delete).toBe(409);
    expect(out.table).toEqual(["Places", "open"]);
    expect(out.tables).toContain("Places");
    // add_records lower-cases the CSV's column names and adds an "id" column (the CSV line number).
    expect(out.records).toEqual([
      { name: "Exeter", county: "Devon", id: "2" },
      { name: "Taunton", county: "Somerset", id: "3" },
    ]);
    expect(out.record).toBe(true);
    expect(out.after_delete).toBe(1);
  }, 150_000);
});
