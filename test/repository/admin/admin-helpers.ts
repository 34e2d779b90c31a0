import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { outboxDir } from "../../../repository/outbox.js";
import type { RunningRepository } from "../../../repository/server.js";
import type { authed } from "../../helpers/repository.js";

/** Shared helpers of the Admin API tests. */

export const ADMIN_NS = "http://preservica.com/AdminAPI/v7.7";
export const SECURITY_NS = "http://preservica.com/SecurityAPI/v7.7";
export const XML_HEADERS = { "Content-Type": "application/xml;charset=UTF-8" };

export type As = ReturnType<typeof authed>;

/** The newest outbox message to a user, and a line's value from it (`Reset code: X`). */
export function lastMail(repo: RunningRepository, username: string): string {
  const dir = outboxDir(repo.svc.dataDir);
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(`-${username}.eml`))
    .sort();
  const last = files[files.length - 1];
  expect(last, `a mail to ${username}`).toBeDefined();
  return readFileSync(join(dir, last as string), "utf8");
}

export function mailValue(mail: string, label: string): string {
  const m = new RegExp(`^${label}: (\\S+)$`, "m").exec(mail);
  expect(m, `"${label}" in ${mail}`).not.toBeNull();
  return (m as RegExpExecArray)[1] as string;
}

/** Sets a user's password through the reset code mailed to them; returns a token of theirs. */
export async function setPasswordAndLogin(
  repo: RunningRepository,
  username: string,
  password: string,
): Promise<string> {
  const code = mailValue(lastMail(repo, username), "Reset code");
  const res = await fetch(`${repo.url}/api/user/password/reset`, {
    method: "POST",
    body: new URLSearchParams({ code, password }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return loginAs(repo, username, password);
}

export async function loginAs(repo: RunningRepository, username: string, password: string): Promise<string> {
  const res = await fetch(`${repo.url}/api/accesstoken/login`, {
    method: "POST",
    body: new URLSearchParams({ username, password }),
  });
  const body = (await res.json()) as { success: boolean; token: string; message?: string };
  expect(body.success, body.message).toBe(true);
  return body.token;
}

/** The config events of a subject, newest first, as the Admin API lists them. */
export async function eventsAbout(
  as: As,
  subject: string,
): Promise<{ commandType: string; category: string; username: string; summary: string; details: unknown }[]> {
  const res = await as("/api/admin/config-events?max=1000");
  expect(res.status).toBe(200);
  const body = (await res.json()) as {
    value: {
      events: {
        subject: string;
        commandType: string;
        category: string;
        username: string;
        summary: string;
        details: unknown;
      }[];
    };
  };
  return body.value.events.filter((e) => e.subject === subject);
}
