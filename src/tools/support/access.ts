import { type Audience, changesRepository } from "../../guards/visibility.js";
import type { AnyTool, Feature } from "../define.js";
import { TOOLSET_IDS, TOOLSETS, type Toolset } from "../toolsets.js";

/**
 * What a person may do here, in words: the roles they hold, which of the enabled toolsets are theirs, and
 * what each of the others needs (a role, a setting, read-only mode off). Derived from the tool definitions'
 * role guards and toolsets and from the same visibility rules that decide the tool list, never from a second
 * list; `whoami` says it, and so does a call of a tool this session does not offer.
 */

/** The service's role codes as people name them; any other role is shown as its code. */
const ROLE_WORDS: Record<string, string> = {
  ROLE_SDB_ACCESS_USER: "reader",
  ROLE_SDB_DATA_MANAGEMENT_USER: "curator",
  ROLE_SDB_MANAGER_USER: "manager",
  ROLE_SDB_ADMIN_USER: "administrator",
};

/** The setting that switches a feature on. */
const FEATURE_SETTINGS: Record<Feature, string> = {
  "local-downloads": "a download folder (PRESERVATION_DOWNLOAD_DIR)",
  "local-ingest": "folders allowed for ingest (PRESERVATION_INGEST_ROOTS)",
  "audit-log": "an audit log (PRESERVATION_AUDIT_LOG)",
  "person-sessions": "a team server where each person signs in as themselves (PRESERVATION_IDENTITY=person)",
};

export function roleWord(code: string): string {
  return ROLE_WORDS[code] ?? code;
}

/** “reader (ROLE_SDB_ACCESS_USER) and curator (ROLE_SDB_DATA_MANAGEMENT_USER)”. */
export function rolesInWords(roles: readonly string[]): string {
  if (roles.length === 0) return "no roles";
  const named = roles.map((r) => (ROLE_WORDS[r] ? `${ROLE_WORDS[r]} (${r})` : r));
  return named.length === 1 ? (named[0] as string) : `${named.slice(0, -1).join(", ")} and ${named.at(-1)}`;
}

/**
 * A role guard in words: its roles are listed weakest first (define.ts), so the first names the least a
 * person needs: “the curator role (or manager, administrator)”.
 */
export function neededRole(required: readonly string[]): string {
  const [first, ...higher] = required.map(roleWord);
  return `the ${first} role${higher.length ? ` (or ${higher.join(", ")})` : ""}`;
}

/** Why this audience is not offered `tool`, in a few words, or undefined when it is. Visibility's own order. */
export function whyNotOffered(tool: AnyTool, a: Audience): string | undefined {
  if (tool.requires && !a.features.has(tool.requires)) return `needs ${FEATURE_SETTINGS[tool.requires]}`;
  if (!a.toolsets.has(tool.toolset)) return "off on this server (PRESERVATION_TOOLSETS)";
  if (a.readOnly && changesRepository(tool)) return "read-only mode is on";
  if (tool.requiredRoles) {
    if (!a.roles) return "offered once the sign-in completes";
    if (!tool.requiredRoles.some((r) => a.roles?.includes(r)))
      return `needs ${neededRole(tool.requiredRoles)}`;
  }
  return undefined;
}

/** The answer to a call of a tool this session does not offer: what it is, why not, and what to do. */
export function notOfferedAnswer(tool: AnyTool, a: Audience, user: string | undefined): string {
  const why = whyNotOffered(tool, a);
  const who = `you are signed in as ${user ?? "?"} with ${rolesInWords(a.roles ?? [])}`;
  const what =
    why === undefined
      ? "it is not offered to this session"
      : why.startsWith("needs the ")
        ? `it ${why}; ${who}. An administrator can give you the role, or someone who holds it can make the change`
        : why === "read-only mode is on"
          ? "read-only mode is on: this server changes nothing in the repository (PRESERVATION_READ_ONLY); whoever runs it can turn it off"
          : why.startsWith("off on this server")
            ? `its toolset, ${tool.toolset}, is off on this server; whoever runs it can add it to PRESERVATION_TOOLSETS`
            : why.startsWith("needs ")
              ? `it ${why}, which this server is not set up with; whoever runs it can set that`
              : `it is ${why}`;
  return `\`${tool.name}\` (${tool.title}) is not offered to you: ${what}. Nothing was changed; \`whoami\` says what you may do.`;
}

