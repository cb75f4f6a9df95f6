import type { MailLogger } from "../../src/index.js";

export interface LogEntry {
  level: "info" | "warn" | "error";
  fields: Record<string, unknown>;
  message: string;
}

export function captureLogger(): MailLogger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at = (level: LogEntry["level"]) => (fields: Record<string, unknown>, message: string) => {
    entries.push({ level, fields, message });
  };
  return { entries, info: at("info"), warn: at("warn"), error: at("error") };
}
