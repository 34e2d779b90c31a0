#!/usr/bin/env node
// Curation and administration requests carried out through the MCP server as a model would: the shipped CLI
// over stdio (a real MCP client), on the embedded demo repository in a fresh data directory, signed in as the
// demo manager with every toolset on. Each request is the plan a model would make from tools/list alone:
// where a tool takes many targets (a `folder` or `refs` in its input schema) the plan uses it, otherwise it
// calls once per entity; a preview's confirmation is given back at once, as after the person agreed. The end
// state is checked through the tools afterwards (those calls are not counted). Prints calls and answer tokens
// (characters of the text the model reads / 4) per request and in total.
// Reads the built bundle: run `npm run build` first.
// Usage: node bench/tasks.mjs [--json]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const { values } = parseArgs({ options: { json: { type: "boolean", default: false } } });
const cli = fileURLToPath(new URL("../dist/bundle/preservation-mcp.cjs", import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), "tasks-bench-"));

const transport = new StdioClientTransport({
  command: process.execPath,
  args: [cli],
  env: {
    ...getDefaultEnvironment(),
    PRESERVATION_DATA_DIR: dataDir,
    PRESERVATION_USERNAME: "manager",
    PRESERVATION_TOOLSETS: "all",
    PRESERVATION_LOG_LEVEL: "silent",
  },
  stderr: "ignore",
});
const client = new Client({ name: "tasks-bench", version: "1.0.0" });
await client.connect(transport);
const tools = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
/** Whether `tool` is listed and its input schema has `prop`: what a model reads from tools/list. */
const takes = (tool, prop) => Boolean(tools.get(tool)?.inputSchema?.properties?.[prop]);

const textOf = (r) =>
  (r.content ?? [])
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("\n");

class Refused extends Error {}

/** One request's counter: every call a plan makes, and the characters of the answers' text. */
function meter() {
  const m = { calls: 0, chars: 0, confirmations: 0 };
  /** A counted call; a preview is confirmed at once (one more counted call). Throws Refused on isError. */
  m.call = async (name, args = {}) => {
    m.calls++;
    let r = await client.callTool({ name, arguments: args });
    m.chars += textOf(r).length;
    const token = r.structuredContent?.confirmationRequired?.token;
    if (!r.isError && token) {
      m.calls++;
      m.confirmations++;
      r = await client.callTool({ name, arguments: { ...args, confirmation: token } });
      m.chars += textOf(r).length;
    }
    if (r.isError) throw new Refused(`${name}: ${textOf(r).slice(0, 300)}`);
    return r.structuredContent ?? {};
  };
  return m;
}

