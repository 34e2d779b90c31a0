import type { ContentStore } from "./store/content-store.js";
import type { Db } from "./store/db.js";

/** Passwords of the demo users; each can be overridden (README lists the flags and variables). */
export interface DemoPasswords {
  manager: string;
  curator: string;
  reader: string;
  guest: string;
}

export const DEFAULT_DEMO_PASSWORDS: DemoPasswords = {
  manager: "manager-demo-pw",
  curator: "curator-demo-pw",
  reader: "reader-demo-pw",
  guest: "guest-demo-pw",
};

/** Users, security tags and role permissions: present in every data directory, whatever the seed. */
export function seedUsersAndTags(_db: Db, _passwords: DemoPasswords): void {
  throw new Error("not implemented yet");
}

/** The deterministic demo collection (a few hundred entities with real files). */
export function seedDemo(_db: Db, _content: ContentStore): void {
  throw new Error("not implemented yet");
}

/** `n` entities in a realistic shape, for benchmarks. */
export function seedSynthetic(_db: Db, _content: ContentStore, _n: number): void {
  throw new Error("not implemented yet");
}
