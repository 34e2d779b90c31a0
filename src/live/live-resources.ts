import { randomBytes } from "node:crypto";
import { InMemoryServerEventBus } from "@modelcontextprotocol/server";
import type { Logger } from "pino";
import type { ServiceClient } from "../api/index.js";
import { assetUri, folderUri, ROOT_URI } from "../resources/uris.js";
import { Interest } from "./interest.js";
import { type ReceiverOptions, receiveWebhook, type WebhookEvent } from "./receiver.js";
import { register, unregister } from "./registration.js";

/**
 * Live resources: repository changes, heard through the service's webhooks, become `notifications/resources/
 * updated` for the clients watching the entities they touched.
 *
 * One object per process (HTTP mode with PRESERVATION_WEBHOOK_URL). It owns the receiver's secret (random per
 * process: it never leaves this server except inside the subscription request to the service), the webhook
 * subscriptions made at start and removed at shutdown, what clients watch (`interest`), and the event bus
 * both eras' subscriptions listen on: 2026-07-28 `subscriptions/listen` streams (the SDK's listen router) and
 * 2025 sessions that called `resources/subscribe` (http/serve.ts's legacy sessions).
 */

export type LiveState =
  | { kind: "starting" }
  | { kind: "active"; triggers: string[] }
  | { kind: "failed"; reason: string }
  | { kind: "stopped" };

/** Parent lookups for one delivery: a re-tag of a large folder sends hundreds of events at once. */
const MAX_LOOKUPS_PER_DELIVERY = 100;
/** Children remembered per watched folder (so an entity leaving it can be announced on it too). */
const MAX_PRIMED_CHILDREN = 2000;
/** Folders whose children are listed when first watched (later ones rely on events alone). */
const MAX_PRIMED_FOLDERS = 1000;
const FOLDER_PREFIX = "preservation://folder/";
/** Entities whose parent is remembered. */
const MAX_PARENTS = 50_000;
/** One attempt to subscribe (six subscriptions, each with a challenge round trip) may take this long. */
const REGISTER_TIMEOUT_MS = 60_000;
const FIRST_RETRY_MS = 30_000;
const MAX_RETRY_MS = 5 * 60_000;

export class LiveResources {
  readonly bus = new InMemoryServerEventBus();
  readonly interest = new Interest();
  private readonly secret = randomBytes(32).toString("hex");
  private subscribing = 0;
  private ids: string[] = [];
  private _state: LiveState = { kind: "starting" };
  /** ref → parent ref (null: top level) of entities seen in watched folders or in events. */
  private readonly parents = new Map<string, string | null>();
  /** Deliveries being handled, so a test or a shutdown can wait for them. */
  private handling = new Set<Promise<void>>();
  private firstAttempt: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private retryMs = FIRST_RETRY_MS;
  private readonly primed = new Set<string>();
  private priming: Promise<void> = Promise.resolve();

  constructor(private readonly opts: { webhookUrl: string; api: ServiceClient; log: Logger }) {}

  get state(): LiveState {
    return this._state;
  }

  /** Whether subscriptions are worth offering: the service is sending this server its changes. */
  get active(): boolean {
    return this._state.kind === "active";
  }

  /** POST /webhook. */
  receive(request: Request): Promise<Response> {
    const opts: ReceiverOptions = {
      secret: this.secret,
      expectingChallenge: () => this.subscribing > 0,
      onEvents: (events) => this.track(this.handle(events)),
      log: this.opts.log,
    };
    return receiveWebhook(request, opts);
  }

  /**
   * Subscribes the receiver to the service's webhooks, in the background. Called once the HTTP server listens
   * (the service challenges the receiver during the subscription request). A failure leaves the server
   * serving without live resources (subscriptions are then not offered), says why in the log, and is tried
   * again later with back-off: fixing the service or the network needs no restart.
   */
  start(): void {
    if (this.firstAttempt) return;
    this.firstAttempt = this.attempt();
  }

  /** Resolves when the first attempt to subscribe has ended, whichever way (for tests and the banner). */
  async whenStarted(): Promise<LiveState> {
    await this.firstAttempt;
    return this._state;
  }

  private async attempt(): Promise<void> {
    const { api, webhookUrl, log } = this.opts;
    this.subscribing++;
    try {
      const r = await register(
        api.webhooks,
        webhookUrl,
        this.secret,
        AbortSignal.timeout(REGISTER_TIMEOUT_MS),
      );
      if (this._state.kind === "stopped") {
        await unregister(api.webhooks, r.ids).catch(() => {});
        return;
      }
      this.ids = r.ids;
      if (r.removedStale > 0) {
        log.info({ removed: r.removedStale }, "removed webhook subscriptions left by an earlier run");
      }
      for (const { trigger, reason } of r.refused) {
        log.warn({ trigger }, `the service refused the ${trigger} webhook: ${reason}`);
      }
      if (r.subscribed.length === 0)
        throw new Error("the service accepted none of the webhook subscriptions");
      this._state = { kind: "active", triggers: r.subscribed };
      log.info(
        { triggers: r.subscribed, url: webhookUrl },
        "live resources on: the service sends its changes here",
      );
    } catch (err) {
      if (this._state.kind === "stopped") return;
      const reason = (err as Error).message;
      this._state = { kind: "failed", reason };
      log.warn(
        { url: webhookUrl, retryInSecs: this.retryMs / 1000 },
        `live resources off for now: subscribing ${webhookUrl} to the service's webhooks failed: ${reason} (the account needs a manager or administrator role, and the service must be able to reach that URL)`,
      );
      this.retry = setTimeout(() => void this.attempt(), this.retryMs);
      this.retry.unref();
      this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
    } finally {
      this.subscribing--;
    }
  }

