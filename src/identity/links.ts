import { randomBytes } from "node:crypto";
import type { ChallengeKind } from "../session/session.js";
import { Sealer } from "./seal.js";

/**
 * The state a sign-in page carries, sealed (AES-256-GCM, a key derived from PRESERVATION_CONFIRM_KEY with its
 * own label), so no one can make a page for another caller or change whom it signs in: the OAuth subject it
 * was made for, a nonce (the link is used once: see sign-in-page.ts), and an expiry. After the password, the
 * page carries the step the service asked for (two-factor or e-mailed code) sealed the same way, so the code
 * may reach any instance of the server; the password is in neither.
 */

/** How long a sign-in link stays usable. */
export const LINK_TTL_MS = 10 * 60_000;

export interface LinkState {
  /** The OAuth subject the page signs in. */
  sub: string;
  /** Whom the page says it signs in: the token's preferred_username, email or name; else the subject. */
  w?: string;
  /** Nonce: the link signs in once. */
  n: string;
  /** Expiry, ms since the epoch. */
  e: number;
}

export interface StepState extends LinkState {
  /** What the service asked for after the password. */
  c: Exclude<ChallengeKind, "two-factor-setup">;
  /** The repository user name the password was given for. */
  u: string;
  t?: string;
  /** The service's two-factor continuation token. */
  ct?: string;
}

export class SignInLinks {
  readonly #links: Sealer;
  readonly #steps: Sealer;

  constructor(
    confirmKey: string | undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.#links = new Sealer(confirmKey, "sign-in pages v1", "sl1.");
    this.#steps = new Sealer(confirmKey, "sign-in steps v1", "ss1.");
  }

  /** A new link's state (sealed) for the caller, and when it expires. */
  issue(subject: string, label?: string): { state: string; expiresAt: number } {
    const e = this.now() + LINK_TTL_MS;
    const link: LinkState = {
      sub: subject,
      ...(label ? { w: label } : {}),
      n: randomBytes(16).toString("base64url"),
      e,
    };
    return { state: this.#links.seal(link), expiresAt: e };
  }

  /** The link's state, or why it cannot be used. */
  open(state: unknown): LinkState | "invalid" | "expired" {
    const link = this.#links.open(state) as LinkState | undefined;
    if (!link || typeof link.sub !== "string" || typeof link.n !== "string" || typeof link.e !== "number") {
      return "invalid";
    }
    return this.now() > link.e ? "expired" : link;
  }

  sealStep(step: StepState): string {
    return this.#steps.seal(step);
  }

  /** The step for this very link (same subject and nonce), or undefined. */
  openStep(text: unknown, link: LinkState): StepState | undefined {
    const step = this.#steps.open(text) as StepState | undefined;
    if (!step || step.sub !== link.sub || step.n !== link.n || typeof step.u !== "string") return undefined;
    if (step.c !== "two-factor" && step.c !== "email-challenge") return undefined;
    return step;
  }

  /** The form token: binds a form to this link and to the browser's cookie (double submit, keyed). */
  formToken(link: LinkState, cookie: string): string {
    return this.#links.mac(`form.${link.n}.${cookie}`);
  }
}
