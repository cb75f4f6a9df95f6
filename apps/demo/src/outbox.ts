/**
 * The service's dev outbox (GET /dev/outbox, outside production and without SMTP): the mails the
 * service wrote, so the demo can follow a verification link without a mail server.
 */
import { h } from "./ui.js";
import { t } from "./text.js";

export interface OutboxMail {
  id: string;
  kind: string;
  to: string;
  subject: string;
  text: string;
  created_at: string;
  sent_at: string | null;
}

export async function readOutbox(to: string, tenantId: string): Promise<OutboxMail[]> {
  const response = await fetch(`/dev/outbox?${new URLSearchParams({ to, tenant: tenantId, limit: "10" })}`, { headers: { accept: "application/json" } });
  if (response.status === 404) throw new Error(t("outbox.mailsElsewhere"));
  const body = (await response.json()) as { success?: boolean; message?: string; data?: { mails?: OutboxMail[] } };
  if (!response.ok || !body.data?.mails) throw new Error(body.message ?? t("outbox.answered", { status: response.status }));
  return body.data.mails;
}

export function linksIn(text: string): string[] {
  return text.match(/https?:\/\/[^\s<>"')\]]+/g) ?? [];
}

/** The token and email of an emailed link to `page` (e.g. APP_URL/verify-email?token=…&email=…). */
export function linkParams(link: string, page: "verify-email" | "reset-password"): { token: string; email: string } | undefined {
  try {
    const url = new URL(link);
    const token = url.searchParams.get("token");
    const email = url.searchParams.get("email");
    return url.pathname.endsWith(`/${page}`) && token && email ? { token, email } : undefined;
  } catch {
    return undefined;
  }
}

/** One mail as a card: subject, when, and its links (each link may get an action button). */
export function mailCard(mail: OutboxMail, actionFor: (link: string) => HTMLElement | undefined): HTMLElement {
  return h(
    "article",
    { class: "mail", "data-kind": mail.kind },
    h("h4", {}, mail.subject),
    h("p", { class: "muted" }, t("outbox.mailLine", { kind: mail.kind, to: mail.to, when: new Date(mail.created_at).toLocaleString() })),
    ...linksIn(mail.text).map((link) => h("div", { class: "link" }, h("code", {}, link), actionFor(link))),
  );
}
