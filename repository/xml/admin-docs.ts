import type { AdminUser } from "../store/admin/read.js";
import { XmlWriter } from "./writer.js";

/**
 * XML documents of the Admin API (`http://preservica.com/AdminAPI/vX.Y`) and the Security API
 * (`http://preservica.com/SecurityAPI/vX.Y`), shaped as pyPreservica's AdminAPI reads them: every value
 * an element's text, found by namespace among the root's descendants (`.//{ns}User`), so a list's items
 * sit under a root of another name. Role names on this API have no `ROLE_` prefix.
 */

export function adminNamespace(apiVersion: string): string {
  return `http://preservica.com/AdminAPI/v${apiVersion}`;
}

export function securityNamespace(apiVersion: string): string {
  return `http://preservica.com/SecurityAPI/v${apiVersion}`;
}

/** `ROLE_SDB_MANAGER_USER` as the Admin API names it: `SDB_MANAGER_USER`. */
export function adminRoleName(role: string): string {
  return role.startsWith("ROLE_") ? role.slice(5) : role;
}

/** `<Users><User>name</User>…</Users>`, `<Tags><Tag>…`, `<Roles><Role>…`. */
export function nameListXml(ns: string, root: string, item: string, names: readonly string[]): string {
  const w = new XmlWriter().open(root, { xmlns: ns });
  for (const n of names) w.leaf(item, n);
  return w.close(root).toString();
}

/** One name as the reply of an add: `<Tag xmlns=…>name</Tag>` (the client reads the root's text). */
export function nameXml(ns: string, element: string, name: string): string {
  return new XmlWriter().leaf(element, name, { xmlns: ns }).toString();
}

/**
 * A user's details: UserName, FullName, Email, Tenant, Enabled, Roles/Role. The same document is
 * accepted back by PUT (pyPreservica renames a user by editing FullName in it and sending it back).
 */
export function userXml(ns: string, u: AdminUser): string {
  const w = new XmlWriter()
    .open("User", { xmlns: ns })
    .leaf("UserName", u.username)
    .leaf("FullName", u.fullName)
    .leaf("Email", u.email)
    .leaf("Tenant", u.tenant)
    .leaf("Enabled", u.enabled ? "true" : "false")
    .open("Roles");
  for (const r of u.roles) w.leaf("Role", adminRoleName(r));
  return w.close("Roles").close("User").toString();
}

/** `<Tags><Tag name="open"><Permissions><Permission>Read Metadata</Permission>…</Permissions></Tag>…</Tags>`. */
export function tagPermissionsXml(ns: string, tags: ReadonlyMap<string, readonly string[]>): string {
  const w = new XmlWriter().open("Tags", { xmlns: ns });
  for (const [name, permissions] of tags) {
    w.open("Tag", { name }).open("Permissions");
    for (const p of permissions) w.leaf("Permission", p);
    w.close("Permissions").close("Tag");
  }
  return w.close("Tags").toString();
}
