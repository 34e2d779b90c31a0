import { createHash } from "node:crypto";
import {
  type AssetNode,
  DEMO_ROOTS,
  type DemoKey,
  type FileSpec,
  type FolderNode,
} from "../../../repository/seed/demo-tree.js";
import { uuidFrom } from "../../../repository/seed/ids.js";
import { DEMO } from "../../../repository/seed.js";

/**
 * Facts about the demo collection for the discovery tool tests, all derived from the seed's own data
 * (DEMO and the demo tree) so no test hard-codes a guess about what the store holds.
 */

export type DemoEntity = (typeof DEMO.entities)[number];

export interface DemoNode {
  node: AssetNode | FolderNode;
  /** Title path from the root, as the seed derives refs from it. */
  path: string;
  ref: string;
}

function walk(): DemoNode[] {
  const out: DemoNode[] = [];
  const visit = (node: AssetNode | FolderNode, parentPath: string | null) => {
    const path = parentPath ? `${parentPath}/${node.title}` : node.title;
    out.push({ node, path, ref: uuidFrom(`demo:${path}`) });
    if (node.kind === "folder") for (const child of node.children) visit(child, path);
  };
  for (const root of DEMO_ROOTS) visit(root.folder, null);
  return out;
}

export const NODES = walk();

export function nodeOf(key: DemoKey): DemoNode {
  const ref = DEMO.refs[key];
  const found = NODES.find((n) => n.ref === ref);
  if (!found) throw new Error(`no demo node for ${key}`);
  return found;
}

export function assetNode(key: DemoKey): AssetNode {
  const n = nodeOf(key).node;
  if (n.kind !== "asset") throw new Error(`${key} is not an asset`);
  return n;
}

/** The seed's file of an asset: representation, 0-based position. */
export function seedFile(key: DemoKey, representation: "Preservation" | "Access" = "Preservation", i = 0) {
  const n = assetNode(key);
  const spec = (representation === "Preservation" ? n.files : (n.access ?? []))[i] as FileSpec;
  const bytes = spec.bytes();
  return { filename: spec.filename, bytes, sha256: createHash("sha256").update(bytes).digest("hex") };
}

export const byRef = new Map<string, DemoEntity>(DEMO.entities.map((e) => [e.ref, e]));

export function entity(ref: string): DemoEntity {
  const e = byRef.get(ref);
  if (!e) throw new Error(`no demo entity ${ref}`);
  return e;
}

export function childrenOf(ref: string | null): DemoEntity[] {
  return DEMO.entities.filter((e) => e.parentRef === ref && e.type !== "CO");
}

/** Folders and assets anywhere below a folder. */
export function descendantsOf(ref: string): DemoEntity[] {
  const out: DemoEntity[] = [];
  const stack = [ref];
  while (stack.length) {
    const at = stack.pop() as string;
    for (const c of childrenOf(at)) {
      out.push(c);
      if (c.type === "SO") stack.push(c.ref);
    }
  }
  return out;
}

/** Titles and refs of the folders above an entity, the top one first. */
export function ancestorsOf(ref: string): { ref: string; title: string }[] {
  const out: { ref: string; title: string }[] = [];
  let parent = entity(ref).parentRef;
  while (parent) {
    const p = entity(parent);
    out.unshift({ ref: p.ref, title: p.title });
    parent = p.parentRef;
  }
  return out;
}

/** What a reader (open tag only) may see: the entity's own tag is what the service checks. */
export function readerSees(e: DemoEntity): boolean {
  return e.securityTag === "open";
}

export { DEMO };
