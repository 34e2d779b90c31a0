import { isServiceError } from "../api/errors.js";
import type { WebhooksApi } from "../api/webhooks.js";

/**
 * Subscribing this server's receiver to the repository's webhooks, and removing the subscriptions again.
 *
 * The trigger types are those whose events change what a client watching an entity sees: the first three are
 * the real service's (pyPreservica's TriggerType); CHANGED_METADATA, CHANGED_CONTENT and DELETED are the
 * repository service of this project's own. A service that does not know one refuses that subscription
 * only, and the rest still work.
 */
export const LIVE_TRIGGERS = [
  "MOVED",
  "CHANGED_SECURITY_DESCRIPTOR",
  // An ingested or created entity is indexed when it arrives: "ingest finished".
  "FULL_TEXT_INDEXED",
  "CHANGED_METADATA",
  "CHANGED_CONTENT",
  "DELETED",
] as const;

export interface Registration {
  /** Subscription ids this server made (removed again by `unregister`). */
  ids: string[];
  subscribed: string[];
  /** Trigger types the service refused, with its reason. */
  refused: { trigger: string; reason: string }[];
  /** Subscriptions for this receiver's URL left by an earlier run (its secret died with it), removed. */
  removedStale: number;
}

/**
 * Subscribes `url` to every live trigger. An earlier run that did not stop cleanly (killed, crashed) left
 * subscriptions for the same URL whose secret is gone: they are removed first, or the service would refuse
 * the new ones as duplicates and keep sending deliveries this server cannot verify.
 * A 401/403 (the account may not use the webhook API) stops at once: no trigger would be accepted.
 */
export async function register(
  api: WebhooksApi,
  url: string,
  secret: string,
  signal?: AbortSignal,
): Promise<Registration> {
  const stale = (await api.list(signal)).filter((s) => s.url === url);
  for (const s of stale) await api.unsubscribe(s.id, signal);
  const result: Registration = { ids: [], subscribed: [], refused: [], removedStale: stale.length };
  for (const trigger of LIVE_TRIGGERS) {
    try {
      await api.subscribe(url, trigger, secret, signal);
      result.subscribed.push(trigger);
    } catch (err) {
      if (!isServiceError(err) || err.status === 401 || err.status === 403 || err.status === 0) throw err;
      result.refused.push({ trigger, reason: err.serviceMessage ?? err.message });
    }
  }
  // The ids from the service's own list: the POST's answer is not relied on (the real service's is not
  // documented), and the list also finds a subscription whose answer was lost.
  result.ids = (await api.list(signal)).filter((s) => s.url === url).map((s) => s.id);
  return result;
}

/** Removes the subscriptions; one that is already gone (an administrator removed it) is not an error. */
export async function unregister(
  api: WebhooksApi,
  ids: readonly string[],
  signal?: AbortSignal,
): Promise<number> {
  let removed = 0;
  for (const id of ids) {
    try {
      await api.unsubscribe(id, signal);
      removed++;
    } catch (err) {
      if (!(isServiceError(err) && err.status === 404)) throw err;
    }
  }
  return removed;
}
