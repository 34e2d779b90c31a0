/**
 * Seeding of the repository service: the demo users and security tags (every start), the
 * deterministic demo collection (`--seed demo`) and synthetic collections for benchmarks
 * (`--seed N`). The pieces live in `seed/`: the tree of the demo archive (demo-tree.ts), its plan and
 * writer (demo.ts), file generators (files.ts), metadata documents (metadata.ts), deterministic ids
 * (ids.ts), users and role grants (users.ts) and the synthetic generator (synthetic.ts).
 */
export { DEMO, seedDemo } from "./seed/demo.js";
export { seedSynthetic } from "./seed/synthetic.js";
export {
  DEFAULT_DEMO_PASSWORDS,
  DEMO_TOTP_SECRET,
  DEMO_USER_DEFS,
  type DemoPasswords,
  ROLE_GRANTS,
  SECURITY_TAGS,
  seedUsersAndTags,
} from "./seed/users.js";
