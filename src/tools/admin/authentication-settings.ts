import { z } from "zod";
import type { IdentityProvider } from "../../api/admin.js";
import { fingerprint } from "../../guards/fingerprint.js";
import type { ToolContext } from "../context.js";
import { ADMIN_ROLES, type ConfirmPlan, defineTool, UserInputError } from "../define.js";
import { OVERWRITE } from "../support/hints.js";
import { lines, plural } from "../support/text.js";

/** The service's bounds: one minute to 30 days. */
const MAX_LIFETIME_MINS = 43_200;
/** A metadata document larger than this is not an IdP's: refused before it is sent. */
const MAX_METADATA_CHARS = 1_000_000;

const input = z.object({
  changes: z
    .object({
      maxSessionLifetimeMins: z
        .number()
        .int()
        .min(1)
        .max(MAX_LIFETIME_MINS)
        .describe("Minutes a session may last from sign-in, refreshes included"),
    })
    .strict()
    .optional()
    .describe("Settings to change (asks for confirmation); leave out to read"),
  idpMetadata: z
    .string()
    .trim()
    .min(1)
    .max(MAX_METADATA_CHARS)
    .optional()
    .describe("A SAML 2.0 IdP metadata document (XML) to check; the service saves nothing"),
});

const idpOut = z.object({
  entityId: z.string(),
  validUntil: z.string().nullable(),
  signOn: z.array(z.string()),
  certificates: z.array(
    z.object({ use: z.string(), subject: z.string(), validTo: z.string(), sha256Fingerprint: z.string() }),
  ),
});

const output = z.object({
  maxSessionLifetimeMins: z.number(),
  /** When changed: the value before. */
  previousMaxSessionLifetimeMins: z.number().optional(),
  changed: z.boolean(),
  identityProviders: z.array(idpOut).optional(),
});

function idpOf(p: IdentityProvider): z.infer<typeof idpOut> {
  return {
    entityId: p.entityId,
    validUntil: p.validUntil,
    signOn: p.singleSignOnServices.map((s) => s.location),
    certificates: p.certificates.map((c) => ({
      use: c.use,
      subject: c.subject,
      validTo: c.validTo,
      sha256Fingerprint: c.sha256Fingerprint,
    })),
  };
}

function idpLines(idps: z.infer<typeof idpOut>[]): string[] {
  return [
    `The metadata describes ${plural(idps.length, "identity provider")} (checked only; nothing was saved):`,
    ...idps
      .slice(0, 10)
      .flatMap((p) => [
        `- ${p.entityId}${p.validUntil ? `, metadata valid until ${p.validUntil}` : ""}; sign-on at ${p.signOn.join(", ")}`,
        ...p.certificates.map(
          (c) =>
            `  certificate (${c.use}) ${c.subject}, valid to ${c.validTo}, SHA-256 ${c.sha256Fingerprint}`,
        ),
      ]),
  ];
}

async function current(ctx: ToolContext): Promise<number> {
  return (await ctx.api.admin.authConfiguration(ctx.signal)).maxSessionLifetimeMins;
}

function minutes(n: number): string {
  const h = n % 60 === 0 ? ` (${n / 60 === 1 ? "1 hour" : `${n / 60} hours`})` : "";
  return `${n} minutes${h}`;
}

export default defineTool({
  name: "authentication_settings",
  title: "Authentication configuration",
  description:
    "The authentication configuration (maximum session lifetime); with changes, sets it after confirmation showing before → after (lowering it ends older sessions at once). With idpMetadata, checks a SAML identity provider's metadata document and says what it describes.",
  toolset: "admin",
  requiredRoles: ADMIN_ROLES,
  inputSchema: input,
  outputSchema: output,
  // Lowering the lifetime ends sessions; setting the same value twice changes nothing more.
  annotations: OVERWRITE,
  async confirm(args, ctx: ToolContext): Promise<ConfirmPlan | undefined> {
    if (!args.changes) return undefined;
    const before = await current(ctx);
    const after = args.changes.maxSessionLifetimeMins;
    if (before === after)
      throw new UserInputError(
        `The maximum session lifetime is already ${minutes(before)}; nothing to change.`,
      );
    return {
      summary: `Change the maximum session lifetime: ${minutes(before)} → ${minutes(after)}`,
      details: [
        `Every session ends at most ${minutes(after)} after its sign-in, refreshes included.`,
        after < before
          ? `Sessions signed in more than ${minutes(after)} ago end at once (everyone affected signs in again).`
          : "No session ends now; sessions may last longer.",
      ],
      targets: [
        {
          ref: "auth-configuration",
          title: "Authentication configuration",
          fingerprint: fingerprint(before),
        },
      ],
      preview: { maxSessionLifetimeMins: { from: before, to: after } },
    };
  },
  async handler(args, ctx: ToolContext) {
    const api = ctx.api.admin;
    const idps = args.idpMetadata
      ? (await api.describeIdpMetadata(args.idpMetadata, ctx.signal)).map(idpOf)
      : undefined;
    const before = await current(ctx);
    let now = before;
    if (args.changes) now = (await api.setAuthConfiguration(args.changes, ctx.signal)).maxSessionLifetimeMins;
    const changed = now !== before;
    return {
      structured: {
        maxSessionLifetimeMins: now,
        ...(changed ? { previousMaxSessionLifetimeMins: before } : {}),
        changed,
        ...(idps ? { identityProviders: idps } : {}),
      },
      text: lines(
        changed
          ? `Changed the maximum session lifetime: ${minutes(before)} → ${minutes(now)}. The service recorded an AUTHENTICATION UPDATE config event.`
          : `Maximum session lifetime: ${minutes(now)} from sign-in, refreshes included.`,
        ...(idps ? idpLines(idps) : []),
      ),
      ...(args.changes
        ? { audit: { targets: [{ ref: "auth-configuration", title: "Authentication configuration" }] } }
        : { onlyRead: true as const }),
    };
  },
});
