import { type AbortListener, type AbortRelay, relayAborts } from "../api/abort-relay.js";

/**
 * One overall deadline per tool call. `signal` aborts when the deadline passes or the client cancels the
 * call, so requests that take it are cancelled upstream; `run` stops waiting at the deadline even for work
 * that does not take a signal (e.g. a request queued behind a sign-in), so the answer is never late.
 */
export interface Deadline {
  readonly signal: AbortSignal;
  /** Whether the deadline (not a client cancellation) ended the call. */
  readonly expired: boolean;
  /** `work`, or a rejection at the deadline, whichever comes first. */
  run<T>(work: Promise<T>): Promise<T>;
  /** Stops watching the clock and the client; call when the tool call is over. */
  dispose(): void;
}

export class DeadlineExpired extends Error {
  override readonly name = "DeadlineExpired";
}

/** `ms` null = no deadline (the signal still aborts when the client cancels). */
export function startDeadline(ms: number | null, cancelled?: AbortSignal): Deadline {
  return new CallDeadline(ms, cancelled);
}

const ONCE = { once: true };

/**
 * Every call in flight is queued by when its deadline passes, the soonest first, and one timer serves them
 * all: a call starts and ends without a timer of its own (each call's setTimeout and clearTimeout cost more
 * than the whole queue). The timer holds the process open only while a call is queued.
 */
let head: CallDeadline | undefined;
let tail: CallDeadline | undefined;
let timer: ReturnType<typeof setTimeout> | undefined;
let timerAt = Number.POSITIVE_INFINITY;

/** Timers may fire up to a millisecond before performance.now() says the time has come: counted as due. */
const EARLY_MS = 1;

function enqueue(d: CallDeadline): void {
  // Calls share one timeout, so a new deadline is nearly always the latest: found at the tail at once.
  let after = tail;
  while (after !== undefined && after.at > d.at) after = after.prev;
  const wasEmpty = head === undefined;
  d.prev = after;
  d.next = after === undefined ? head : after.next;
  if (d.next === undefined) tail = d;
  else d.next.prev = d;
  if (after === undefined) head = d;
  else after.next = d;
  d.queued = true;
  if (d.at < timerAt) arm(d.at);
  else if (wasEmpty) timer?.ref();
}

function dequeue(d: CallDeadline): void {
  if (d.prev === undefined) head = d.next;
  else d.prev.next = d.next;
  if (d.next === undefined) tail = d.prev;
  else d.next.prev = d.prev;
  d.prev = undefined;
  d.next = undefined;
  d.queued = false;
  // Left armed (the next call most likely needs it), but no longer a reason for the process to stay up.
  if (head === undefined) timer?.unref();
}

function arm(at: number): void {
  if (timer !== undefined) clearTimeout(timer);
  timerAt = at;
  timer = setTimeout(expireDue, Math.max(1, Math.ceil(at - performance.now())));
}

function expireDue(): void {
  timer = undefined;
  timerAt = Number.POSITIVE_INFINITY;
  const now = performance.now() + EARLY_MS;
  while (head !== undefined && head.at <= now) {
    const due = head;
    dequeue(due);
    due.expire();
  }
  if (head !== undefined) arm(head.at);
}

/**
 * A call's deadline. It also relays its signal's abort to the requests listening (api/abort-relay.ts): they
 * register here rather than on the signal's EventTarget, which costs more than the rest of their bookkeeping.
 */
class CallDeadline implements Deadline, AbortRelay {
  readonly signal: AbortSignal;
  /** When the deadline passes (performance.now() time); infinite without one. */
  readonly at: number;
  prev: CallDeadline | undefined = undefined;
  next: CallDeadline | undefined = undefined;
  queued = false;
  readonly #controller = new AbortController();
  readonly #cancelled: AbortSignal | undefined;
  #expired = false;
  #error: Error | undefined = undefined;
  /** Rejects what `run` returned: the work is no longer waited for. */
  #stopWaiting: ((err: Error) => void) | undefined = undefined;
  /** Requests listening for the abort: nearly always one at a time, so one slot, and a list beside it. */
  #listener: AbortListener | undefined = undefined;
  #moreListeners: AbortListener[] | undefined = undefined;

  constructor(
    private readonly ms: number | null,
    cancelled: AbortSignal | undefined,
  ) {
    this.signal = this.#controller.signal;
    relayAborts(this.signal, this);
    this.#cancelled = cancelled;
    if (cancelled?.aborted) this.#controller.abort(cancelled.reason);
    else cancelled?.addEventListener("abort", this, ONCE);
    if (ms === null) this.at = Number.POSITIVE_INFINITY;
    else {
      this.at = performance.now() + ms;
      enqueue(this);
    }
  }

  get expired(): boolean {
    return this.#expired;
  }

  /** The client cancelled the call (the listener on its signal: this object, so no closure per call). */
  handleEvent(): void {
    this.#abort(this.#cancelled?.reason);
  }

  expire(): void {
    this.#expired = true;
    const err = new DeadlineExpired(`no answer within ${this.ms} ms`);
    this.#error = err;
    this.#stopWaiting?.(err);
    this.#abort(err);
  }

  add(listener: AbortListener): void {
    if (this.#listener === undefined) this.#listener = listener;
    else if (this.#moreListeners === undefined) this.#moreListeners = [listener];
    else this.#moreListeners.push(listener);
  }

  delete(listener: AbortListener): void {
    if (this.#listener === listener) this.#listener = undefined;
    else if (this.#moreListeners) {
      const i = this.#moreListeners.indexOf(listener);
      if (i >= 0) this.#moreListeners.splice(i, 1);
    }
  }

  /** Aborts the signal (its EventTarget's listeners first), then tells the relayed listeners, each once. */
  #abort(reason: unknown): void {
    if (this.signal.aborted) return;
    this.#controller.abort(reason);
    const listeners = [...(this.#listener ? [this.#listener] : []), ...(this.#moreListeners ?? [])];
    this.#listener = undefined;
    this.#moreListeners = undefined;
    for (const l of listeners) l.handleEvent();
  }

  run<T>(work: Promise<T>): Promise<T> {
    // Without a deadline nothing ever stops the wait: the work is the answer.
    if (this.ms === null) return work;
    return new Promise<T>((resolve, reject) => {
      const before = this.#stopWaiting;
      this.#stopWaiting =
        before === undefined
          ? reject
          : (err) => {
              before(err);
              reject(err);
            };
      work.then(resolve, reject);
      // Past the deadline already: work that has settled still wins (it was first), as in a race.
      const err = this.#error;
      if (err !== undefined) Promise.reject(err).catch(reject);
    });
  }

  dispose(): void {
    if (this.queued) dequeue(this);
    this.#cancelled?.removeEventListener("abort", this);
  }
}
