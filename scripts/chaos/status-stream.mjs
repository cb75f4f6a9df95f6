// A payments.onStatus subscriber (tRPC subscription over SSE, docs/mpesa.md#status-subscription) on one
// instance: opens the stream with the customer's token in a header, resolves `open` once the current
// status arrived, and notes when the first status other than PENDING arrives.

/** Splits SSE text into events ({ event, data }); `rest` is an unfinished event. */
export function parseSse(text) {
  const blocks = text.split(/\r?\n\r?\n/);
  const rest = blocks.pop() ?? "";
  const events = blocks.map((block) => {
    const event = { event: "message", data: "" };
    const data = [];
    for (const line of block.split(/\r?\n/)) {
      const colon = line.indexOf(":");
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") event.event = value;
      else if (field === "data") data.push(value);
    }
    event.data = data.join("\n");
    return event;
  });
  return { events, rest };
}

export function followStatus(baseUrl, { token, tenant, checkoutRequestId, timeoutMs = 30_000 }) {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  const result = { settledStatus: undefined, settledAt: undefined, error: undefined };
  let opened;
  const open = new Promise((resolve) => (opened = resolve));
  const input = encodeURIComponent(JSON.stringify({ checkoutRequestId }));
  const done = (async () => {
    try {
      const response = await fetch(`${baseUrl}/trpc/payments.onStatus?input=${input}`, {
        headers: { accept: "text/event-stream", authorization: `Bearer ${token}`, "x-tenant-id": tenant },
        signal: abort.signal,
      });
      if (!response.ok || !response.body) throw new Error(`status stream answered ${response.status}`);
      const decoder = new TextDecoder();
      let buffer = "";
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk, { stream: true });
        const { events, rest } = parseSse(buffer);
        buffer = rest;
        for (const event of events) {
          if (event.event === "serialized-error") throw new Error(`status stream error: ${event.data}`);
          if (event.event !== "message" || !event.data) continue;
          const update = JSON.parse(event.data);
          if (update.status === "PENDING") {
            opened(true);
            continue;
          }
          result.settledStatus = update.status;
          result.settledAt = performance.now();
          opened(true);
          return result;
        }
      }
      throw new Error("status stream ended before a final status");
    } catch (error) {
      result.error = abort.signal.aborted ? "timed out" : String(error?.message ?? error);
      opened(false);
      return result;
    } finally {
      clearTimeout(timer);
      abort.abort();
    }
  })();
  return { open, done, close: () => abort.abort() };
}
