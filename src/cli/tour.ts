import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { assetUri } from "../resources/uris.js";
import { buildServer, SERVER_INFO } from "../server/server.js";
import { prepareRuntime } from "./main.js";
import { commandHere } from "./self-command.js";

/**
 * `preservation-mcp tour`: a short scripted conversation, printed as it happens, between a real MCP client
 * and this server, against the embedded demo repository (or PRESERVATION_URL when set). It shows a newcomer
 * what an assistant sees: each tool call with its arguments, then the answer's text. Client and server are
 * linked in memory (the same buildServer the transports serve), so nothing listens on a port; the
 * repository service is the real one over loopback HTTP, signed in as the demo user.
 */

/** Lines of one answer shown before the rest is summarised. */
const MAX_LINES = 24;
const MAX_LINE_CHARS = 110;

interface TourState {
  /** Refs picked up from earlier answers, for the next calls. */
  assetRef?: string;
  folderRef?: string;
  /** The confirmation token of the last preview, for the step that confirms it. */
  token?: string;
}

interface Step {
  say: string;
  /** A tool call; arguments from what earlier steps found, or undefined to skip the step. */
  tool?: { name: string; args: (s: TourState) => Record<string, unknown> | undefined };
  /** Or a resource read. */
  resource?: (s: TourState) => string | undefined;
  /** Remembers what later steps need from the structured answer. */
  keep?: (structured: Record<string, unknown>, s: TourState) => void;
}

type Item = { ref?: string; type?: string; title?: string };

function firstOf(list: unknown, type: string): string | undefined {
  return Array.isArray(list) ? (list as Item[]).find((i) => i.type === type)?.ref : undefined;
}

/** The tour's one change, and its undoing: a Dublin Core field the demo collection leaves empty. */
const COVERAGE = { coverage: "The Borough's harbour" };
const NO_COVERAGE = { coverage: null };

/** Keeps the preview's token (a client that cannot ask the person gets one to pass back). */
function keepToken(r: Record<string, unknown>, s: TourState): void {
  const token = (r.confirmationRequired as { token?: unknown } | undefined)?.token;
  s.token = typeof token === "string" ? token : undefined;
}

function confirmed(s: TourState, fields: Record<string, unknown>): Record<string, unknown> | undefined {
  if (!s.assetRef || !s.token) return undefined;
  const args = { ref: s.assetRef, fields, confirmation: s.token };
  s.token = undefined;
  return args;
}

const SCRIPT: Step[] = [
  {
    say: "Who is signed in, and what may they do?",
    tool: { name: "whoami", args: () => ({}) },
  },
  {
    say: "Search the collection for the harbour master's records.",
    tool: { name: "search", args: () => ({ query: "harbour master", limit: 5 }) },
    keep: (r, s) => {
      s.assetRef = firstOf(r.hits, "asset");
    },
  },
  {
    say: "Browse from the top of the tree.",
    tool: { name: "browse", args: () => ({ limit: 10 }) },
    keep: (r, s) => {
      s.folderRef = firstOf(r.children, "folder");
    },
  },
  {
    say: "Open the first folder.",
    tool: { name: "browse", args: (s) => (s.folderRef ? { ref: s.folderRef, limit: 10 } : undefined) },
  },
  {
    say: "Look at the asset the search found: what it is, where it sits, what files it has.",
    tool: {
      name: "get_entity",
      args: (s) => (s.assetRef ? { ref: s.assetRef, include: ["metadata", "files"] } : undefined),
    },
  },
  {
    say: "Read its descriptive metadata.",
    tool: { name: "read_metadata", args: (s) => (s.assetRef ? { ref: s.assetRef } : undefined) },
  },
  {
    say: "What has happened to it since it was ingested?",
    tool: { name: "list_events", args: (s) => (s.assetRef ? { ref: s.assetRef, limit: 5 } : undefined) },
  },
  {
    say: "The same asset as an MCP resource (clients can attach it to a conversation).",
    resource: (s) => (s.assetRef ? assetUri(s.assetRef) : undefined),
  },
  {
    say: "Curation: record the place the asset covers (Dublin Core `coverage`). First the preview: nothing changes yet.",
    tool: {
      name: "update_metadata",
      args: (s) => (s.assetRef ? { ref: s.assetRef, fields: COVERAGE } : undefined),
    },
    keep: keepToken,
  },
  {
    say: "The person read the preview and agreed: the same call with its confirmation token makes the change.",
    tool: { name: "update_metadata", args: (s) => confirmed(s, COVERAGE) },
  },
  {
    say: "And back as it was, the same way (a preview, then its confirmation), so the demo collection is unchanged.",
    tool: {
      name: "update_metadata",
      args: (s) => (s.assetRef ? { ref: s.assetRef, fields: NO_COVERAGE } : undefined),
    },
    keep: keepToken,
  },
  {
    say: "Confirmed.",
    tool: { name: "update_metadata", args: (s) => confirmed(s, NO_COVERAGE) },
  },
];

