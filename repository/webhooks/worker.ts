import type { Db } from "../store/db.js";
import { nextDueAt } from "../store/webhooks/read.js";
import {
  type ClaimedDelivery,
  claimDueDeliveries,
  markDelivered,
  markFailed,
  markRetry,
  onDeliveriesQueued,
  pruneFinishedDeliveries,
  releaseDelivery,
} from "../store/webhooks/write.js";
import { chunksOf, deliverySignature, post } from "./http.js";
import { receiverProblem } from "./receivers.js";
import type { WebhookSettings } from "./settings.js";

/** Deliveries sent at once (each to a different receiver). */
const CONCURRENCY = 4;
/** Finished deliveries are listed for this long, then pruned. */
const KEEP_FINISHED_MS = 7 * 24 * 3_600_000;

/**
 * Sends the queued webhook deliveries (store/webhooks/write.ts) and retries failed ones with back-off.
 *
 * The queue is the database, so nothing is lost when the process stops or is killed: a start picks up
 * every pending delivery (one cut short by a kill is due again when its lease ends). The worker wakes
 * when a delivery falls due and polls every `pollMs` for ones changes have just queued. Delivery is at
 * least once: a receiver that took a delivery but whose answer was lost gets it again.
 */
export class WebhookDeliveryWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private wokenDuringRound = false;
  private readonly abort = new AbortController();

  constructor(
    private readonly db: Db,
    private readonly settings: WebhookSettings,
  ) {}

  start(): void {
    pruneFinishedDeliveries(this.db, new Date(Date.now() - KEEP_FINISHED_MS).toISOString());
    // A change that queues deliveries wakes the worker at once: receivers hear of it in milliseconds, not
    // at the next poll (live resources promise a subscribed client the news within a second).
    onDeliveriesQueued(this.db, () => this.wake());
    this.schedule(0);
  }

  /** Look for due deliveries now (a change queued some, a subscription, tests); once more if a round is on. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) this.wokenDuringRound = true;
    else this.schedule(0);
  }

  /** Stops taking deliveries, cuts short the ones in flight (they stay queued), and waits for them. */
  async close(): Promise<void> {
    this.stopped = true;
    onDeliveriesQueued(this.db, undefined);
    clearTimeout(this.timer);
    this.abort.abort();
    await this.running;
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.running = this.round().finally(() => {
        this.running = undefined;
      });
    }, ms);
    // Pending deliveries never keep a process alive that is otherwise done.
    this.timer.unref();
  }

  /** Sends what is due, then sleeps until the next due delivery (or the poll interval). */
  private async round(): Promise<void> {
    if (this.stopped) return;
    let busy = false;
    try {
      const now = Date.now();
      const leaseUntil = now + this.settings.timeoutMs + 2_000;
      const claimed = claimDueDeliveries(this.db, now, leaseUntil, CONCURRENCY);
      busy = claimed.length > 0;
      await Promise.all(claimed.map((d) => this.attempt(d)));
    } catch (err) {
      // The database closed under a stopping service, or was busy: try again next round.
      if (this.stopped) return;
      console.error(`webhook delivery: ${(err as Error).message}`);
    }
    if (this.stopped) return;
    let wait = this.settings.pollMs;
    if (busy || this.wokenDuringRound) wait = 0;
    else {
      const due = nextDueAt(this.db);
      if (due !== undefined) wait = Math.max(0, Math.min(wait, due - Date.now()));
    }
    this.wokenDuringRound = false;
    this.schedule(wait);
  }

  private async attempt(d: ClaimedDelivery): Promise<void> {
    const error = await this.send(d);
    if (this.stopped && error === STOPPING) {
      releaseDelivery(this.db, d.id);
      return;
    }
    const at = new Date().toISOString();
    if (error === undefined) markDelivered(this.db, d.id, at);
    else if (d.attempts >= this.settings.maxAttempts) markFailed(this.db, d.id, at, error);
    else markRetry(this.db, d.id, Date.now() + this.backoff(d.attempts), error);
  }

  /** Wait after the n-th failed attempt: base, 2×base, 4×base, … up to the maximum. */
  private backoff(attempts: number): number {
    return Math.min(this.settings.retryMaxMs, this.settings.retryBaseMs * 2 ** Math.max(0, attempts - 1));
  }

  /** One attempt; the reason it failed, or undefined when the receiver took it (2xx). */
  private async send(d: ClaimedDelivery): Promise<string | undefined> {
    // Checked at every attempt: a host allowed when the receiver subscribed may not be after a restart.
    const problem = receiverProblem(d.url, this.settings.allowedHosts);
    if (problem) return problem;
    try {
      const reply = await post(d.url, {
        headers: {
          "Content-Type": "application/json",
          "Preservica-Signature": deliverySignature(d.secret, d.body),
          "Preservica-Webhook-Delivery": String(d.id),
          "Preservica-Webhook-Attempt": String(d.attempts),
        },
        chunks: chunksOf(d.body),
        timeoutMs: this.settings.timeoutMs,
        signal: this.abort.signal,
      });
      if (reply.status >= 200 && reply.status < 300) return undefined;
      if (reply.status >= 300 && reply.status < 400)
        return `the receiver answered ${reply.status}; redirects are not followed`;
      return `the receiver answered ${reply.status}`;
    } catch (err) {
      return this.stopped ? STOPPING : (err as Error).message;
    }
  }
}

const STOPPING = "the service is stopping";
