import { execFile } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { startTestRepository } from "../../helpers/repository.js";

/**
 * pyPreservica's AdminAPI (the real client, unchanged) against the service: every XML schema, document and
 * transform method. Runs where the client's source is at hand (PYPRESERVICA_SRC, default /tmp/pyp, holding
 * the `pyPreservica` package) with the system Python and its `requests`; skipped elsewhere.
 */

const SRC = process.env.PYPRESERVICA_SRC ?? "/tmp/pyp";
const PYTHON = "/usr/bin/python3";
const available = existsSync(join(SRC, "pyPreservica", "adminAPI.py")) && existsSync(PYTHON);

const SCRIPT = `
import json, sys
from pyPreservica import AdminAPI
server = sys.argv[1]
admin = AdminAPI(username="manager", password="manager-demo-pw", server=server, protocol="http")
out = {}
xsd = '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="https://example.org/ns/py/v1"><xs:element name="r" type="xs:string"/></xs:schema>'
admin.add_xml_schema("Py schema", "Added by pyPreservica", "py.xsd", xsd)
out["schemas"] = admin.xml_schemas()
out["schema"] = admin.xml_schema("https://example.org/ns/py/v1")
admin.add_xml_document("Py template", '<r xmlns="https://example.org/ns/py/v1">t</r>')
out["documents"] = admin.xml_documents()
out["document"] = admin.xml_document("https://example.org/ns/py/v1")
xslt = '<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"><xsl:template match="/"/></xsl:stylesheet>'
admin.add_xml_transform("Py view", "https://example.org/ns/py/v1", "http://www.w3.org/1999/xhtml", "View", "view.xslt", xslt)
out["transforms"] = admin.xml_transforms()
out["transform"] = admin.xml_transform("https://example.org/ns/py/v1", "http://www.w3.org/1999/xhtml")
admin.delete_xml_transform("https://example.org/ns/py/v1", "http://www.w3.org/1999/xhtml")
admin.delete_xml_document("https://example.org/ns/py/v1")
admin.delete_xml_schema("https://example.org/ns/py/v1")
out["after"] = [len(admin.xml_schemas()), len(admin.xml_documents()), len(admin.xml_transforms())]
print(json.dumps(out))
`;

import { tempDir } from "../../helpers/temp-dir.js";

let repo: RunningRepository;
beforeAll(async () => {
  if (available) repo = await startTestRepository();
});
afterAll(async () => {
  await repo?.close();
});

describe.skipIf(!available)("pyPreservica AdminAPI: schemas, documents, transforms", () => {
  it("adds, lists, reads and deletes each kind", async () => {
    const dir = tempDir("pyp-admin-");
    const script = join(dir, "admin.py");
    writeFileSync(script, SCRIPT);
    const server = repo.url.replace(/^http:\/\//, "");
    const { stdout } = await promisify(execFile)(PYTHON, [script, server], {
      cwd: dir,
      env: { ...process.env, PYTHONPATH: SRC },
      timeout: 60_000,
    });
    const out = JSON.parse(stdout.trim().split("\n").at(-1) as string);
    expect(out.schemas).toContainEqual(
      expect.objectContaining({
        SchemaUri: "https://example.org/ns/py/v1",
        Name: "Py schema",
        Description: "Added by pyPreservica",
      }),
    );
    expect(out.schema).toContain('targetNamespace="https://example.org/ns/py/v1"');
    expect(out.documents).toContainEqual(
      expect.objectContaining({
        Name: "Py template",
        DocumentType: "MetadataTemplate",
        SchemaUri: "https://example.org/ns/py/v1",
      }),
    );
    expect(out.document).toBe('<r xmlns="https://example.org/ns/py/v1">t</r>');
    expect(out.transforms).toContainEqual(
      expect.objectContaining({
        Name: "Py view",
        Purpose: "view",
        FromSchemaUri: "https://example.org/ns/py/v1",
      }),
    );
    expect(out.transform).toContain("xsl:stylesheet");
    // Only the built-ins are left.
    expect(out.after).toEqual([1, 1, 1]);
  }, 90_000);
});
