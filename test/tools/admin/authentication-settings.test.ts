import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ERAS, textOf } from "../../helpers/mcp.js";
import type { Preview } from "../../helpers/preview.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";
import { IDP_CERT_SHA256, IDP_METADATA } from "../../repository/system/idp-fixture.js";
import { configEvents, expectHiddenFromCurator, FLAGS, serviceJson } from "./support.js";

describe.each(ERAS)("authentication_settings (%s)", (era) => {
  const auditLog = join(tempDir("auth-settings-audit-"), "audit.jsonl");
  const audited = () =>
    existsSync(auditLog)
      ? readFileSync(auditLog, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { tool: string; outcome: string })
      : [];
  const lifetime = async () =>
    (await serviceJson<{ maxSessionLifetimeMins: number }>(repo, "/api/auth-management/auth/configuration"))
      .maxSessionLifetimeMins;

  const repo = useRepository({ seed: "demo" });
  const mcp = useMcp({
    user: "manager",
    flags: FLAGS,
    era,
    repo,
    env: { PRESERVATION_AUDIT_LOG: auditLog },
  });

  it("reads the configuration; changes the session lifetime only once confirmed, exactly as previewed", async () => {
    const start = await lifetime();
    const read = await mcp.raw("authentication_settings", {});
    expect(read.isError).toBeFalsy();
    expect(read.structuredContent).toEqual({ maxSessionLifetimeMins: start, changed: false });
    expect(textOf(read)).toMatch(new RegExp(`^Maximum session lifetime: ${start} minutes`));
    // Reading is not an act: nothing in the audit log until something is changed.
    expect(audited()).toEqual([]);

    const args = { changes: { maxSessionLifetimeMins: 90 } };
    const p = await mcp.call<Preview>("authentication_settings", args);
    expect(p.confirmationRequired.summary).toBe(
      `Change the maximum session lifetime: ${start} minutes (${start / 60} hours) → 90 minutes`,
    );
    expect(p.confirmationRequired.details[1]).toBe(
      "Sessions signed in more than 90 minutes ago end at once (everyone affected signs in again).",
    );
    expect(p.confirmationRequired.preview).toEqual({ maxSessionLifetimeMins: { from: start, to: 90 } });
    expect(await lifetime()).toBe(start);

    const res = await mcp.raw("authentication_settings", {
      ...args,
      confirmation: p.confirmationRequired.token,
    });
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent).toEqual({
      maxSessionLifetimeMins: 90,
      previousMaxSessionLifetimeMins: start,
      changed: true,
    });
    expect(await lifetime()).toBe(90);
    expect(audited()).toEqual([
      expect.objectContaining({ tool: "authentication_settings", outcome: "done" }),
    ]);
    const ev = (await configEvents(repo, "AUTHENTICATION"))[0];
    expect(ev).toMatchObject({ commandType: "UPDATE", username: "manager" });
    expect(JSON.stringify(ev?.details)).toContain("90");

    // Our own session is younger than 90 minutes: the server carries on.
    const after = await mcp.raw("authentication_settings", {});
    expect(after.structuredContent).toMatchObject({ maxSessionLifetimeMins: 90 });

    const same = await mcp.raw("authentication_settings", args);
    expect(same.isError).toBe(true);
    expect(textOf(same)).toBe("The maximum session lifetime is already 90 minutes; nothing to change.");
  });

  it("checks IdP metadata and says what it describes, saving nothing; bad metadata gets the service's reason", async () => {
    const before = await lifetime();
    const res = await mcp.raw("authentication_settings", { idpMetadata: IDP_METADATA });
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent).toMatchObject({
      changed: false,
      identityProviders: [
        {
          entityId: "https://idp.example.org/saml",
          signOn: ["https://idp.example.org/sso", "https://idp.example.org/sso/post"],
          certificates: [
            { use: "signing", subject: "CN=idp.example.org", sha256Fingerprint: IDP_CERT_SHA256 },
          ],
        },
      ],
    });
    expect(textOf(res)).toContain(
      "The metadata describes 1 identity provider (checked only; nothing was saved):",
    );
    expect(textOf(res)).toContain(`SHA-256 ${IDP_CERT_SHA256}`);
    expect(await lifetime()).toBe(before);

    const bad = await mcp.raw("authentication_settings", { idpMetadata: "https://idp.example.org/metadata" });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/makes no outbound requests.*POST it as the request body/);
  });

  it("refuses values out of range before anything is sent", async () => {
    const res = await mcp.raw("authentication_settings", { changes: { maxSessionLifetimeMins: 0 } });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toMatch(/maxSessionLifetimeMins/);
    const extra = await mcp.raw("authentication_settings", { changes: { idleTimeoutMins: 5 } });
    expect(extra.isError).toBe(true);
  });

  it("is not listed for a curator, and refused if called anyway", async () => {
    await expectHiddenFromCurator(repo, era, "authentication_settings", {
      changes: { maxSessionLifetimeMins: 5 },
    });
  });
});
