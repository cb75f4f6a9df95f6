import { z } from "zod";
import { envelope } from "../../shared/envelope.js";
import { pageFields } from "../../shared/fields.js";

export const listSessionsInput = z.object(pageFields);

export const revokeSessionInput = z.object({ id: z.uuid("id must be a session id") });

const deviceView = z.object({
  id: z.string(),
  created_at: z.string(),
  last_used_at: z.string().nullable().describe("The session's last request, to the minute (written at most once a minute)."),
  ip: z.string().nullable().describe("The address the session was opened from."),
  user_agent: z.string().nullable().describe("The browser or app that opened the session."),
  current: z.boolean().describe("True for the session making this request."),
});

export const listSessionsOutput = envelope(z.object({ sessions: z.array(deviceView), next_cursor: z.string().nullable() }));
export const revokeOthersOutput = envelope(z.object({ revoked: z.number().int().describe("How many sessions were ended.") }));
