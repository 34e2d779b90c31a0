/**
 * Listening for a signal's abort without its EventTarget, where the signal's owner offers it. Node's
 * addEventListener and removeEventListener on a fresh AbortSignal cost about 2 µs a request (a listener map
 * made, options read, a listener record), more than the rest of a small request's bookkeeping. A tool call's
 * deadline (server/deadline.ts) owns the signal every request of the call takes: it keeps their listeners
 * itself and calls each one's handleEvent once, right after it aborts the signal. Any other signal is listened
 * to through its EventTarget, as before. Either way a listener added after the abort is never called (check
 * `signal.aborted` first), as with addEventListener.
 */

export interface AbortListener {
  handleEvent(): void;
}

/** What a signal's owner offers: it calls each listener it holds once, after the signal aborted. */
export interface AbortRelay {
  add(listener: AbortListener): void;
  delete(listener: AbortListener): void;
}

const RELAY = Symbol("abort relay");
type Relayed = AbortSignal & { [RELAY]?: AbortRelay };

/** Marks `signal` as relayed by its owner `relay`. */
export function relayAborts(signal: AbortSignal, relay: AbortRelay): void {
  (signal as Relayed)[RELAY] = relay;
}

export function listenForAbort(signal: AbortSignal, listener: AbortListener): void {
  const relay = (signal as Relayed)[RELAY];
  if (relay) relay.add(listener);
  else signal.addEventListener("abort", listener);
}

export function stopListeningForAbort(signal: AbortSignal, listener: AbortListener): void {
  const relay = (signal as Relayed)[RELAY];
  if (relay) relay.delete(listener);
  else signal.removeEventListener("abort", listener);
}