export interface ToolsetAccess {
  readonly toolset: Toolset;
  readonly description: string;
  /** Tools of the toolset this audience is offered. */
  readonly offered: readonly string[];
  /** The others, grouped by why they are not offered. */
  readonly notOffered: readonly { readonly tools: readonly string[]; readonly why: string }[];
}

/**
 * accessByToolset's answers by tool list, then by audience. `whoami` asks on every call, and deriving the answer
 * (every tool through the visibility rules) took ~20-30 µs where a lookup takes ~1 µs. Keyed on what the answer
 * depends on, the audience's content, not on its object (whoami makes a new one with the roles just read): a
 * sign-in or a role change gives another key, so a fresh answer. A server sees a handful of audiences (a team
 * server's people share a few role sets); bounded all the same, the oldest going first.
 */
const answers = new WeakMap<readonly AnyTool[], Map<string, readonly ToolsetAccess[]>>();
const AUDIENCES_KEPT = 64;

/** The audience as a key: role order does not matter to visibility, so sorted; JSON, so no name can collide. */
function audienceKey(a: Audience): string {
  const sorted = (names: Iterable<string>) => [...names].sort();
  return JSON.stringify([
    a.readOnly,
    sorted(a.toolsets),
    a.roles === undefined ? null : sorted(a.roles),
    sorted(a.features),
  ]);
}

/** Every toolset with what of it this audience may use and why the rest is not offered (shared: frozen). */
export function accessByToolset(tools: readonly AnyTool[], a: Audience): readonly ToolsetAccess[] {
  let byAudience = answers.get(tools);
  if (!byAudience) {
    byAudience = new Map();
    answers.set(tools, byAudience);
  }
  const key = audienceKey(a);
  const known = byAudience.get(key);
  if (known) return known;
  const answer = deriveAccess(tools, a);
  if (byAudience.size >= AUDIENCES_KEPT) byAudience.delete(byAudience.keys().next().value as string);
  byAudience.set(key, answer);
  return answer;
}

function deriveAccess(tools: readonly AnyTool[], a: Audience): readonly ToolsetAccess[] {
  return Object.freeze(
    TOOLSET_IDS.map((toolset) => {
      const offered: string[] = [];
      const reasons = new Map<string, string[]>();
      for (const t of tools.filter((x) => x.toolset === toolset)) {
        const why = whyNotOffered(t, a);
        if (why === undefined) offered.push(t.name);
        else reasons.set(why, [...(reasons.get(why) ?? []), t.name]);
      }
      return Object.freeze({
        toolset,
        description: TOOLSETS[toolset].description,
        offered: Object.freeze(offered),
        notOffered: Object.freeze(
          [...reasons].map(([why, names]) => Object.freeze({ tools: Object.freeze(names), why })),
        ),
      });
    }),
  );
}

/**
 * One line per toolset: “structure (Arrange …): yours: create_folder, …”, “lifecycle (…): yours: recycle_bin;
 * needs the manager role (or administrator): delete_entity, …”, or the one reason a whole toolset is not offered.
 */
export function accessLines(access: readonly ToolsetAccess[]): string[] {
  return access.map((t) => {
    const head = `- ${t.toolset} (${t.description})`;
    if (t.offered.length === 0 && t.notOffered.length === 1) return `${head}: ${t.notOffered[0]?.why}`;
    const parts = [
      t.offered.length ? `yours: ${t.offered.join(", ")}` : "",
      ...t.notOffered.map((n) => `${n.why}: ${n.tools.join(", ")}`),
    ];
    return `${head}: ${parts.filter(Boolean).join("; ")}`;
  });
}
