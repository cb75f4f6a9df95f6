import { describe, expect, it } from "vitest";
import {
  escapeHtml,
  isMailKind,
  MAIL_KINDS,
  newOutboxMail,
  passwordChanged,
  renderMail,
  resetPassword,
  verifyEmail,
  type MailDataByKind,
  type MailKind,
} from "../src/index.js";

const link = "https://shop.example/verify-email?token=0a1b2c&email=amina%40example.com";
const when = new Date("2026-03-01T09:05:00Z");

const sampleData: { [K in MailKind]: MailDataByKind[K] } = {
  verifyEmail: { tenantName: "Duka Bora", userName: "Amina", link },
  resetPassword: { tenantName: "Duka Bora", userName: "Amina", link, validMinutes: 30 },
  noPasswordToReset: { tenantName: "Duka Bora", userName: "Amina" },
  resetNeedsConfirmedEmail: { tenantName: "Duka Bora", userName: "Amina" },
  passwordChanged: { tenantName: "Duka Bora", userName: "Amina", when },
  passwordReset: { tenantName: "Duka Bora", userName: "Amina", when },
  twoFactorEnabled: { tenantName: "Duka Bora", userName: "Amina", when },
  twoFactorDisabled: { tenantName: "Duka Bora", userName: "Amina", when },
  accountExported: { tenantName: "Duka Bora", userName: "Amina", when },
  accountDeleted: { tenantName: "Duka Bora", userName: "Amina", when },
  confirmEmailChange: { tenantName: "Duka Bora", userName: "Amina", link: `${link}&change=1`, validHours: 24 },
  emailChanged: { tenantName: "Duka Bora", userName: "Amina", when },
  phoneChanged: { tenantName: "Duka Bora", userName: "Amina", when },
  phoneAdded: { tenantName: "Duka Bora", userName: "Amina", when },
  googleLinked: { tenantName: "Duka Bora", userName: "Amina", when },
};

describe("templates", () => {
  it("escapes the five HTML-special characters", () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  });

  it.each(MAIL_KINDS)("%s renders a subject, a text and an HTML part", (kind) => {
    const mail = renderMail(kind, sampleData[kind]);
    expect(mail.subject).toContain("Duka Bora");
    expect(mail.text).toMatch(/^Hi Amina,/);
    expect(mail.text).toContain("— Duka Bora");
    expect(mail.html).toContain("Hi Amina,");
    expect(mail.html).toMatch(/^<!doctype html>/);
  });

  it.each(MAIL_KINDS)("%s escapes every interpolated value in the HTML part", (kind) => {
    const hostile = { ...sampleData[kind], tenantName: `<b>Shop</b> & "Co"`, userName: `<script>alert('x')</script>` };
    const mail = renderMail(kind, hostile as MailDataByKind[typeof kind]);
    expect(mail.html).not.toContain("<script>");
    expect(mail.html).not.toContain("<b>");
    expect(mail.html).toContain("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
    expect(mail.html).toContain("&lt;b&gt;Shop&lt;/b&gt; &amp; &quot;Co&quot;");
    // The text part is plain text: shown as typed, never interpreted.
    expect(mail.text).toContain("<script>alert('x')</script>");
  });

  it.each(["verifyEmail", "resetPassword"] as const)("%s puts the link in both parts", (kind) => {
    const mail = renderMail(kind, sampleData[kind]);
    expect(mail.text).toContain(`\n\n${link}\n\n`);
    expect(mail.html).toContain(`href="${escapeHtml(link)}"`);
    expect(mail.html).toContain("token=0a1b2c&amp;email=amina%40example.com");
  });

  it("confirmEmailChange puts its link in both parts and says the link must be opened on the device, and the sign-in, that asked", () => {
    const mail = renderMail("confirmEmailChange", sampleData.confirmEmailChange);
    expect(mail.subject).toBe("Confirm your new email for Duka Bora");
    expect(mail.text).toContain(`\n\n${link}&change=1\n\n`);
    expect(mail.html).toContain(`href="${escapeHtml(`${link}&change=1`)}"`);
    expect(mail.text).toContain("This link works for 24 hours and can be used once.");
    expect(mail.text).toContain("Open it on the device where you asked for this change, still signed in to Duka Bora there: it works only for that sign-in.");
  });

  it("emailChanged (to the old address) sends the reader to the shop, not to a password reset that would reach the new address", () => {
    const mail = renderMail("emailChanged", sampleData.emailChanged);
    expect(mail.text).toContain("contact Duka Bora at once");
    expect(mail.text).not.toContain("Forgot password");
    expect(renderMail("phoneChanged", sampleData.phoneChanged).text).toContain("Forgot password");
  });

  it("writes the data-rights notices in the recipient's language", () => {
    expect(renderMail("accountExported", sampleData.accountExported).subject).toBe("A copy of your Duka Bora data was downloaded");
    expect(renderMail("accountDeleted", sampleData.accountDeleted, "sw").subject).toBe("Akaunti yako ya Duka Bora imefutwa");
    expect(renderMail("accountDeleted", sampleData.accountDeleted, "sw").text).toContain("kama sheria inavyotaka");
  });

  it("states how long a reset link works", () => {
    expect(resetPassword(sampleData.resetPassword).text).toContain("30 minutes");
    expect(verifyEmail(sampleData.verifyEmail).text).toContain("24 hours");
    expect(verifyEmail({ ...sampleData.verifyEmail, validHours: 48 }).text).toContain("48 hours");
  });

  it("refuses links that are not http(s)", () => {
    expect(() => verifyEmail({ ...sampleData.verifyEmail, link: "javascript:alert(1)" })).toThrow(TypeError);
    expect(() => resetPassword({ ...sampleData.resetPassword, link: "/reset-password?token=x" })).toThrow(TypeError);
  });

  it("keeps names on one short line so they cannot shape the mail", () => {
    const mail = verifyEmail({
      ...sampleData.verifyEmail,
      userName: "Amina\r\n\r\nYour account is locked. Call 0700 000 000\u2028now",
      tenantName: "Duka\nBora",
    });
    expect(mail.subject).toBe("Confirm your email for Duka Bora");
    expect(mail.text.split("\n")[0]).toBe("Hi Amina Your account is locked. Call 0700 000 000 now,");
    const long = verifyEmail({ ...sampleData.verifyEmail, userName: "x".repeat(500) });
    expect(long.text.split("\n")[0]!.length).toBeLessThan(90);
  });

  it("shows security notice times in Nairobi time", () => {
    const mail = passwordChanged(sampleData.passwordChanged);
    expect(mail.text).toContain("Sunday, 1 March 2026 at 12:05 (East Africa Time)");
    expect(mail.html).toContain("Sunday, 1 March 2026 at 12:05 (East Africa Time)");
  });

  it("knows its kinds", () => {
    expect(isMailKind("resetPassword")).toBe(true);
    expect(isMailKind("toString")).toBe(false);
  });
});

