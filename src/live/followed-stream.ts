/**
 * A streamed (SSE) response, passed on unchanged but followed: `onEnd` runs once, whichever way the stream
 * ends (the server finished it, the client went away, or `stop()`), and `stop()` ends it from this side
 * (shutdown). Subscription streams never end by themselves, so whoever holds them must be able to.
 */
export function followStream(
  response: Response,
  onEnd: () => void,
): { response: Response; stop: () => void } {
  if (!response.body) {
    // Nothing to follow: ended already, said after the caller holds the result (it may refer to it).
    queueMicrotask(onEnd);
    return { response, stop: () => {} };
  }
  const reader = response.body.getReader();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    onEnd();
  };
  let stop: () => void = end;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      stop = () => {
        end();
        reader.cancel().catch(() => {});
        try {
          controller.close();
        } catch {
          // already closed
        }
      };
    },
    async pull(controller) {
      try {
        const r = await reader.read();
        if (r.done) {
          end();
          controller.close();
        } else controller.enqueue(r.value);
      } catch (err) {
        end();
        controller.error(err);
      }
    },
    cancel(reason) {
      end();
      return reader.cancel(reason).catch(() => {});
    },
  });
  return {
    response: new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    }),
    stop: () => stop(),
  };
}
