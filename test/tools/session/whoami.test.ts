import { describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import type { Audience } from "../../../src/guards/visibility.js";
import { DEFAULT_TOOLSETS } from "../../../src/tools/define.js";
import { ALL_TOOLS } from "../../../src/tools/index.js";
import { accessByToolset } from "../../../src/tools/support/access.js";
import { ERAS, textOf } from "../../helpers/mcp.js";
import { authed, DEMO_USERS, login } from "../../helpers/repository.js";
import { stableText } from "../../helpers/snapshot.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";

// whoami only reads: one repository serves every describe of the file.
const repo = useRepository({ seed: "demo" });

describe.each(ERAS)("whoami (%s)", (era) => {
  const mcp = useMcp({ user: "curator", era, repo });

  it("names the user, their roles and when the token and session end, without secrets", async () => {
    const res = await mcp.raw("whoami");
    const s = res.structuredContent as {
      user: string;
      roles: string[];
      tokenExpiresAt: string;
      service: string;
    };
    expect(s.user).toBe("curator");
    expect(s.roles).toEqual(["ROLE_SDB_ACCESS_USER", "ROLE_SDB_DATA_MANAGEMENT_USER"]);
    expect(Date.parse(s.tokenExpiresAt)).toBeGreaterThan(Date.now());
    const text = textOf(res);
    expect(text).toContain("Daniel Okafor (curator)");
    expect(text).toContain("ROLE_SDB_DATA_MANAGEMENT_USER");
    expect(text).toContain(mcp.repo.url);
    expect(text).not.toContain(DEMO_USERS.curator.password);
  });
});

describe.each(ERAS)("whoami explains what a restricted user may do (%s)", (era) => {
  const reader = useMcp({ user: "reader", era, flags: ["--toolsets", "default,lifecycle"], repo });

  it("names the roles in words and, per toolset, what is theirs and which role the rest needs", async () => {
    const res = await reader.raw("whoami");
    const s = res.structuredContent as {
      roleNames: string[];
      toolsets: { toolset: string; offered: string[]; notOffered: { tools: string[]; why: string }[] }[];
    };
    expect(s.roleNames).toEqual(["reader"]);
    const by = new Map(s.toolsets.map((t) => [t.toolset, t]));
    expect(by.get("discovery")?.offered).toContain("search");
    expect(by.get("discovery")?.notOffered).toEqual([
      { tools: ["download_file"], why: "needs a download folder (PRESERVATION_DOWNLOAD_DIR)" },
    ]);
    // Derived from the tools' own role guards: update_entity is a curator's, final_delete a manager's.
    expect(by.get("metadata")?.offered).toEqual([]);
    expect(by.get("metadata")?.notOffered[0]?.why).toBe("needs the curator role (or manager, administrator)");
    expect(by.get("metadata")?.notOffered[0]?.tools).toContain("update_entity");
    const lifecycle = by.get("lifecycle")?.notOffered.find((n) => n.tools.includes("final_delete"));
    expect(lifecycle?.why).toBe("needs the manager role (or administrator)");
    expect(by.get("admin")?.notOffered).toEqual([
      { tools: expect.arrayContaining(["manage_user"]), why: "off on this server (PRESERVATION_TOOLSETS)" },
    ]);
    const text = textOf(res);
    expect(text).toContain("roles: reader (ROLE_SDB_ACCESS_USER)");
    expect(text).toMatch(
      /^- discovery \(Search, browse and read .*\): yours: .*search.*; needs a download folder/m,
    );
    expect(text).toMatch(/^- session \(.*\): yours/m);
    expect(text).toMatch(
      /^- structure \(Arrange .*\): needs the curator role \(or manager, administrator\)$/m,
    );
    expect(text).toMatch(
      /^- metadata \(.*\): needs the curator role \(or manager, administrator\): update_entity, .*; needs an audit log/m,
    );
    expect(text).toMatch(/^- admin \(.*\): off on this server \(PRESERVATION_TOOLSETS\)$/m);
  });
});

describe("whoami's answer text", () => {
  const mcp = useMcp({ user: "curator", repo });

  it("answers in words a person can act on (the whole text, pinned)", async () => {
    const res = await mcp.raw("whoami");
    expect(stableText(textOf(res))).toMatchInlineSnapshot(`
      "Daniel Okafor (curator), tenant DEMO, e-mail daniel.okafor@example.org; roles: reader (ROLE_SDB_ACCESS_USER) and curator (ROLE_SDB_DATA_MANAGEMENT_USER); token valid until <time set by this run>; session ends <time set by this run> (a fresh sign-in then happens by itself); service <repository>
      What you may do here, by toolset:
      - discovery (Search, browse and read the collection: entities, metadata, files, events; save files where a download folder is configured): yours: search, browse, get_entity, read_metadata, get_file, find_by_identifier, list_events, list_changes; needs a download folder (PRESERVATION_DOWNLOAD_DIR): download_file
      - session (Who am I, and completing sign-in challenges): yours: whoami, complete_sign_in; needs a team server where each person signs in as themselves (PRESERVATION_IDENTITY=person): sign_out
      - metadata (Edit descriptions: titles, descriptive metadata fragments (Dublin Core and other schemas), identifiers, links; undo a change from the audit log): yours: update_entity, update_metadata, edit_identifiers, edit_links; needs an audit log (PRESERVATION_AUDIT_LOG): undo_metadata_change
      - structure (Arrange the collection: create folders, move entities or whole subtrees, change security tags): yours: create_folder, move_entity, set_security_tag
      - lifecycle (Delete to the recycle bin, recover, finally delete; replace a content object's file; add an access representation): off on this server (PRESERVATION_TOOLSETS): delete_entity, review_deletion, recycle_bin, recover_entity, final_delete; needs folders allowed for ingest (PRESERVATION_INGEST_ROOTS): replace_content, add_representation
      - retention (Retention policies: list them, see an asset's assignments, assign and remove; managers create, change and delete policies): off on this server (PRESERVATION_TOOLSETS)
      - ingest (Take in local files, folders or ready packages from the folders the person allowed): needs folders allowed for ingest (PRESERVATION_INGEST_ROOTS)
      - export (Export a folder or asset as a package into the download folder): needs a download folder (PRESERVATION_DOWNLOAD_DIR)
      - jobs (Follow long work (ingest, export, CSV edits, subtree moves, deletions): state, progress, result): yours: job_status
      - bulk (Metadata edits from a CSV file: a dry run row by row, then apply as a job; metadata groups listed, and managed by managers): off on this server (PRESERVATION_TOOLSETS)
      - operations (What the repository is doing: processes and their failures, workflows, reports; what was changed through the assistant (the audit trail)): off on this server (PRESERVATION_TOOLSETS): processes, workflows, control_workflow, reports; needs an audit log (PRESERVATION_AUDIT_LOG): audit_log
      - admin (Administration: users, security tags and roles, storage and quota, entitlements, configuration history, authentication settings, migration policy, the format registry): off on this server (PRESERVATION_TOOLSETS)"
    `);
  });
});

/** Replaces a user's roles through the Admin API, as an administrator would (the manager is one). */
async function setRoles(repo: RunningRepository, user: string, roles: string[]): Promise<void> {
  const put = authed(repo.url, (await login(repo.url, "manager")).token);
  const res = await put(`/api/admin/users/${user}`, {
    method: "PUT",
    headers: { "Content-Type": "application/xml" },
    body: `<User xmlns="http://preservica.com/AdminAPI/v7.7"><UserName>${user}</UserName><Roles>${roles.map((r) => `<Role>${r}</Role>`).join("")}</Roles></User>`,
  });
  if (res.status !== 200) throw new Error(`setting ${user}'s roles: ${res.status} ${await res.text()}`);
}

describe("whoami after the person's roles change", () => {
  // A repository of its own: the reader's roles change here.
  const own = useRepository({ seed: "demo" });
  const reader = useMcp({ user: "reader", repo: own });

  it("answers from the roles of the latest sign-in: a reader made curator, then reader again", async () => {
    const access = async () => {
      const s = await reader.call<{
        roleNames: string[];
        toolsets: { toolset: string; offered: string[] }[];
      }>("whoami");
      return { roles: s.roleNames, metadata: s.toolsets.find((t) => t.toolset === "metadata")?.offered };
    };
    const asReader = await access();
    expect(asReader).toEqual({ roles: ["reader"], metadata: [] });

    await setRoles(own, "reader", ["SDB_ACCESS_USER", "SDB_DATA_MANAGEMENT_USER"]);
    await reader.deps.session.login(); // the roles a session holds are those of its sign-in
    const asCurator = await access();
    expect(asCurator.roles).toEqual(["reader", "curator"]);
    expect(asCurator.metadata).toContain("update_entity");

    await setRoles(own, "reader", ["SDB_ACCESS_USER"]);
    await reader.deps.session.login();
    expect(await access()).toEqual(asReader);
  });
});

describe("whoami's table of access (support/access.ts)", () => {
  const audience = (over: Partial<Audience> = {}): Audience => ({
    readOnly: false,
    toolsets: new Set(DEFAULT_TOOLSETS),
    roles: ["ROLE_SDB_ACCESS_USER", "ROLE_SDB_DATA_MANAGEMENT_USER"],
    features: new Set(),
    ...over,
  });

  it("is derived once per audience, and anew for anything it depends on", () => {
    const curator = accessByToolset(ALL_TOOLS, audience());
    // An equal audience in new objects (whoami makes one a call), its roles in another order: the same answer.
    expect(
      accessByToolset(
        ALL_TOOLS,
        audience({ roles: ["ROLE_SDB_DATA_MANAGEMENT_USER", "ROLE_SDB_ACCESS_USER"] }),
      ),
    ).toBe(curator);
    const offered = (access: ReturnType<typeof accessByToolset>) => access.flatMap((t) => t.offered).sort();
    const others = [
      audience({ roles: ["ROLE_SDB_ACCESS_USER"] }),
      audience({ roles: undefined }),
      audience({ readOnly: true }),
      audience({ toolsets: new Set([...DEFAULT_TOOLSETS, "lifecycle"]) }),
      audience({ features: new Set(["local-downloads"]) }),
    ];
    for (const other of others)
      expect(offered(accessByToolset(ALL_TOOLS, other))).not.toEqual(offered(curator));
    // Another list of tools has answers of its own.
    expect(offered(accessByToolset(ALL_TOOLS.slice(0, 3), audience()))).toEqual(
      ALL_TOOLS.slice(0, 3)
        .filter((t) => DEFAULT_TOOLSETS.includes(t.toolset))
        .map((t) => t.name)
        .sort(),
    );
  });
});