/** An uncounted call, to check the end state. */
async function peek(name, args = {}) {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name}: ${textOf(r).slice(0, 300)}`);
  return r.structuredContent ?? {};
}

async function findFolder(m, title) {
  const s = await m.call("search", { query: `"${title}"`, type: "folder", limit: 5 });
  const hit = s.hits.find((h) => h.title === title) ?? s.hits[0];
  if (!hit) throw new Refused(`no folder "${title}"`);
  return hit.ref;
}

async function findAsset(m, query) {
  const s = await m.call("search", { query, type: "asset", limit: 5 });
  if (!s.hits[0]) throw new Refused(`no asset for ${query}`);
  return s.hits[0];
}

async function assetsIn(m, folder) {
  const b = await m.call("browse", { ref: folder, limit: 200 });
  return { listing: b, assets: b.children.filter((c) => c.type === "asset") };
}

const NEW_DESCRIPTION =
  "Minutes of the Harbour Town Council, 1850-1859: full council and committee meetings.";
const POLICY_75 = "Personnel files — 75 years";

const REQUESTS = [
  {
    name: "correct a folder's description",
    async plan(m) {
      const ref = await findFolder(m, "Council minutes 1850-1859");
      await m.call("update_entity", { ref, description: NEW_DESCRIPTION });
      return ref;
    },
    async check(ref) {
      return (await peek("get_entity", { ref })).entity?.description === NEW_DESCRIPTION;
    },
  },
  {
    name: "number a folder's items (HM-1998-01…)",
    async plan(m) {
      const folder = await findFolder(m, "Harbour Memories Project 1998");
      if (takes("edit_identifiers", "folder")) {
        await m.call("edit_identifiers", {
          folder,
          add: [{ type: "accession", value: "HM-1998-{nn}" }],
        });
        return folder;
      }
      const { assets } = await assetsIn(m, folder);
      let n = 0;
      for (const a of assets) {
        n++;
        const value = `HM-1998-${String(n).padStart(2, "0")}`;
        await m.call("edit_identifiers", { ref: a.ref, add: [{ type: "accession", value }] });
      }
      return folder;
    },
    async check(folder) {
      const { children } = await peek("browse", { ref: folder, limit: 200 });
      const assets = children.filter((c) => c.type === "asset");
      for (const [i, a] of assets.entries()) {
        const f = await peek("find_by_identifier", {
          type: "accession",
          value: `HM-1998-${String(i + 1).padStart(2, "0")}`,
        });
        if (!JSON.stringify(f).includes(a.ref)) return false;
      }
      return assets.length > 0;
    },
  },
  {
    name: "re-tag a folder's items (not the folder)",
    async plan(m) {
      const folder = await findFolder(m, "Street Scenes");
      if (takes("set_security_tag", "folder")) {
        await m.call("set_security_tag", { folder, tag: "staff" });
        return folder;
      }
      const { listing } = await assetsIn(m, folder);
      for (const c of listing.children) await m.call("set_security_tag", { ref: c.ref, tag: "staff" });
      return folder;
    },
    async check(folder) {
      const tag = async (ref) => (await peek("get_entity", { ref })).entity?.securityTag;
      const { children } = await peek("browse", { ref: folder, limit: 200 });
      for (const c of children) if ((await tag(c.ref)) !== "staff") return false;
      return (await tag(folder)) !== "staff" && children.length > 0;
    },
  },
  {
    name: "move a folder's items into a new folder",
    async plan(m) {
      const folder = await findFolder(m, "Harbour Master's Journals");
      const { listing, assets } = await assetsIn(m, folder);
      const parent = listing.breadcrumbs.at(-1)?.ref;
      const made = await m.call("create_folder", {
        title: "Journals to be catalogued",
        ...(parent ? { parent } : {}),
      });
      const destination = made.folder?.ref ?? made.ref;
      if (takes("move_entity", "folder")) {
        await m.call("move_entity", { folder, destination });
      } else {
        for (const a of assets) await m.call("move_entity", { ref: a.ref, destination });
      }
      return { folder, destination, count: assets.length };
    },
    async check({ folder, destination, count }) {
      const from = await peek("browse", { ref: folder });
      const to = await peek("browse", { ref: destination });
      return from.total === 0 && to.total === count;
    },
  },
  {
    name: "assign retention to a folder's items",
    async plan(m) {
      const { policies } = await m.call("list_retention_policies");
      if (!policies?.some((p) => p.name === POLICY_75))
        throw new Refused(`no retention policy "${POLICY_75}" and no tool to create one`);
      const folder = await findFolder(m, "Personnel Files");
      if (takes("assign_retention", "folder")) {
        await m.call("assign_retention", { folder, policy: POLICY_75 });
        return folder;
      }
      const { assets } = await assetsIn(m, folder);
      for (const a of assets) await m.call("assign_retention", { ref: a.ref, policy: POLICY_75 });
      return folder;
    },
    async check(folder) {
      const { children } = await peek("browse", { ref: folder, limit: 200 });
      for (const c of children.filter((x) => x.type === "asset")) {
        const r = await peek("get_retention", { ref: c.ref });
        if (!JSON.stringify(r).includes(POLICY_75)) return false;
      }
      return true;
    },
  },
  {
    name: "bulk CSV edit of a metadata group",
    async plan(m) {
      const folder = await findFolder(m, "Fishing Families Project 2004");
      const { assets } = await assetsIn(m, folder);
      // The model learns the group's columns from the tools it has: a group listing if there is one, else
      // by trying the CSV's dry run with what the description says and reading the refusal.
      let column;
      if (tools.has("list_metadata_groups")) {
        const g = await m.call("list_metadata_groups");
        const group = g.groups?.[0];
        const field = group?.fields?.find((f) => /accession|number|box/i.test(f.id)) ?? group?.fields?.[0];
        if (!group || !field) throw new Refused("no metadata group");
        column = field.column;
      } else {
        const probe = "http://www.preservica.com/metadata/group/accession;/ns:accession/ns:number";
        const csv = `"PRESERVICA_ENTITY_REF","${probe}"\n"${assets[0].ref}","FF-1"\n`;
        await m.call("csv_metadata_edit", { csv, mode: "dry_run" });
        column = probe;
      }
      const rows = assets.map((a, i) => `"${a.ref}","FF-2004-${i + 1}"`);
      const csv = `"PRESERVICA_ENTITY_REF","${column}"\n${rows.join("\n")}\n`;
      // Where the dry run is the preview it returns the confirmation token: the apply passes it on as is
      // (the person agreed to what the dry run showed) instead of being previewed a second time.
      const dry = await m.call("csv_metadata_edit", { csv, mode: "dry_run" });
      const applied = await m.call("csv_metadata_edit", {
        csv,
        mode: "apply",
        ...(dry.confirmation ? { confirmation: dry.confirmation } : {}),
      });
      if (applied.job && !applied.finished) {
        const s = await m.call("job_status", { job: applied.job, waitSeconds: 10 });
        if (s.state !== "COMPLETED") throw new Refused(`CSV job ${s.state}`);
      }
      return assets[0].ref;
    },
    async check(ref) {
      const doc = await peek("read_metadata", { ref, schema: "location_and_condition" });
      return JSON.stringify(doc).includes("FF-2004-1");
    },
  },
  {
    name: "delete an asset, then recover it",
    async plan(m) {
      const hit = await findAsset(m, "Harbour Improvement");
      const del = await m.call("delete_entity", { ref: hit.ref, comment: "Duplicate" });
      if (del.awaitingApproval) {
        await m.call("review_deletion", { job: del.job, decision: "approve", comment: "Agreed" });
      }
      await m.call("recover_entity", { ref: hit.ref });
      return hit.ref;
    },
    async check(ref) {
      for (let i = 0; i < 50; i++) {
        const r = await client.callTool({ name: "get_entity", arguments: { ref } });
        if (!r.isError) return true;
        await new Promise((res) => setTimeout(res, 100));
      }
      return false;
    },
  },
  {
    name: "disable a user",
    async plan(m) {
      const u = await m.call("users_and_access", {});
      // "Ruth Albright has left: disable her account."
      const user = (u.users ?? []).find((x) => x.fullName === "Ruth Albright");
      if (!user) throw new Refused("Ruth Albright is not listed");
      await m.call("manage_user", { action: "disable", user: user.userName });
      return user.userName;
    },
    async check(user) {
      const u = await peek("users_and_access", { user });
      return JSON.stringify(u).includes('"enabled":false');
    },
  },
  {
    name: "create a retention policy",
    async plan(m) {
      await m.call("list_retention_policies");
      if (!tools.has("manage_retention_policy")) throw new Refused("no tool creates retention policies");
      await m.call("manage_retention_policy", {
        action: "create",
        name: "Grant records — 10 years",
        description: "Grant applications and awards",
        period: 10,
        unit: "YEARS",
      });
      return "Grant records — 10 years";
    },
    async check(name) {
      const { policies } = await peek("list_retention_policies");
      return policies.some((p) => p.name === name);
    },
  },
];

const results = [];
try {
  for (const r of REQUESTS) {
    const m = meter();
    let outcome = "done";
    let detail = "";
    try {
      const state = await r.plan(m);
      if (!(await r.check(state))) outcome = "wrong end state";
    } catch (err) {
      if (!(err instanceof Refused)) throw err;
      outcome = "not possible";
      detail = err.message.split("\n")[0].slice(0, 140);
    }
    results.push({
      request: r.name,
      outcome,
      calls: m.calls,
      confirmations: m.confirmations,
      tokens: Math.round(m.chars / 4),
      ...(detail ? { detail } : {}),
    });
  }
} finally {
  await client.close();
  rmSync(dataDir, { recursive: true, force: true });
}

const total = results.reduce(
  (t, r) => ({
    calls: t.calls + r.calls,
    tokens: t.tokens + r.tokens,
    done: t.done + (r.outcome === "done"),
  }),
  { calls: 0, tokens: 0, done: 0 },
);
if (values.json) {
  process.stdout.write(`${JSON.stringify({ results, total }, null, 2)}\n`);
} else {
  const pad = (s, n) => String(s).padEnd(n);
  process.stdout.write(
    `${pad("request", 44)}${pad("outcome", 16)}${pad("calls", 7)}${pad("conf.", 7)}tokens\n`,
  );
  for (const r of results) {
    process.stdout.write(
      `${pad(r.request, 44)}${pad(r.outcome, 16)}${pad(r.calls, 7)}${pad(r.confirmations, 7)}${r.tokens}\n`,
    );
    if (r.detail) process.stdout.write(`  ${r.detail}\n`);
  }
  process.stdout.write(
    `${pad(`total (${total.done} of ${results.length} done)`, 60)}${pad(total.calls, 14)}${total.tokens}\n`,
  );
}
