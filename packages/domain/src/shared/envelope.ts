import { z } from "zod";

/** The success envelope (docs/errors.md#success): `{ success: true, data, message }` with data/message as listed per operation. */
export function envelope<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), data, message: z.string().optional() });
}

export const messageOnly = z.object({ success: z.literal(true), message: z.string() });
export const nullData = z.object({ success: z.literal(true), data: z.null(), message: z.string().optional() });

export function ok<T>(data: T, message?: string): { success: true; data: T; message?: string } {
  return message === undefined ? { success: true, data } : { success: true, data, message };
}

export function done(message: string): { success: true; message: string } {
  return { success: true, message };
}