/** Wraps a long line at spaces, continuing under its own indent (a line without spaces is cut). */
function wrap(line: string): string[] {
  const lead = `${line.match(/^\s*/)?.[0] ?? ""}  `;
  const out: string[] = [];
  let rest = line;
  while (rest.length > MAX_LINE_CHARS) {
    const at = rest.lastIndexOf(" ", MAX_LINE_CHARS);
    if (at <= lead.length) return [...out, `${rest.slice(0, MAX_LINE_CHARS - 1)}…`];
    out.push(rest.slice(0, at));
    rest = `${lead}${rest.slice(at + 1)}`;
  }
  return [...out, rest];
}

function indent(text: string): string {
  const all = text.replace(/\s+$/, "").split("\n").flatMap(wrap);
  const shown = all.slice(0, MAX_LINES).map((l) => `    ${l}`);
  if (all.length > MAX_LINES) shown.push(`    … (${all.length - MAX_LINES} more lines)`);
  return shown.join("\n");
}

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content
    .map((c: { type?: string; text?: string; uri?: string; name?: string }) => {
      if (c.type === "text") return c.text ?? "";
      if (c.type === "resource_link") return `[link] ${c.name ?? ""} ${c.uri ?? ""}`.trim();
      return `[${c.type}]`;
    })
    .join("\n");
}

/** Runs the tour; resolves to the exit code (1 when a step failed, so a broken build cannot pass quietly). */
export async function runTour(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  // `tour | head -2` closes the pipe early: stop the tour quietly rather than die of EPIPE (as the
  // repository service does), and still close the runtime on the way out. The listener stays: a write
  // already under way may report its EPIPE after the tour has returned.
  let readerGone = false;
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE") throw err;
    readerGone = true;
  });
  const write = (s = "") => {
    if (!readerGone) process.stdout.write(`${s}\n`);
  };
  // The narration is the output; the server's own log stays quiet unless asked for.
  const runtime = await prepareRuntime(argv, {
    ...env,
    PRESERVATION_LOG_LEVEL: env.PRESERVATION_LOG_LEVEL || "warn",
  });
  const server = buildServer(runtime.deps);
  const client = new Client({ name: "preservation-mcp-tour", version: SERVER_INFO.version });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  let failures = 0;
  try {
    await server.connect(serverSide);
    await client.connect(clientSide);
    const tools = new Set((await client.listTools()).tools.map((t) => t.name));
    const where = runtime.embedded
      ? `the embedded demo repository (data in ${runtime.config.dataDir})`
      : `the repository at ${runtime.deps.session.url}`;
    write("preservation-mcp tour: a scripted conversation between an MCP client and this server,");
    write(`against ${where}, signed in as "${runtime.deps.session.username}".`);
    write(`The server offers ${tools.size} tools: ${[...tools].join(", ")}.`);

    const state: TourState = {};
    let n = 0;
    for (const step of SCRIPT) {
      if (readerGone) break;
      if (step.tool) {
        const args = step.tool.args(state);
        if (!tools.has(step.tool.name) || !args) continue;
        write();
        write(`${++n}. ${step.say}`);
        // The token is long and says nothing to a reader: it is shown in the preview's answer above.
        const shown = JSON.stringify(args, (k, v) => (k === "confirmation" ? "<the preview's token>" : v));
        write(`  → ${step.tool.name} ${shown}`);
        const res = await client.callTool({ name: step.tool.name, arguments: args });
        if (res.isError) {
          failures++;
          write(`  ✗ error:\n${indent(textOf(res.content))}`);
          continue;
        }
        write(indent(textOf(res.content)));
        if (res.structuredContent) step.keep?.(res.structuredContent as Record<string, unknown>, state);
      } else if (step.resource) {
        const uri = step.resource(state);
        if (!uri) continue;
        write();
        write(`${++n}. ${step.say}`);
        write(`  → read resource ${uri}`);
        try {
          const { contents } = await client.readResource({ uri });
          write(
            indent(contents.map((c) => ("text" in c ? c.text : `[${c.mimeType ?? "binary"}]`)).join("\n")),
          );
        } catch (err) {
          failures++;
          write(`  ✗ error: ${(err as Error).message}`);
        }
      }
    }
    write();
    write(
      failures === 0
        ? `That is the tour. Connect an assistant with \`${commandHere("")}\` (stdio; \`${commandHere("setup claude-desktop")}\` prints a client's configuration) or \`${commandHere("--http")}\`.`
        : `The tour ended with ${failures} failed step(s); see above.`,
    );
  } finally {
    await client.close().catch(() => {});
    await server.close().catch(() => {});
    await runtime.close();
  }
  return failures === 0 ? 0 : 1;
}
