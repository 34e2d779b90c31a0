import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from "node:crypto";

/**
 * Authenticated encryption (AES-256-GCM) of small JSON values under a key derived from
 * PRESERVATION_CONFIRM_KEY with HKDF and a label of its own, so a value sealed for one purpose (a sign-in
 * page's state, a person's kept session) never opens as another, nor as a confirmation token. Any instance
 * with the same key opens what another sealed; without a configured key, a random one per process.
 */
export class Sealer {
  readonly #key: Buffer;

  constructor(
    keyText: string | undefined,
    /** What the values are for: part of the key derivation. */
    label: string,
    /** Marks the sealed text (and tells sealed values of different purposes apart at a glance). */
    private readonly prefix: string,
  ) {
    this.#key = keyText
      ? Buffer.from(hkdfSync("sha256", keyText, "preservation-mcp", label, 32))
      : randomBytes(32);
  }

  seal(value: unknown): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.#key, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final()]);
    return this.prefix + Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url");
  }

  /** The value, or undefined for anything not sealed by this key and label (tampered, truncated, foreign). */
  open(text: unknown, maxLength = 16_384): unknown {
    if (typeof text !== "string" || !text.startsWith(this.prefix) || text.length > maxLength)
      return undefined;
    const raw = Buffer.from(text.slice(this.prefix.length), "base64url");
    if (raw.length < 12 + 16 + 2) return undefined;
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.#key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(raw.length - 16));
      const plain = Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]);
      return JSON.parse(plain.toString("utf8"));
    } catch {
      return undefined;
    }
  }

  /** A keyed digest (HMAC-like, from the same derived key): binds a form to the page that showed it. */
  mac(text: string): string {
    return createHmac("sha256", this.#key).update(text).digest("base64url");
  }
}
