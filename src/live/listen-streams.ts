import { followStream } from "./followed-stream.js";
import type { LiveResources } from "./live-resources.js";
import { unwatchableReason } from "./subscribe-handlers.js";

/**
 * 2026-07-28 `subscriptions/listen` streams, seen from outside the SDK's listen router (which serves them
 * from the live event bus and filters each stream's updates itself). Two things only this side can do:
 * - tell live resources which URIs are watched while a stream is open (so a webhook event costs nothing
 *   when nobody watches what it touched, and a watched folder's children are known);
 * - end every open stream at shutdown: they never end by themselves, and a graceful drain waits for
 *   every response in flight.
 */
export class ListenStreams {
  private readonly open = new Set<() => void>();

  constructor(private readonly live: LiveResources | undefined) {}

  async follow(parsedBody: unknown, pending: Promise<Response>): Promise<Response> {
    const uris = listenedUris(parsedBody);
    if (!this.live || uris === undefined) return pending;
    const live = this.live;
    const watched = uris.filter((u) => unwatchableReason(u) === undefined);
    live.watch(watched);
    let response: Response;
    try {
      response = await pending;
    } catch (err) {
      live.unwatch(watched);
      throw err;
    }
    if (!response.body || !response.headers.get("content-type")?.includes("text/event-stream")) {
      live.unwatch(watched);
      return response;
    }
    const followed = followStream(response, () => {
      live.unwatch(watched);
      this.open.delete(followed.stop);
    });
    this.open.add(followed.stop);
    return followed.response;
  }

  /** Ends every open stream (the server is stopping). */
  endAll(): void {
    for (const stop of [...this.open]) stop();
  }
}

/** The resource URIs a `subscriptions/listen` request asks to hear of; undefined when it is no such request. */
function listenedUris(body: unknown): string[] | undefined {
  const b = body as {
    method?: unknown;
    params?: { notifications?: { resourceSubscriptions?: unknown } };
  } | null;
  if (b?.method !== "subscriptions/listen") return undefined;
  const list = b.params?.notifications?.resourceSubscriptions;
  return Array.isArray(list) ? list.filter((u): u is string => typeof u === "string").slice(0, 1000) : [];
}
