import type { Dispatcher, Pool } from "undici";
import { listenForAbort, stopListeningForAbort } from "./abort-relay.js";

/**
 * One request whose reply is read whole into memory (every reply but a download), through undici's dispatch
 * API with a handler of our own instead of `request()`. `request()` wraps each reply in a Readable stream (an
 * AsyncResource, stream state, several listeners, and a nextTick or two per event), which the caller then
 * drains chunk by chunk: for a small XML reply that machinery cost more CPU than the HTTP exchange itself. Here
 * the chunks are collected as they arrive and the promise settles once, at the end.
 *
 * Reading rules, the same as the stream readers had: a reply the caller will use (2xx, 304, a `passStatus`) is
 * read up to `limit` bytes, a declared Content-Length beyond it refused before reading; an error reply is read
 * for its message only, its first `errorLimit` bytes, and a failure while it arrives is no error (the status
 * says enough). A connection that fails after the head is a `BodyCutOff` with the bytes received so far, so the
 * caller can retry or say how much arrived.
 *
 * It speaks undici's original handler interface (onConnect, onHeaders, onData, onComplete, onError): the pool
 * itself calls that one, and a handler of the newer controller interface is wrapped into it per request
 * (another two objects, and the headers parsed into an object we would parse again).
 */

/** A reply longer than the client reads into memory. */
export class ReplyTooLarge extends Error {
  constructor(readonly status: number) {
    super("reply too large");
  }
}

/** The connection failed while the body arrived, after `received` bytes. */
export class BodyCutOff extends Error {
  constructor(
    readonly status: number,
    readonly received: number,
    cause: unknown,
  ) {
    super("reply cut off", { cause });
  }
}

export interface BufferedReply {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
}

export interface ReadRules {
  method: string;
  /** Largest body read of a reply the caller uses. */
  limit: number;
  /** How much of an error reply is read for its message. */
  errorLimit: number;
  /** Error statuses the caller takes as replies (read as such). */
  passStatus: readonly number[] | undefined;
  signal: AbortSignal | undefined;
  /** Called once, when the head arrived or the request failed before it (the auth hook's `release`). */
  onSettled: { release(sent: Record<string, string>): void } | undefined;
  sent: Record<string, string>;
}

/** Whether a reply with this status is read for its message only (see HttpClient.request). */
export function isErrorStatus(status: number, passStatus: readonly number[] | undefined): boolean {
  return (status >= 400 || (status >= 300 && status !== 304)) && !passStatus?.includes(status);
}

const NOT_READ_FURTHER = "the rest of the reply is not read";
const EMPTY = Buffer.alloc(0);

export function requestBuffered(
  pool: Pool,
  opts: Dispatcher.DispatchOptions,
  rules: ReadRules,
): Promise<BufferedReply> {
  const { signal } = rules;
  // As undici's request() does with a signal already aborted: the request is not sent.
  if (signal?.aborted) {
    rules.onSettled?.release(rules.sent);
    return Promise.reject(signal.reason);
  }
  return new Promise((resolve, reject) => {
    pool.dispatch(opts, new Collector(rules, resolve, reject));
  });
}

/** The dispatch handler: one object per request, and the signal's listener too (`handleEvent`, abort-relay.ts). */
class Collector implements Dispatcher.DispatchHandler {
  #abort: ((err: Error) => void) | undefined;
  /** Set when the request was cancelled before undici handed over its abort function. */
  #reason: Error | undefined;
  #status = 0;
  #headers: Record<string, string> | undefined;
  /** The body's first chunk, and the rest once there are more (a small reply arrives in one). */
  #first: Buffer | undefined = undefined;
  #more: Buffer[] | undefined = undefined;
  #size = 0;
  #errorReply = false;
  #done = false;

  constructor(
    private readonly rules: ReadRules,
    private readonly resolve: (reply: BufferedReply) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    if (rules.signal) listenForAbort(rules.signal, this);
  }

  /** The signal's abort: the request is aborted, and undici reports it through onError. */
  handleEvent(): void {
    const reason = this.rules.signal?.reason;
    if (this.#abort) this.#abort(reason);
    else this.#reason = reason;
  }

  onConnect(abort: (err?: Error) => void): void {
    if (this.#reason) abort(this.#reason);
    else this.#abort = abort;
  }

  onHeaders(statusCode: number, raw: Buffer[], _resume: () => void, _statusText: string): boolean {
    if (statusCode < 200) return true; // 1xx: informational, the reply follows
    const rules = this.rules;
    rules.onSettled?.release(rules.sent);
    this.#status = statusCode;
    const headers = headersOfRaw(raw);
    this.#headers = headers;
    this.#errorReply = isErrorStatus(statusCode, rules.passStatus);
    // A reply without a body (HEAD, 204, 205, 304) may declare the length of one it does not send.
    const bodiless =
      rules.method === "HEAD" || statusCode === 204 || statusCode === 205 || statusCode === 304;
    const declared = headers["content-length"];
    if (!this.#errorReply && !bodiless && declared !== undefined && Number(declared) > rules.limit) {
      this.#fail(new ReplyTooLarge(statusCode));
      this.#abort?.(new Error(NOT_READ_FURTHER));
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.#done) return true;
    this.#size += chunk.length;
    if (this.#errorReply) {
      this.#keep(chunk);
      if (this.#size >= this.rules.errorLimit) {
        this.#finish(this.rules.errorLimit);
        this.#abort?.(new Error(NOT_READ_FURTHER));
      }
      return true;
    }
    if (this.#size > this.rules.limit) {
      this.#fail(new ReplyTooLarge(this.#status));
      this.#abort?.(new Error(NOT_READ_FURTHER));
      return true;
    }
    this.#keep(chunk);
    return true;
  }

  #keep(chunk: Buffer): void {
    if (this.#first === undefined) this.#first = chunk;
    else if (this.#more === undefined) this.#more = [this.#first, chunk];
    else this.#more.push(chunk);
  }

  onComplete(_trailers: string[] | null): void {
    this.#finish(this.#size);
  }

  onError(err: Error): void {
    if (this.#done) return;
    if (this.#headers === undefined) {
      this.rules.onSettled?.release(this.rules.sent);
      this.#fail(err);
    } else if (this.#errorReply) {
      this.#finish(this.#size); // what arrived of an error's message is enough
    } else {
      this.#fail(new BodyCutOff(this.#status, this.#size, err));
    }
  }

  #finish(length: number): void {
    this.#settle();
    const body =
      this.#more !== undefined
        ? Buffer.concat(this.#more).subarray(0, length)
        : this.#first === undefined
          ? EMPTY
          : length >= this.#size
            ? this.#first
            : this.#first.subarray(0, length);
    this.resolve({ status: this.#status, headers: this.#headers ?? {}, body });
  }

  #fail(err: unknown): void {
    this.#settle();
    this.reject(err);
  }

  #settle(): void {
    this.#done = true;
    if (this.rules.signal) stopListeningForAbort(this.rules.signal, this);
  }
}

/** undici's raw head (name, value, name, value, …) as lower-case names, repeated ones joined with ", ". */
function headersOfRaw(raw: Buffer[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] as Buffer).toString("latin1").toLowerCase();
    if (name === "__proto__") continue;
    const value = (raw[i + 1] as Buffer).toString("latin1");
    out[name] = Object.hasOwn(out, name) ? `${out[name]}, ${value}` : value;
  }
  return out;
}
