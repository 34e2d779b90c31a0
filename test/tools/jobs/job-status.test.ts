import { createWriteStream, readFileSync } from "node:fs";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { beforeAll, describe, expect, it } from "vitest";
import yazl from "yazl";
import { insertEntity } from "../../../repository/store/entities/write.js";
import { ERAS, textOf } from "../../helpers/mcp.js";
import { authed, login } from "../../helpers/repository.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";

interface Status {
  job: string;
  state: string;
  finished: boolean;
  kind?: string;
  percentage?: number;
  total?: number;
  done?: number;
  failed?: number;
  target?: { ref: string; title?: string };
  created?: { ref: string; title: string; path?: string }[];
  errors: { message: string; item?: number }[];
}

describe.each(ERAS)("job_status (%s)", (era) => {
  const work = tempDir("pmcp-jobs-");
  let http: ReturnType<typeof authed>;
  const repo = useRepository({ seed: "demo" });
  const mcp = useMcp({ user: "manager", repo, era, flags: ["--toolsets", "all"] });
  const reader = useMcp({ user: "reader", repo, era, flags: ["--read-only"] });
  beforeAll(async () => {
    http = authed(repo.url, (await login(repo.url, "manager")).token);
  });

  it("follows a move started by plain HTTP to its end, naming the moved asset", async () => {
    const from = insertEntity(repo.svc.db, { type: "SO", title: `From ${era}`, securityTag: "open" });
    const to = insertEntity(repo.svc.db, { type: "SO", title: `To ${era}`, securityTag: "open" });
    const asset = insertEntity(repo.svc.db, {
      type: "IO",
      title: `Ledger ${era}`,
      securityTag: "open",
      parentRef: from.ref,
    });
    const res = await http(`/api/entity/information-objects/${asset.ref}/parent-ref`, {
      method: "PUT",
      headers: { "Content-Type": "text/plain" },
      body: to.ref,
    });
    expect(res.status).toBe(202);
    const token = (await res.text()).trim();
    const s = await mcp.call<Status>("job_status", { job: token, waitSeconds: 10 });
    expect(s).toMatchObject({
      job: token,
      state: "COMPLETED",
      kind: "move",
      finished: true,
      percentage: 100,
    });
    expect(s.target).toEqual({ ref: asset.ref, title: `Ledger ${era}` });
    const text = textOf(await mcp.raw("job_status", { job: token }));
    expect(text).toContain(`Job ${token} (move): COMPLETED (100%)`);
    expect(text).toContain(`"Ledger ${era}" (${asset.ref})`);
    const moved = await mcp.call<{ entity: { parentRef?: string } }>("get_entity", { ref: asset.ref });
    expect(moved.entity.parentRef).toBe(to.ref);
  });

  it("waits for a running ingest with progress notifications, then reports failures item by item", async () => {
    const folder = insertEntity(repo.svc.db, { type: "SO", title: `Inbox ${era}`, securityTag: "open" });
    const zipPath = join(work, `mixed-${era}.zip`);
    const zip = new yazl.ZipFile();
    zip.addBuffer(Buffer.from("first\n"), "a.txt");
    zip.addBuffer(Buffer.from("second\n"), "b.txt");
    zip.addBuffer(Buffer.from("third\n"), "c.txt");
    // A manifest that declares a wrong fixity: that one file fails.
    zip.addBuffer(
      Buffer.from(
        `<opex:OPEXMetadata xmlns:opex="http://www.openpreservationexchange.org/opex/v1.2"><opex:Transfer><opex:Fixities><opex:Fixity type="SHA-256" value="${"0".repeat(64)}"/></opex:Fixities></opex:Transfer></opex:OPEXMetadata>`,
      ),
      "c.txt.opex",
    );
    const written = pipeline(zip.outputStream, createWriteStream(zipPath));
    zip.end();
    await written;
    const previous = process.env.PRESERVATION_INGEST_PAUSE_MS;
    process.env.PRESERVATION_INGEST_PAUSE_MS = "400";
    try {
      const res = await http(`/api/entity/structural-objects/${folder.ref}`, {
        method: "POST",
        headers: { "Content-Type": "application/octet-stream", Filename: "mixed.zip" },
        body: readFileSync(zipPath),
      });
      expect(res.status).toBe(202);
      const token = (await res.text()).trim();
      const progress: number[] = [];
      let s: Status | undefined;
      for (let i = 0; i < 5 && !s?.finished; i++) {
        const r = await mcp.client.callTool(
          { name: "job_status", arguments: { job: token, waitSeconds: 15 } },
          { onprogress: (p) => progress.push(p.progress) },
        );
        s = r.structuredContent as unknown as Status;
      }
      expect(progress.length).toBeGreaterThan(0);
      expect(s).toMatchObject({
        state: "FINISHED_MIXED_OUTCOME",
        kind: "ingest",
        total: 3,
        done: 2,
        failed: 1,
      });
      expect(s?.created?.map((c) => c.title).sort()).toEqual(["a.txt", "b.txt"]);
      expect(s?.errors[0]?.message).toMatch(/c\.txt.*fixity/);
      expect(s?.target?.title).toBe(`Inbox ${era}`);
      const text = textOf(await mcp.raw("job_status", { job: token }));
      expect(text).toMatch(/Created 2 assets: "a\.txt" [0-9a-f-]{36} \(a\.txt\); "b\.txt"/);
      expect(text).toMatch(/Failed item \d+: .*c\.txt/);
    } finally {
      if (previous === undefined) delete process.env.PRESERVATION_INGEST_PAUSE_MS;
      else process.env.PRESERVATION_INGEST_PAUSE_MS = previous;
    }
  });

  it("refuses a handle that is not a UUID, and one the service does not know", async () => {
    const bad = await mcp.raw("job_status", { job: "my-ingest" });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/"my-ingest" is not a job handle; handles are UUIDs/);
    const unknown = await mcp.raw("job_status", { job: "0b7c2f3e-8d1a-4c55-9e61-2f4a7b9c0d13" });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/knows no job 0b7c2f3e-8d1a-4c55-9e61-2f4a7b9c0d13/);
  });

  it("is listed for a reader and in read-only mode", async () => {
    expect((await reader.client.listTools()).tools.map((t) => t.name)).toContain("job_status");
  });
});
