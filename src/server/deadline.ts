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
  /** Clears the timer; call when the tool call is over. */
  dispose(): void;
}

export class DeadlineExpired extends Error {
  override readonly name = "DeadlineExpired";
}

/** `ms` null = no deadline (the signal still aborts when the client cancels). */
export function startDeadline(ms: number | null, cancelled?: AbortSignal): Deadline {
  const controller = new AbortController();
  let expired = false;
  let stopWaiting: (err: Error) => void = () => {};
  const late = new Promise<never>((_, reject) => {
    stopWaiting = reject;
  });
  late.catch(() => {}); // nobody may be racing it when the timer fires after dispose
  const timer =
    ms === null
      ? undefined
      : setTimeout(() => {
          expired = true;
          const err = new DeadlineExpired(`no answer within ${ms} ms`);
          stopWaiting(err);
          controller.abort(err);
        }, ms);
  const onCancel = () => controller.abort(cancelled?.reason);
  if (cancelled?.aborted) onCancel();
  else cancelled?.addEventListener("abort", onCancel, { once: true });
  return {
    signal: controller.signal,
    get expired() {
      return expired;
    },
    run: (work) => Promise.race([work, late]),
    dispose() {
      clearTimeout(timer);
      cancelled?.removeEventListener("abort", onCancel);
    },
  };
}