describe("templates in Swahili", () => {
  const englishWords = /\b(Hi|the|your|password|account|link|If|This)\b/;

  it.each(MAIL_KINDS)("%s is Swahili throughout: greeting, body, button, fallback line, lang", (kind) => {
    const mail = renderMail(kind, sampleData[kind], "sw");
    expect(mail.subject).toContain("Duka Bora");
    expect(mail.text).toMatch(/^Habari Amina,/);
    expect(mail.text).toContain("— Duka Bora");
    expect(mail.html).toContain('<html lang="sw">');
    const words = mail.text.replace(`${link}&change=1`, "").replace(link, "");
    expect(words).not.toMatch(englishWords);
    expect(mail.subject).not.toMatch(englishWords);
  });

  it("writes times on the 24-hour clock in Nairobi time, and durations in Swahili", () => {
    expect(passwordChanged(sampleData.passwordChanged, "sw").text).toContain("Jumapili, 1 Machi 2026 saa 12:05 (saa za Afrika Mashariki)");
    expect(resetPassword(sampleData.resetPassword, "sw").text).toContain("kwa dakika 30");
    expect(verifyEmail(sampleData.verifyEmail, "sw").html).toContain("Kitufe kisipofanya kazi, nakili kiungo hiki kwenye kivinjari chako:");
  });

  it("is rendered for the outbox in the recipient's language", () => {
    const row = newOutboxMail("verifyEmail", { userName: "Amina", link }, { tenantId: "duka-bora", tenantName: "Duka Bora", to: "amina@example.com", locale: "sw" });
    expect(row.subject).toBe("Karibu Duka Bora: tafadhali thibitisha barua pepe yako");
  });
});

describe("newOutboxMail", () => {
  it("renders the template into the row to insert", () => {
    const row = newOutboxMail(
      "resetPassword",
      { userName: "Amina", link, validMinutes: 30 },
      { tenantId: "duka-bora", tenantName: "Duka Bora", to: "amina@example.com" },
    );
    expect(row).toEqual({
      tenantId: "duka-bora",
      to: "amina@example.com",
      fromName: "Duka Bora",
      kind: "resetPassword",
      ...resetPassword({ tenantName: "Duka Bora", userName: "Amina", link, validMinutes: 30 }),
    });
  });
});
