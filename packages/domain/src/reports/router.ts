import { z } from "zod";
import { streamedFileOutput } from "../shared/streamed-file.js";
import { createTRPCRouter, serverProcedure } from "../trpc.js";
import { dailyReport } from "./daily-report.js";
import { dailyReportInput } from "./schemas.js";

/** A day of four movements (each row's `status` and `livemode`: SUCCESS, true). */
const dailyExample = [
  "time,type,id,channel,reference,amount,mpesa_receipt,status,livemode",
  "2026-11-24T09:15:02+03:00,payment,0b9c6f2e-5d41-4b8e-9a3c-1f2e3d4c5b6a,stk,ORDER1001,1500,TST3F2A91B",
  "2026-11-24T10:02:47+03:00,payment,7d1e4b8f-9c61-4a5d-8e2b-3f0c9a527d1e,c2b,'=ORDER1002,250,TST9K1C22D",
  "2026-11-24T16:40:11+03:00,refund,re_2a5d4e8b7f104c3a9b6e5d1c0e563b1a,reversal,ORDER1001,1500,TST7Q0R45E",
  "2026-11-24T18:05:30+03:00,payout,4c529d0e-2f4b-48a7-9c1d-906f1c0e563b,b2c,Salary Nov,3000,TST2M8N67F",
]
  .map((line, i) => `${line}${i > 0 ? ",SUCCESS,true" : ""}\r\n`)
  .join("");

const tenantHeader = z.object({
  "x-tenant-id": z.string().optional().describe("Optional: the key names its tenant; when sent, it must be that one."),
});

/** What a shop's accountant reconciles with (docs/reports.md). */
export const reportsRouter = createTRPCRouter({
  daily: serverProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/v1/reports/daily",
        tags: ["reports"],
        summary: "The day's money movements as CSV: payments, refunds and payouts settled that Nairobi day",
        description: [
          "One row per money movement the shop settled on the day (00:00 to 24:00 in Nairobi, UTC+03:00), oldest",
          "first: `time` (ISO 8601, +03:00), `type` (payment | refund | payout), `id`, `channel` (a payment's stk or",
          "c2b, a refund's method, a payout's b2c), `reference`, `amount` (shillings, positive), `mpesa_receipt`,",
          "`status`, `livemode`. RFC 4180 with a header row; a day with nothing is the header alone. A cell that",
          "begins with =, +, - or @ is prefixed with ' (no formulas in a spreadsheet). Streamed: a day of any size",
          "is sent as it is read.",
        ].join(" "),
        requestHeaders: tenantHeader,
        successDescription: "The day's movements, as CSV (text/csv, UTF-8), saved as mteja-daily-<date>.csv.",
        errorResponses: {
          401: "AUTH_REQUIRED or INVALID_TOKEN (a wrong or revoked API key)",
          403: "FORBIDDEN (a customer's access token instead of an API key)",
          422: "VALIDATION_ERROR (date is not a day YYYY-MM-DD)",
        },
      },
      answers: { mediaType: "text/csv", example: dailyExample },
    })
    .input(dailyReportInput)
    .output(streamedFileOutput)
    .query(({ ctx, input }) => dailyReport(ctx.deps, ctx, input)),
});
