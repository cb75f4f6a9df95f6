/**
 * `details[]` of an input that fails its zod schema. English keeps the message the schema states;
 * Swahili is written from the issue's kind and bounds (packages/i18n/src/messages/validation.ts), so
 * every rule of every schema has a Swahili message without a translation per schema. A custom rule
 * may name its message with `params: { message: <key> }` (fields.ts does).
 */
import { translate, type Locale, type Text } from "@mteja/i18n";
import type { core } from "zod";

export interface IssueDetail {
  readonly path: string;
  readonly issue: core.$ZodIssue;
}

export function issueDetail(issue: core.$ZodIssue): IssueDetail {
  return { path: issue.path.map(String).join(".") || "(body)", issue };
}

export function issueMessage(detail: IssueDetail, locale: Locale): string {
  if (locale === "en") return detail.issue.message;
  return translate(locale, issueText(detail.issue, detail.path));
}

function issueText(issue: core.$ZodIssue, field: string): Text {
  switch (issue.code) {
    case "invalid_type":
      return { key: "validation.missing_or_wrong_type", params: { field, expected: issue.expected } };
    case "too_small": {
      const min = Number(issue.minimum);
      if (issue.origin === "string") return min <= 1 ? { key: "validation.required", params: { field } } : { key: "validation.too_short", params: { field, min } };
      if (issue.origin === "array" || issue.origin === "set") return { key: "validation.too_few_items", params: { field, min } };
      return { key: "validation.too_small", params: { field, min } };
    }
    case "too_big": {
      const max = Number(issue.maximum);
      if (issue.origin === "string") return { key: "validation.too_long", params: { field, max } };
      if (issue.origin === "array" || issue.origin === "set") return { key: "validation.too_many_items", params: { field, max } };
      return { key: "validation.too_big", params: { field, max } };
    }
    case "invalid_format":
      if (issue.format === "email") return { key: "validation.not_email", params: { field } };
      if (issue.format === "url") return { key: "validation.not_url", params: { field } };
      if (issue.format === "uuid" || issue.format === "guid") return { key: "validation.not_uuid", params: { field } };
      return { key: "validation.bad_format", params: { field } };
    case "invalid_value":
      return { key: "validation.not_one_of", params: { field, values: issue.values.map(String).join(", ") } };
    case "unrecognized_keys":
      return { key: "validation.unknown_fields", params: { keys: issue.keys.join(", ") } };
    case "custom": {
      const named = (issue.params as { message?: unknown } | undefined)?.message;
      return { key: isCustomRuleKey(named) ? named : "validation.invalid", params: { field } };
    }
    default:
      return { key: "validation.invalid", params: { field } };
  }
}

/** The messages a custom rule may name: each takes the field only. */
export const customRuleKeys = ["validation.control_characters", "validation.phone"] as const;
export type CustomRuleKey = (typeof customRuleKeys)[number];

function isCustomRuleKey(value: unknown): value is CustomRuleKey {
  return (customRuleKeys as readonly unknown[]).includes(value);
}
