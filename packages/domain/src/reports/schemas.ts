import { z } from "zod";
import { documentedDates, oneLineString } from "../shared/fields.js";
import { reportDay, type ReportDay } from "./report-day.js";

export const dailyReportInput = z
  .object({
    date: oneLineString({ error: "date must be a day, YYYY-MM-DD" })
      .trim()
      .transform((value, ctx): ReportDay => {
        const day = reportDay(value);
        const message = "date must be a day of the calendar, YYYY-MM-DD (e.g. 2026-11-24)";
        if (!day) ctx.addIssue({ code: "custom", message });
        return day ?? z.NEVER;
      })
      .meta({
        ...documentedDates.day,
        description: "The day in Nairobi time (UTC+03:00), YYYY-MM-DD; default yesterday.",
        examples: ["2026-11-24"],
      })
      .optional(),
  })
  .default({});
/** The input as parsed: the day as its instants. */
export type DailyReportInput = z.output<typeof dailyReportInput>;
