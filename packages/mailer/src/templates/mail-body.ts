import { t, type Locale } from "@mteja/i18n";
import { escapeHtml } from "./escape-html.js";

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

/** One piece of a mail body; both the text and the HTML part are rendered from the same blocks. */
export type MailBlock =
  | { paragraph: string }
  | { button: { label: string; href: string } };

export interface MailBody {
  subject: string;
  greetingName: string;
  blocks: readonly MailBlock[];
  signature: string;
}

export function renderMailBody(body: MailBody, locale: Locale = "en"): RenderedMail {
  return { subject: body.subject, text: renderText(body, locale), html: renderHtml(body, locale) };
}

function greeting(name: string, locale: Locale): string {
  return name ? t(locale, "mail.greeting", { name }) : t(locale, "mail.greeting_anonymous");
}

function renderText(body: MailBody, locale: Locale): string {
  const hello = greeting(body.greetingName, locale);
  const blocks = body.blocks.map((block) => ("paragraph" in block ? block.paragraph : block.button.href));
  return [hello, ...blocks, `— ${body.signature}`].join("\n\n") + "\n";
}

function renderHtml(body: MailBody, locale: Locale): string {
  const hello = escapeHtml(greeting(body.greetingName, locale));
  const paragraphStyle = "margin:0 0 16px;font-size:16px;line-height:1.5";
  const blocks = body.blocks.map((block) => {
    if ("paragraph" in block) return `<p style="${paragraphStyle}">${escapeHtml(block.paragraph)}</p>`;
    const href = escapeHtml(block.button.href);
    return [
      `<p style="margin:24px 0">`,
      `<a href="${href}" style="background:#1a7f37;color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none;font-weight:bold;display:inline-block">${escapeHtml(block.button.label)}</a>`,
      `</p>`,
      `<p style="margin:0 0 16px;font-size:13px;line-height:1.5;color:#555555">${escapeHtml(t(locale, "mail.button_fallback"))}<br><a href="${href}" style="color:#1a7f37;word-break:break-all">${href}</a></p>`,
    ].join("");
  });
  return [
    `<!doctype html>`,
    `<html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(body.subject)}</title></head>`,
    `<body style="margin:0;padding:24px;background:#f6f6f6;font-family:Arial,Helvetica,sans-serif;color:#222222">`,
    `<div style="max-width:560px;margin:0 auto;background:#ffffff;padding:24px;border-radius:8px">`,
    `<p style="${paragraphStyle}">${hello}</p>`,
    ...blocks,
    `<p style="${paragraphStyle}">— ${escapeHtml(body.signature)}</p>`,
    `</div></body></html>`,
  ].join("\n");
}
