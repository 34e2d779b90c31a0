import { describe, expect, it } from "vitest";
import { ERAS, textOf } from "../helpers/mcp.js";
import type { Preview } from "../helpers/preview.js";
import { useMcp, useRepository } from "../helpers/use-mcp.js";

/**
 * Confirmation across server instances: a token sealed by one instance is accepted by another with the same
 * PRESERVATION_CONFIRM_KEY (an HTTP deployment behind a load balancer), refused by one with another key, and
 * refused by any instance once used. Per-tool behaviour (previews that change nothing, the form path) is in
 * each tool's own test; the guard's every refusal in confirm.test.ts.
 */

const KEY_A = `${"a".repeat(16)}-shared-confirmation-key`;
const KEY_B = `${"b".repeat(16)}-another-confirmation-key`;

describe.each(ERAS)("confirmation tokens across instances (%s)", (era) => {
  const repo = useRepository({ seed: "none" });
  const one = useMcp({ user: "manager", repo, era, env: { PRESERVATION_CONFIRM_KEY: KEY_A } });
  const twin = useMcp({ user: "manager", repo, era, env: { PRESERVATION_CONFIRM_KEY: KEY_A } });
  const stranger = useMcp({ user: "manager", repo, era, env: { PRESERVATION_CONFIRM_KEY: KEY_B } });

  async function folderWithContents(title: string): Promise<{ ref: string; dest: string }> {
    const f = await one.call<{ folder: { ref: string } }>("create_folder", { title, securityTag: "open" });
    await one.call("create_folder", { title: `${title}, part 1`, parent: f.folder.ref });
    const d = await one.call<{ folder: { ref: string } }>("create_folder", {
      title: `${title} destination`,
      securityTag: "open",
    });
    return { ref: f.folder.ref, dest: d.folder.ref };
  }

  it("accepts on a twin with the same key, once; refuses with another key", async () => {
    const t = await folderWithContents("Shared key");
    const args = { ref: t.ref, destination: t.dest };
    const p = await one.call<Preview>("move_entity", args);
    expect(p.confirmationRequired.summary).toContain("Shared key");

    const foreign = await stranger.raw("move_entity", {
      ...args,
      confirmation: p.confirmationRequired.token,
    });
    expect(foreign.isError).toBe(true);
    expect(textOf(foreign)).toMatch(/not valid.*PRESERVATION_CONFIRM_KEY.*nothing was changed/s);

    const done = await twin.call<{ job: string }>("move_entity", {
      ...args,
      confirmation: p.confirmationRequired.token,
    });
    expect(done.job).toMatch(/^[0-9a-f-]{36}$/);

    // Spent on the twin; the first instance cannot know that, but the target moved, so planning again refuses.
    await expect
      .poll(
        async () =>
          (await one.call<{ entity: { parentRef?: string } }>("get_entity", { ref: t.ref })).entity.parentRef,
      )
      .toBe(t.dest);
    const replay = await one.raw("move_entity", { ...args, confirmation: p.confirmationRequired.token });
    expect(replay.isError).toBe(true);
    expect(textOf(replay)).toMatch(/“Shared key” is already in/);
  });
});