  /** Removes this server's webhook subscriptions (bounded: a shutdown must not hang on the service). */
  async stop(timeoutMs = 5000): Promise<void> {
    const ids = this.ids;
    this.ids = [];
    this._state = { kind: "stopped" };
    clearTimeout(this.retry);
    await this.firstAttempt;
    await Promise.allSettled([...this.handling]);
    if (ids.length === 0) return;
    try {
      await unregister(this.opts.api.webhooks, ids, AbortSignal.timeout(timeoutMs));
    } catch (err) {
      this.opts.log.warn(
        { subscriptions: ids },
        `could not remove this server's webhook subscriptions: ${(err as Error).message}; the next start removes them`,
      );
    }
  }

  /** A client starts watching `uris` (a 2025 resources/subscribe, or a 2026 listen stream opening). */
  watch(uris: readonly string[]): void {
    this.interest.add(uris);
    for (const uri of uris) {
      if (uri === ROOT_URI) this.primeOnce(null);
      else if (uri.startsWith(FOLDER_PREFIX))
        this.primeOnce(decodeURIComponent(uri.slice(FOLDER_PREFIX.length)));
    }
  }

  /**
   * Lists a newly watched folder's children once, one folder at a time: many clients watching many folders
   * must not turn into a burst of listings against the service. Later changes keep the parents current.
   */
  private primeOnce(folder: string | null): void {
    const key = folder ?? "";
    if (this.primed.has(key) || this.primed.size >= MAX_PRIMED_FOLDERS) return;
    this.primed.add(key);
    this.priming = this.priming.then(() => this.prime(folder));
    this.track(this.priming);
  }

  unwatch(uris: readonly string[]): void {
    this.interest.remove(uris);
  }

  private track(p: Promise<void>): void {
    this.handling.add(p);
    void p.finally(() => this.handling.delete(p));
  }

  /** Remembers the children of a watched folder, so that one moved or deleted away is announced on it. */
  private async prime(folder: string | null): Promise<void> {
    try {
      let page = await this.opts.api.entity.children(folder, { max: 1000 });
      let seen = 0;
      for (;;) {
        for (const child of page.items) this.remember(child.ref, folder);
        seen += page.items.length;
        if (!page.next || seen >= MAX_PRIMED_CHILDREN) break;
        page = await this.opts.api.entity.children(folder, { next: page.next, max: 1000 });
      }
    } catch (err) {
      this.opts.log.debug({ err: (err as Error).message }, "could not list a watched folder's children");
    }
  }

  private remember(ref: string, parent: string | null): void {
    if (this.parents.size >= MAX_PARENTS && !this.parents.has(ref)) {
      const oldest = this.parents.keys().next().value;
      if (oldest !== undefined) this.parents.delete(oldest);
    }
    this.parents.set(ref, parent);
  }

  private async handle(events: WebhookEvent[]): Promise<void> {
    if (this.interest.size === 0 || this._state.kind === "stopped") return;
    const updated = new Set<string>();
    let lookups = 0;
    const containers = this.interest.watchesContainers();
    for (const e of events) {
      for (const uri of this.interest.touchedBy(e.entityRef)) updated.add(uri);
      if (!containers) continue;
      // The folder an entity left (remembered) and the one it is in now (asked): both listings changed.
      const before = this.parents.get(e.entityRef);
      if (before !== undefined) for (const u of containerUris(before)) updated.add(u);
      if (lookups++ < MAX_LOOKUPS_PER_DELIVERY) {
        const now = await this.parentOf(e.entityRef, e.entityType);
        if (now !== undefined) {
          this.remember(e.entityRef, now);
          for (const u of containerUris(now)) updated.add(u);
        } else this.parents.delete(e.entityRef);
      }
    }
    for (const uri of updated) {
      if (this.interest.has(uri)) this.bus.publish({ kind: "resource_updated", uri });
    }
    if (updated.size > 0) this.opts.log.debug({ updated: [...updated] }, "resources updated");
  }

  /**
   * The entity's parent now (null: top level), or undefined when it cannot be read (deleted for good). The
   * delivery names the type: one request, instead of trying asset, folder and content object in turn.
   */
  private async parentOf(ref: string, type: string | undefined): Promise<string | null | undefined> {
    try {
      const known = type === "IO" || type === "SO" || type === "CO" ? type : undefined;
      const entity = await this.opts.api.entity.get(ref, known);
      return entity.parentRef ?? null;
    } catch {
      return undefined;
    }
  }
}

/** What may hold an entity: the top level, a folder, or (for a content object) an asset. */
function containerUris(parent: string | null): string[] {
  return parent === null ? [ROOT_URI] : [folderUri(parent), assetUri(parent)];
}
