/**
 * How webhooks are delivered: who may receive them, and the timing of attempts. Fixed at start-up
 * (`startRepository({webhookHosts, webhookDelivery})`, the CLI's `--webhook-hosts`).
 */
export interface WebhookSettings {
  /**
   * Host names (or IP addresses) receivers may have besides loopback, compared case-insensitively with
   * the URL's host. Loopback (localhost, 127.0.0.0/8, ::1) is always allowed; nothing else is, so the
   * service cannot be made to call arbitrary addresses.
   */
  allowedHosts: readonly string[];
  /** Longest wait for a receiver's answer, challenge or delivery (ms). */
  timeoutMs: number;
  /** The wait after the first failed attempt (ms); it doubles after each further failure. */
  retryBaseMs: number;
  /** The longest wait between two attempts (ms). */
  retryMaxMs: number;
  /** Attempts before a delivery is given up (kept as failed). */
  maxAttempts: number;
  /** How often the worker looks for due deliveries when it has nothing else to wake it (ms). */
  pollMs: number;
}

export type WebhookDeliveryOptions = Partial<Omit<WebhookSettings, "allowedHosts">>;

export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = {
  allowedHosts: [],
  timeoutMs: 10_000,
  retryBaseMs: 5_000,
  retryMaxMs: 10 * 60_000,
  maxAttempts: 10,
  pollMs: 500,
};

/**
 * The settings from start-up options, with the test-only environment setting
 * `PRESERVATION_WEBHOOK_RETRY_MS` (a whole number of ms, 1 to 600000: the first back-off, and the timeout
 * and poll interval scaled to it) for tests that run the CLI and cannot wait minutes.
 */
export function resolveWebhookSettings(
  hosts: readonly string[] | undefined,
  delivery: WebhookDeliveryOptions | undefined,
  env: NodeJS.ProcessEnv = process.env,
): WebhookSettings {
  const fromEnv: WebhookDeliveryOptions = {};
  const raw = env.PRESERVATION_WEBHOOK_RETRY_MS?.trim();
  if (raw && /^\d+$/.test(raw) && Number(raw) >= 1 && Number(raw) <= 600_000) {
    const ms = Number(raw);
    Object.assign(fromEnv, {
      retryBaseMs: ms,
      retryMaxMs: ms * 8,
      pollMs: Math.min(ms, 500),
      timeoutMs: 2_000,
    });
  }
  return {
    ...DEFAULT_WEBHOOK_SETTINGS,
    ...fromEnv,
    ...delivery,
    allowedHosts: (hosts ?? []).map((h) => normaliseHost(h)).filter((h) => h !== ""),
  };
}

/** Lower case, without the brackets of an IPv6 literal. */
export function normaliseHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1");
}
