/**
 * A CAPTCHA token for the flows a shop may protect (docs/sign-in.md#captcha). A real shop renders the
 * provider's widget; the demo asks the dev start's stand-in through the demo shop (`POST
 * /demo/shop/captcha`), which is what a solved widget would hand over. No stand-in: no token (the shop
 * then asks for none).
 */
export async function captchaToken(): Promise<string | undefined> {
  try {
    const response = await fetch("/demo/shop/captcha", { method: "POST" });
    if (!response.ok) return undefined;
    const body = (await response.json()) as { token?: unknown };
    return typeof body.token === "string" ? body.token : undefined;
  } catch {
    return undefined;
  }
}
