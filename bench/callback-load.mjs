#!/usr/bin/env node
// The load generator of bench/callbacks.mjs, in a process of its own (on LOAD_CORE): autocannon POSTs
// STK result callbacks, each for the next seeded payment (`<prefix>1`, `<prefix>2`, …) with a receipt of
// its own, so every request stores a callback and settles a PENDING payment. Prints autocannon's result
// as JSON, with `sent` (how many callbacks were built).
//   node bench/callback-load.mjs '{"url":…,"prefix":…,"receiptTag":…,"connections":50,"seconds":10,"count":40000}'
import autocannon from "autocannon";
import { stkCallbackBody } from "./callback-body.mjs";

const { url, prefix, receiptTag, connections, seconds, count } = JSON.parse(process.argv[2]);
let sent = 0;
const result = await autocannon({
  url,
  connections,
  duration: seconds,
  requests: [
    {
      method: "POST",
      headers: { "content-type": "application/json" },
      setupRequest(request) {
        sent++;
        // Past the seeded payments the callbacks repeat (duplicates); callbacks.mjs seeds enough that this does not happen.
        const n = ((sent - 1) % count) + 1;
        return { ...request, body: stkCallbackBody(`${prefix}${n}`, `${receiptTag}${n.toString(36).toUpperCase().padStart(6, "0")}`) };
      },
    },
  ],
});
process.stdout.write(JSON.stringify({ ...result, sent }));
