import type { Dispatcher } from "undici";
import type { ReadRules } from "./buffered-reply.js";
import type { AuthAttempt, AuthHook, HttpMethod, RequestOptions } from "./http.js";

/** What a request's errors name. */
export interface Where {
  req: RequestOptions;
  method: HttpMethod;
  path: string;
}

const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/**
 * One request across its attempts: what each attempt sends, how its reply is read (buffered-reply's rules),
 * what the auth hook is told, and what errors name. One object per request rather than five.
 */
export class Exchange implements ReadRules, AuthAttempt, Where {
  attempt = 0;
  authRetried = false;
  /** When the current attempt was sent (Date.now()), for the debug log only. */
  started = 0;
  /** The hook's headers on the current attempt. */
  sent: Record<string, string> = NO_HEADERS;
  readonly operation: string;
  readonly idempotent: boolean;
  readonly signal: AbortSignal | undefined;
  readonly passStatus: readonly number[] | undefined;
  /** The hook's `release`, called when an attempt's head arrived or it failed. */
  readonly onSettled: { release(sent: Record<string, string>): void } | undefined;
  readonly streamed: boolean;

  constructor(
    readonly req: RequestOptions,
    readonly method: HttpMethod,
    readonly path: string,
    readonly dispatch: Dispatcher.DispatchOptions & { headers: Record<string, string> },
    readonly hook: AuthHook | undefined,
    /** Idempotent, and a body that can be sent again. */
    readonly mayRetry: boolean,
    /** Largest reply read into memory. */
    readonly limit: number,
    /** How much of an error reply is read for its message. */
    readonly errorLimit: number,
    /** Whether debug lines are written. */
    readonly debug: boolean,
  ) {
    this.operation = req.operation;
    this.idempotent = dispatch.idempotent ?? false;
    this.signal = req.signal;
    this.passStatus = req.passStatus;
    this.onSettled = hook?.release ? (hook as Required<AuthHook>) : undefined;
    this.streamed = req.responseType === "stream";
  }

  /** The hook's headers for this attempt: the same names every time, so a retry overwrites the last values. */
  useHeaders(sent: Record<string, string>): void {
    this.sent = sent;
    Object.assign(this.dispatch.headers, sent);
  }
}
