/**
 * The demo checkout app (apps/demo) end to end in headless Chromium: built with Vite into a temp dir,
 * served by the real service at /demo/, paying through the real Daraja simulator. One customer goes
 * through the whole flow: register, verify the email from the dev outbox, turn two-factor on, sign in
 * again with a code, add an address with the county picker, pay and watch the status change live;
 * then pay an order from the M-Pesa menu (C2B), the simulator standing in for the phone. A second
 * customer goes through sign-up, sign-in, an address, a payment and the devices in Swahili with the
 * language switch: the API's answers and the demo's own labels are in Swahili; phone sign-in runs in both.
 * "Sign in with Google" goes through the Google simulator's page and back, signed in.
 * A third adds a passkey and signs in with it, Chromium's virtual authenticator standing in for the
 * device (the page visited as localhost: an IP address is no WebAuthn RP ID).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { adminKey, registerUser, RestClient, startTestApp, uniqueEmail } from "./support/app.js";
import { skipThisTarget, target } from "./support/database.js";
import type { DarajaApp } from "./support/daraja.js";
import { SHORTCODE, type Simulator } from "./support/simulator.js";
import { totpAt } from "./support/totp.js";
import { callbackPath, startSimulatorFirst } from "./support/google.js";

const chromiumPath = "/usr/bin/chromium";
const haveChromium = existsSync(chromiumPath);
if (!haveChromium && process.env.CI === "true") throw new Error(`${chromiumPath} is required under CI=true`);

/** expect.poll with room for a busy machine (its default gives up after 1 s; argon2 alone can take that). */
const eventually = <T>(probe: () => Promise<T>) => expect.poll(probe, { timeout: 10_000, interval: 100 });

type Language = "en" | "sw";
/** The labels the page shows, as a customer reads them (apps/demo/src/text.ts; glossary in docs/i18n-glossary.md). */
const words = {
  en: {
    label: "Label", phone: "Phone", street: "Street / building", county: "County", chooseCounty: "Choose a county…", town: "Town (optional)",
    saveAddress: "Save address", isDefault: "default", deliverTo: "Deliver to", mpesaPhone: "M-Pesa phone", amount: "Amount (KSh)",
    pay: "Pay with M-Pesa", order: "Order", paid: "Paid KSh 1 from",
    phoneStart: "Phone", textMe: "Text me a code", smsCode: "Code from the SMS", verify: "Verify and sign in",
    fromOutbox: "Read the code from the dev outbox", newName: "Your name (new accounts)", verified: "verified",
  },
  sw: {
    label: "Jina la anwani", phone: "Nambari ya simu", street: "Barabara / jengo", county: "Kaunti", chooseCounty: "Chagua kaunti…", town: "Mji (si lazima)",
    saveAddress: "Hifadhi anwani", isDefault: "chaguo-msingi", deliverTo: "Peleka kwa", mpesaPhone: "Nambari ya simu ya M-Pesa", amount: "Kiasi (KSh)",
    pay: "Lipa kwa M-Pesa", order: "Oda", paid: "Umelipa KSh 1 kutoka",
    phoneStart: "Nambari ya simu", textMe: "Nitumie nambari ya kuthibitisha", smsCode: "Nambari ya kuthibitisha kutoka kwa SMS", verify: "Thibitisha na uingie",
    fromOutbox: "Soma nambari kutoka kwa kikasha cha majaribio", newName: "Jina lako (akaunti mpya)", verified: "imethibitishwa",
  },
} satisfies Record<Language, Record<string, string>>;

/** Addresses tab: a bad phone first shows the API's validation error; then the address, its county from the picker. */
async function addAddress(page: Page, language: Language): Promise<void> {
  const w = words[language];
  await page.locator("#tabs [data-screen=addresses]").click();
  const form = page.locator("#address-form");
  await form.getByLabel(w.label).fill("Home");
  await form.getByLabel(w.phone).fill("12345");
  await form.getByLabel(w.street).fill("Moi Avenue 12, Bazaar Plaza");
  const county = form.getByLabel(w.county);
  expect(await county.locator("option").count()).toBe(48);
  expect(await county.locator("option").first().textContent()).toBe(w.chooseCounty);
  await county.selectOption({ label: "Nairobi" });
  await form.getByLabel(w.town).fill("Nairobi");
  await form.getByRole("button", { name: w.saveAddress }).click();
  const formError = form.locator("xpath=..").locator(".notice.error");
  await eventually(() => formError.textContent()).toMatch(/^VALIDATION_ERROR — [\s\S]*phone: /);
  await form.getByLabel(w.phone).fill("0712345678");
  await form.getByRole("button", { name: w.saveAddress }).click();
  const saved = page.locator("#address-list .address").filter({ hasText: "Home" });
  await eventually(() => saved.textContent()).toContain("Moi Avenue 12, Bazaar Plaza, Nairobi, Nairobi");
  expect(await saved.locator(".badge").textContent()).toBe(w.isDefault);
}

/** Checkout tab: pays KSh 1 with an M-Pesa prompt, the status arriving live; answers the order number and the payment's log. */
async function payWithMpesa(page: Page, language: Language): Promise<{ order: string | undefined; log: string[] }> {
  const w = words[language];
  await page.locator("#tabs [data-screen=checkout]").click();
  const checkout = page.locator("#checkout-form");
  expect(await checkout.getByLabel(w.deliverTo).locator("option:checked").textContent()).toContain("Home");
  expect(await checkout.getByLabel(w.mpesaPhone).inputValue()).toBe("254712345678");
  await checkout.getByLabel(w.amount).fill("1");
  expect(await page.locator("#order-total").textContent()).toBe("KSh 1");
  await checkout.getByRole("button", { name: w.pay }).click();
  const status = page.locator("#payment-status");
  await expect.poll(() => status.getAttribute("data-status"), { timeout: 20_000, interval: 100 }).toBe("SUCCESS");
  const log = await page.locator("#payment .log li").allTextContents();
  await eventually(() => page.locator("#mpesa-receipt").textContent()).toMatch(/^[A-Z0-9]{10}$/);
  expect(await page.locator("#payment .receipt").textContent()).toContain(w.paid);
  const notice = (await checkout.locator("xpath=..").locator(".notice.ok").textContent()) ?? "";
  return { order: new RegExp(`^${w.order} (DK[A-Z0-9]{6})`).exec(notice)?.[1], log };
}

// One browser run is enough: the database target does not change what the page does.
describe.skipIf(skipThisTarget || target !== "embedded" || !haveChromium)("demo checkout app in a browser", () => {
  let sim: Simulator;
  let t: DarajaApp;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const demoDir = mkdtempSync(path.join(tmpdir(), "mteja-demo-"));

  it.beforeAll(async ({ launch }) => {
    // Always a fresh build, never a stale apps/demo/dist.
    const { buildDemo } = await import("@mteja/demo/build");
    await buildDemo(demoDir);
    // Callbacks 1.5 s after the prompt, so the page is already subscribed when the payment settles.
    sim = await launch.sim({ callbackDelayMs: 1_500 });
    t = await launch.momo({ darajaUrl: sim.url, env: { DEMO_DIR: demoDir } });
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    });
    page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    page.on("pageerror", (error) => pageErrors.push(error.message));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    rmSync(demoDir, { recursive: true, force: true });
  });

  it("serves the built page with a strict CSP and caches the hashed assets for good", async () => {
    const response = await fetch(`${t.url}/demo/`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(response.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    const html = await response.text();
    const script = html.match(/src="(\/demo\/assets\/[^"]+\.js)"/)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${t.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toMatch(/javascript/);
    expect(asset.headers.get("cache-control")).toContain("immutable");
    expect(await asset.text()).toContain("/trpc");
    const withoutSlash = await fetch(`${t.url}/demo`);
    expect(withoutSlash.status).toBe(200);
    expect(await withoutSlash.text()).toBe(html);
    const missing = await fetch(`${t.url}/demo/assets/missing.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ success: false, error: { code: "NOT_FOUND" } });
  });

  it("register → verify email → two-factor → sign in with a code → address → pay → SUCCESS live", { timeout: 60_000 }, async () => {
    const email = uniqueEmail("demo");
    const password = "correct horse battery";

    // Register: the customer is signed in at once.
    await page.goto(`${t.url}/demo/`);
    const register = page.locator("#register");
    await register.getByLabel("Full name").fill("Wanjiku Kamau");
    await register.getByLabel("Email").fill(email);
    await register.getByLabel("Phone (optional)").fill("0712 345 678");
    await register.getByLabel("Password").fill(password);
    await register.getByRole("button", { name: "Create account" }).click();
    await eventually(() => page.locator("#signed-in-as").textContent()).toBe("Wanjiku Kamau");
    await eventually(() => page.locator("#email-state").textContent()).toBe("not verified");

    // Verify the email with the link from the dev outbox.
    const mail = page.locator("#inbox .mail").filter({ hasText: "Confirm your email" });
    await eventually(() => mail.locator("code").first().textContent()).toMatch(/\/verify-email\?token=[0-9a-f]{64}&email=/);
    await mail.getByRole("button", { name: "Verify my email with this link" }).click();
    await eventually(() => page.locator("#email-state").textContent()).toBe("verified");
    expect(await page.locator(".notice.ok").first().textContent()).toContain("verified");

    // The session survives a reload through the HttpOnly refresh cookie.
    await page.reload();
    await eventually(() => page.locator("#signed-in-as").textContent()).toBe("Wanjiku Kamau");

    // Two-factor: the QR code is a real PNG, the secret is shown, a code turns it on.
    await page.getByRole("link", { name: "Two-factor" }).click();
    await page.getByRole("button", { name: "Set up two-factor" }).click();
    const qr = page.locator("#otp-qr");
    expect(await qr.getAttribute("src")).toMatch(/^data:image\/png;base64,/);
    // Decoded by the browser: a real image, not just a data: URL.
    const decodedWidth = () => qr.evaluate((element) => (element as unknown as { complete: boolean; naturalWidth: number }).naturalWidth);
    await eventually(decodedWidth).toBeGreaterThan(50);
    const secret = (await page.locator("#otp-secret").getAttribute("data-secret"))!;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const verify = page.locator("#otp-verify");
    await verify.getByLabel("Code from the app").fill("000000");
    await verify.getByRole("button", { name: "Turn two-factor on" }).click();
    await eventually(() => page.locator("#two-factor .notice.error").textContent()).toContain("INVALID_OTP");
    await verify.getByLabel("Code from the app").fill(totpAt(secret, Date.now()));
    await verify.getByRole("button", { name: "Turn two-factor on" }).click();
    await eventually(() => page.locator("#recovery-codes li").count()).toBe(10);
    await page.locator("#otp-done").click();
    await eventually(() => page.locator("#two-factor .badge").textContent()).toBe("on");

    // Sign out, then sign in: the password alone is not enough any more.
    await page.locator("#sign-out").click();
    const signIn = page.locator("#sign-in");
    await signIn.getByLabel("Email").fill(email);
    await signIn.getByLabel("Password").fill("not my password");
    await signIn.getByRole("button", { name: "Sign in" }).click();
    await eventually(() => signIn.locator("xpath=..").locator(".notice.error").textContent()).toMatch(/^INVALID_CREDENTIALS — /);
    await signIn.getByLabel("Password").fill(password);
    await signIn.getByRole("button", { name: "Sign in" }).click();
    // The next step's code: the one just used to turn two-factor on is spent.
    await page.locator("#otp-step").getByLabel("Authentication code").fill(totpAt(secret, Date.now() + 30_000));
    await page.locator("#otp-step").getByRole("button", { name: "Verify and sign in" }).click();
    await eventually(() => page.locator("#signed-in-as").textContent()).toBe("Wanjiku Kamau");

    // An address, chosen county from the picker; a bad phone first shows the API's validation error.
    await addAddress(page, "en");

    // Pay: the prompt goes to the simulator, the status arrives through the subscription.
    const { order, log } = await payWithMpesa(page, "en");
    const pending = log.findIndex((line) => / PENDING$/.test(line));
    const success = log.findIndex((line) => / SUCCESS — /.test(line));
    expect(pending, log.join("\n")).toBeGreaterThan(0); // pushed by the subscription, before the callback
    expect(success, log.join("\n")).toBeGreaterThan(pending);

    // The demo shop's backend runs in test mode (docs/test-mode.md): the prompt went to the simulated
    // provider, never to the Daraja the service is configured with (here the HTTP simulator).
    const pushes = (await sim.requests()).requests.filter((r) => r.path === "/mpesa/stkpush/v1/processrequest");
    expect(pushes).toHaveLength(0);
    // The prompt paid a test intent the shop's backend created with its API key, and the intent is settled.
    expect(order).toBeDefined();
    const intent = await t.deps.db.unscoped("test").paymentIntent.findFirstOrThrow({ where: { reference: order! }, include: { payments: true } });
    expect(intent).toMatchObject({ livemode: false, status: "succeeded", amount: 1 });
    expect(intent.payments).toMatchObject([{ livemode: false, amount: 1, status: "SUCCESS" }]);
    expect(pageErrors).toEqual([]);
  });

  it("pays an order from the M-Pesa menu: paybill and order number shown, the simulated phone pays, settled live", { timeout: 60_000 }, async () => {
    // Still signed in, on the checkout page of the test above.
    const checkout = page.locator("#checkout-form");
    await checkout.getByLabel("Amount (KSh)").fill("30");
    await checkout.getByRole("button", { name: "Pay from the M-Pesa menu" }).click();
    const paybill = page.locator("#menu-paybill");
    await eventually(() => paybill.textContent()).toBe(SHORTCODE);
    const account = (await page.locator("#menu-account").textContent())!;
    expect(account).toMatch(/^DK[A-Z0-9]{6}$/);
    expect(await page.locator("#order-status").getAttribute("data-status")).toBe("requires_payment");
    await page.locator("#simulated-phone").click();
    await expect.poll(() => page.locator("#order-status").getAttribute("data-status"), { timeout: 20_000, interval: 100 }).toBe("succeeded");
    const receipt = (await page.locator("#order-receipt").textContent())!;
    expect(receipt).toMatch(/^[A-Z0-9]{10}$/);
    // M-Pesa asked the shop to validate, then confirmed: both with the order number as the account.
    const callbacks = (await sim.requests()).callbacks.filter((c) => c.kind.startsWith("c2b_") && c.body.BillRefNumber === account);
    expect(callbacks.map((c) => [c.kind, c.status])).toEqual([
      ["c2b_validation", 200],
      ["c2b_confirmation", 200],
    ]);
    expect(callbacks[1]!.body).toMatchObject({ TransID: receipt, TransAmount: "30.00", BusinessShortCode: SHORTCODE });
    expect(pageErrors).toEqual([]);
  });

  it("shows the order's QR code beside the menu's steps; the simulated phone scans it and the order settles live", { timeout: 60_000 }, async () => {
    const checkout = page.locator("#checkout-form");
    await checkout.getByLabel("Amount (KSh)").fill("40");
    await checkout.getByRole("button", { name: "Pay from the M-Pesa menu" }).click();
    const image = page.locator("#order-qr-image");
    await image.waitFor();
    const account = (await page.locator("#menu-account").textContent())!;
    expect(await image.getAttribute("src")).toMatch(/^data:image\/png;base64,iVBOR/);
    // The shop asked Daraja's Dynamic QR for a paybill code of the order's amount and number.
    const qr = sim.received.filter((request) => request.operation === "qrcode").at(-1)!;
    expect(qr.body).toMatchObject({ RefNo: account, Amount: 40, TrxCode: "PB", CPI: SHORTCODE });
    expect(await page.locator("#order-status").getAttribute("data-status")).toBe("requires_payment");
    await page.locator("#simulated-scan").click();
    await expect.poll(() => page.locator("#order-status").getAttribute("data-status"), { timeout: 20_000, interval: 100 }).toBe("succeeded");
    const receipt = (await page.locator("#order-receipt").textContent())!;
    const confirmation = (await sim.requests()).callbacks.find((c) => c.kind === "c2b_confirmation" && c.body.BillRefNumber === account);
    expect(confirmation?.body).toMatchObject({ TransID: receipt, TransAmount: "40.00", BusinessShortCode: SHORTCODE });
    expect(pageErrors).toEqual([]);
  });

  it("devices: lists this browser and another session, signs the other out; my data: downloads the export, deletes the account", { timeout: 60_000 }, async () => {
    const client = new RestClient(t.url);
    const user = await registerUser(client, { name: "Otieno Ouma", email: uniqueEmail("demo-devices") });
    await page.goto(`${t.url}/demo/`);
    // Still signed in from the tests above once the page's refresh has answered: wait for either view.
    await page.locator("#sign-out, #sign-in").first().waitFor();
    if (await page.locator("#sign-out").isVisible()) await page.locator("#sign-out").click();
    const signIn = page.locator("#sign-in");
    await signIn.getByLabel("Email").fill(user.email);
    await signIn.getByLabel("Password").fill(user.password);
    await signIn.getByRole("button", { name: "Sign in" }).click();
    await eventually(() => page.locator("#signed-in-as").textContent()).toBe("Otieno Ouma");

    // Two sessions: this browser (marked) and the one registration opened.
    await page.getByRole("link", { name: "Devices" }).click();
    const devices = page.locator("#device-list .device");
    await eventually(() => devices.count()).toBe(2);
    expect(await devices.filter({ has: page.locator(".badge") }).locator("strong").textContent()).toMatch(/HeadlessChrome.*this device$/);
    expect(await devices.filter({ hasNot: page.locator(".badge") }).locator("strong").textContent()).toBe("node");
    await page.locator("#revoke-others").click();
    await eventually(() => devices.count()).toBe(1);
    expect(await devices.first().locator(".badge").textContent()).toBe("this device");
    expect((await client.get("/api/v1/auth/me", user.accessToken)).status).toBe(401);

    // The export downloads as a JSON file holding the customer's profile and sessions.
    await page.getByRole("link", { name: "My data" }).click();
    const [download] = await Promise.all([page.waitForEvent("download"), page.locator("#export-data").click()]);
    expect(download.suggestedFilename()).toBe("my-data.json");
    const exported = JSON.parse(readFileSync((await download.path())!, "utf8"));
    expect(exported.profile).toMatchObject({ id: user.id, email: user.email, name: "Otieno Ouma" });
    expect(exported.sessions).toHaveLength(2);
    expect(exported.security_events.map((e: { type: string }) => e.type)).toContain("session.revoked");
    await eventually(() => page.locator("#export .notice.ok").textContent()).toContain("Downloaded: 0 addresses, 2 sessions");

    // Deleting needs the password; then the customer is signed out and cannot sign in again.
    const erase = page.locator("#delete-account");
    await erase.getByLabel("Current password").fill("not my password");
    await erase.getByRole("button", { name: "Delete my account" }).click();
    await eventually(() => page.locator("#delete .notice.error").textContent()).toMatch(/^INVALID_CREDENTIALS — /);
    await erase.getByLabel("Current password").fill(user.password);
    await erase.getByRole("button", { name: "Delete my account" }).click();
    await eventually(() => page.locator("#who").textContent()).toContain("Not signed in");
    expect((await client.post("/api/v1/auth/login", { email: user.email, password: user.password })).status).toBe(401);
    expect(pageErrors).toEqual([]);
  });

  it("in Swahili: labels and the API's answers in Swahili; sign-up, sign-in, an address with the county picker, a payment, the devices; preferences.locale follows the switch", { timeout: 60_000 }, async () => {
    const context = await browser.newContext({ locale: "en-US" });
    const swPage = await context.newPage();
    swPage.setDefaultTimeout(10_000);
    swPage.on("pageerror", (error) => pageErrors.push(error.message));
    const email = uniqueEmail("demo-sw");
    const password = "nenosiri zuri sana";
    const storedLocale = async () => ((await t.deps.db.unscoped("test").user.findFirst({ where: { email } }))?.preferences as { locale?: string } | undefined)?.locale;
    const tabs = () => swPage.locator("#tabs a").allTextContents();
    try {
      await swPage.goto(`${t.url}/demo/`);
      expect(await swPage.locator("#register").locator("xpath=..").locator("h2").textContent()).toBe("Create an account");
      // Signed out, the switch redraws the page's own labels at once.
      await swPage.locator("#language").selectOption("sw");
      expect(await swPage.locator("html").getAttribute("lang")).toBe("sw");
      await eventually(tabs).toEqual(["Akaunti"]);
      expect(await swPage.locator("#who").textContent()).toBe("Hujaingia");
      expect(await swPage.locator("#register").locator("xpath=..").locator("h2").textContent()).toBe("Fungua akaunti");
      expect(await swPage.locator("#phone-start").locator("xpath=..").locator("h2").textContent()).toBe("Ingia kwa nambari ya simu");

      const register = swPage.locator("#register");
      await register.getByLabel("Jina kamili").fill("Baraka Otieno");
      await register.getByLabel("Barua pepe").fill(email);
      await register.getByLabel("Nambari ya simu (si lazima)").fill("12345");
      await register.getByLabel("Nenosiri").fill(password);
      await register.getByRole("button", { name: "Fungua akaunti" }).click();
      const registerError = register.locator("xpath=..").locator(".notice.error");
      await eventually(() => registerError.textContent()).toMatch(/^VALIDATION_ERROR — Ombi si sahihi\.\nphone: phone lazima iwe nambari ya simu ya mkononi ya Kenya/);

      await register.getByLabel("Nambari ya simu (si lazima)").fill("0712 345 678");
      await register.getByRole("button", { name: "Fungua akaunti" }).click();
      await eventually(() => swPage.locator("#signed-in-as").textContent()).toBe("Baraka Otieno");
      expect(await storedLocale()).toBe("sw");
      expect(await tabs()).toEqual(["Akaunti", "Hatua mbili", "Anwani", "Lipa", "Vifaa", "Data yangu"]);
      expect(await swPage.locator("#profile h2").textContent()).toBe("Akaunti yako");
      expect(await swPage.locator("#email-state").textContent()).toBe("haijathibitishwa");
      const mail = swPage.locator("#inbox .mail").filter({ hasText: "Karibu" });
      await eventually(() => mail.locator("h4").textContent()).toMatch(/^Karibu .+: tafadhali thibitisha barua pepe yako$/);
      expect(await swPage.getByRole("button", { name: "Thibitisha barua pepe yangu kwa kiungo hiki" }).count()).toBe(1);

      // Switching while signed in stores the choice on the account, and the labels follow.
      await swPage.locator("#language").selectOption("en");
      await eventually(storedLocale).toBe("en");
      await eventually(() => swPage.locator("#profile h2").textContent()).toBe("Your account");
      await swPage.locator("#language").selectOption("sw");
      await eventually(storedLocale).toBe("sw");
      await eventually(() => swPage.locator("#profile h2").textContent()).toBe("Akaunti yako");

      await addAddress(swPage, "sw");
      expect(await swPage.locator("#address-form").locator("xpath=..").locator("xpath=..").locator("h2").textContent()).toBe("Ongeza anwani");
      const { order } = await payWithMpesa(swPage, "sw");
      expect(order).toMatch(/^DK[A-Z0-9]{6}$/);
      expect(await swPage.locator("#payment h2").textContent()).toBe("Malipo");

      // Devices: this browser and the session registration opened; ending the other one.
      await swPage.locator("#tabs [data-screen=devices]").click();
      expect(await swPage.locator("#devices h2").textContent()).toBe("Mahali ulipoingia");
      const devices = swPage.locator("#device-list .device");
      await eventually(() => devices.count()).toBe(1);
      expect(await devices.first().locator(".badge").textContent()).toBe("kifaa hiki");
      expect(await devices.first().getByRole("button").textContent()).toBe("Toka hapa");
      expect(await swPage.locator("#revoke-others").textContent()).toBe("Toa vifaa vingine vyote");

      await swPage.locator("#sign-out").click();
      await eventually(() => swPage.locator("#app .notice.ok").first().textContent()).toBe("Umetoka kwenye akaunti.");
      const signIn = swPage.locator("#sign-in");
      await signIn.getByLabel("Barua pepe").fill(email);
      await signIn.getByLabel("Nenosiri").fill("si nenosiri langu");
      await signIn.getByRole("button", { name: "Ingia" }).click();
      await eventually(() => signIn.locator("xpath=..").locator(".notice.error").textContent()).toBe("INVALID_CREDENTIALS — Barua pepe au nenosiri si sahihi.");
      await signIn.getByLabel("Nenosiri").fill(password);
      await signIn.getByRole("button", { name: "Ingia" }).click();
      await eventually(() => swPage.locator("#signed-in-as").textContent()).toBe("Baraka Otieno");
      expect(await swPage.locator("#sign-out").textContent()).toBe("Toka");
      expect(pageErrors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("passkeys: register one after signing up, sign out, sign in with it (Chromium's virtual authenticator)", { timeout: 60_000 }, async () => {
    // An IP address is not a valid RP ID: the shop's passkeys belong to localhost, and the page is
    // visited there (the same listener as 127.0.0.1).
    const origin = t.url.replace("127.0.0.1", "localhost");
    const patched = await new RestClient(t.url, "").request("PATCH", "/api/v1/admin/tenants/default", {
      body: { settings: { webauthn: { rpId: "localhost", origins: [origin] } } },
      headers: { authorization: `Bearer ${adminKey}` },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const context = await browser.newContext();
    const keyPage = await context.newPage();
    keyPage.setDefaultTimeout(10_000);
    keyPage.on("pageerror", (error) => pageErrors.push(error.message));
    const cdp = await context.newCDPSession(keyPage);
    await cdp.send("WebAuthn.enable");
    const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    const email = uniqueEmail("demo-passkey");
    try {
      await keyPage.goto(`${origin}/demo/`);
      const register = keyPage.locator("#register");
      await register.getByLabel("Full name").fill("Akinyi Odhiambo");
      await register.getByLabel("Email").fill(email);
      await register.getByLabel("Password").fill("correct horse battery");
      await register.getByRole("button", { name: "Create account" }).click();
      await eventually(() => keyPage.locator("#signed-in-as").textContent()).toBe("Akinyi Odhiambo");

      // Just signed up, the session is fresh: adding a passkey needs nothing more.
      const passkeys = keyPage.locator("#passkeys");
      await passkeys.getByLabel("Passkey name (optional)").fill("Laptop");
      await passkeys.getByRole("button", { name: "Add a passkey" }).click();
      await eventually(() => passkeys.locator("#passkey-list .passkey strong").allTextContents()).toEqual(["Laptop"]);
      const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
      expect(credentials).toHaveLength(1);
      expect(credentials[0]).toMatchObject({ isResidentCredential: true, rpId: "localhost" });
      const registeredCount = credentials[0]!.signCount;

      await keyPage.locator("#sign-out").click();
      await eventually(() => keyPage.locator("#who").textContent()).toContain("Not signed in");
      // No email typed: the authenticator offers the shop's passkey (a discoverable credential).
      await keyPage.locator("#passkey-sign-in").getByRole("button", { name: "Sign in with a passkey" }).click();
      await eventually(() => keyPage.locator("#signed-in-as").textContent()).toBe("Akinyi Odhiambo");
      const user = await t.deps.db.unscoped("test").user.findFirstOrThrow({ where: { email } });
      const signIns = await t.deps.db.unscoped("test").securityEvent.findMany({ where: { userId: user.id, type: "sign_in.succeeded" } });
      expect(signIns.map((event) => (event.details as { method?: string }).method)).toContain("passkey");
      const after = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
      expect(after.credentials[0]!.signCount).toBeGreaterThan(registeredCount);
      expect(pageErrors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("opens the verification and reset links of the mails on the demo's own pages (APP_URL = …/demo)", { timeout: 30_000 }, async () => {
    // The dev start's APP_URL is its own origin's /demo; this port is only known after listen, so the
    // link's origin is swapped for the test app's (its path and query are the mail's own).
    const app = await startTestApp({ DEMO_DIR: demoDir, APP_URL: "http://localhost:3000/demo" });
    const linkPage = await browser.newPage();
    linkPage.setDefaultTimeout(10_000);
    linkPage.on("pageerror", (error) => pageErrors.push(error.message));
    try {
      const client = new RestClient(app.url);
      const user = await registerUser(client, { email: uniqueEmail("demo-links") });
      const linkIn = async (page: "verify-email" | "reset-password") => {
        let link: string | undefined;
        await expect
          .poll(async () => {
            const { body } = await client.get(`/dev/outbox?to=${encodeURIComponent(user.email)}`);
            const texts = (body.data.mails as { text: string }[]).map((mail) => mail.text).join("\n");
            link = new RegExp(`https?://\\S+/demo/${page}\\?[^\\s"<>]+`).exec(texts)?.[0];
            return link;
          }, { timeout: 10_000, interval: 100 })
          .toBeDefined();
        const url = new URL(link!);
        expect(url.origin).toBe("http://localhost:3000");
        return `${app.url}${url.pathname}${url.search}`;
      };

      // The same page, headers and CSP as /demo/.
      const served = await fetch(`${app.url}/demo/reset-password`);
      expect(served.status).toBe(200);
      expect(served.headers.get("content-security-policy")).toContain("default-src 'self'");
      expect(await served.text()).toBe(await (await fetch(`${app.url}/demo/`)).text());

      // Verification: the page spends the token on load.
      await linkPage.goto(await linkIn("verify-email"));
      await eventually(() => linkPage.locator("#verify-email .notice").textContent()).toBe("Your email address has been verified.");
      const me = await client.get("/api/v1/auth/me", user.accessToken);
      expect(me.body.data.email_verified).toBe(true);
      // A spent link says so, as the API does.
      await linkPage.reload();
      await eventually(() => linkPage.locator("#verify-email .notice.error").textContent()).toMatch(/^INVALID_TOKEN — /);

      // Reset: a new password on the page, then sign in with it through the API.
      expect((await client.post("/api/v1/auth/forgot-password", { email: user.email })).status).toBe(200);
      await linkPage.goto(await linkIn("reset-password"));
      const form = linkPage.locator("#reset-password-form");
      await form.getByLabel("New password").fill("a brand new passphrase");
      await form.getByRole("button", { name: "Set new password" }).click();
      await eventually(() => linkPage.locator("#reset-password .notice.ok").textContent()).toContain("log in with your new password");
      expect(await linkPage.locator("#to-shop").getAttribute("href")).toBe("./");
      expect((await client.post("/api/v1/auth/login", { email: user.email, password: user.password })).status).toBe(401);
      const login = await client.post("/api/v1/auth/login", { email: user.email, password: "a brand new passphrase" });
      expect(login.status).toBe(200);
      expect(login.body.data.access_token).toEqual(expect.any(String));
      expect(pageErrors).toEqual([]);
    } finally {
      await linkPage.close();
      await app.close();
    }
  });

  for (const [index, language] of (["en", "sw"] as const).entries()) {
    it(`signs in with phone (${language}): the code read from the dev outbox of texts, a new account without email`, { timeout: 30_000 }, async () => {
      const w = words[language];
      const phonePage = await browser.newPage();
      phonePage.setDefaultTimeout(10_000);
      phonePage.on("pageerror", (error) => pageErrors.push(error.message));
      try {
        const digits = String((Date.now() + index * 7919) % 1e8).padStart(8, "0");
        await phonePage.goto(`${t.url}/demo/`);
        await phonePage.locator("#language").selectOption(language);
        const start = phonePage.locator("#phone-start");
        await start.getByLabel(w.phoneStart).fill(`07${digits}`);
        await start.getByRole("button", { name: w.textMe }).click();
        const verify = phonePage.locator("#phone-verify");
        // A wrong code first: the API's error, as the page shows it.
        await verify.getByLabel(w.smsCode).fill("000000");
        await verify.getByRole("button", { name: w.verify }).click();
        await eventually(() => verify.locator("xpath=..").locator(".notice.error").textContent()).toMatch(/^INVALID_OTP — /);
        // The text is logged (no SMS provider here) and kept in the dev outbox; the page reads its code.
        await eventually(async () => {
          await verify.getByRole("button", { name: w.fromOutbox }).click();
          return verify.getByLabel(w.smsCode).inputValue();
        }).toMatch(/^\d{6}$/);
        await verify.getByLabel(w.newName).fill("Otieno Odhiambo");
        await verify.getByRole("button", { name: w.verify }).click();
        await eventually(() => phonePage.locator("#signed-in-as").textContent()).toBe("Otieno Odhiambo");
        expect(await phonePage.locator("#phone-state").textContent()).toBe(w.verified);
        expect(await phonePage.locator("#profile").textContent()).toContain(`2547${digits}`);
        expect(pageErrors).toEqual([]);
      } finally {
        await phonePage.close();
      }
    });
  }

  it("signs in with Google: the button, the simulator's sign-in page, back on the demo signed in; a second time the same account", { timeout: 30_000 }, async () => {
    const google = await startSimulatorFirst();
    const app = await startTestApp({ DEMO_DIR: demoDir, OIDC_GOOGLE_ISSUER: google.issuer });
    const googlePage = await browser.newPage();
    googlePage.setDefaultTimeout(10_000);
    googlePage.on("pageerror", (error) => pageErrors.push(error.message));
    try {
      const client = { clientId: "demo-shop.apps.googleusercontent.test", clientSecret: "demo-google-secret" };
      await google.addClient({ ...client, redirectUris: [`${app.url}${callbackPath}`] });
      const settings = { oidc: { google: { ...client, redirectUris: [`${app.url}/demo/`] } } };
      const patched = await new RestClient(app.url, "").request("PATCH", "/api/v1/admin/tenants/default", { body: { settings }, headers: { authorization: `Bearer ${adminKey}` } });
      expect(patched.status).toBe(200);
      const email = uniqueEmail("wairimu");
      const signIn = async () => {
        await googlePage.goto(`${app.url}/demo/`);
        await googlePage.getByRole("link", { name: "Sign in with Google" }).click();
        // The simulator's page, standing in for Google's.
        await googlePage.locator("#sim-email").fill(email);
        expect(await googlePage.locator("#sim-verified").isChecked()).toBe(true);
        await googlePage.locator("#sim-sign-in").click();
        await eventually(() => googlePage.locator("#signed-in-as").textContent()).toBe(email.split("@")[0]);
        expect(new URL(googlePage.url()).pathname).toBe("/demo/");
      };
      await signIn();
      expect(await googlePage.locator("#email-state").textContent()).toBe("verified");
      const firstAccount = await googlePage.locator("#profile").textContent();
      await googlePage.locator("#sign-out").click();
      await eventually(() => googlePage.locator("#google-sign-in").count()).toBe(1);
      await signIn();
      expect(await googlePage.locator("#profile").textContent()).toBe(firstAccount);
      expect(pageErrors).toEqual([]);
    } finally {
      await googlePage.close();
      await app.close();
      await google.close();
    }
  });

  it("checks out as a guest (an address, a payment), then saves the details: the same account, now a customer's", { timeout: 60_000 }, async () => {
    const guestPage = await browser.newPage();
    guestPage.setDefaultTimeout(10_000);
    guestPage.on("pageerror", (error) => pageErrors.push(error.message));
    try {
      await guestPage.goto(`${t.url}/demo/`);
      await guestPage.locator("#guest-card").getByRole("button", { name: "Check out as a guest" }).click();
      // A guest sees only what it may use: no devices, no two-factor, no data export.
      await eventually(() => guestPage.locator("#tabs a").allTextContents()).toEqual(["Account", "Addresses", "Checkout"]);
      // A guest has no name for the recipient field to start with.
      await eventually(async () => new URL(guestPage.url()).hash).toBe("#addresses");
      await guestPage.locator("#address-form").getByLabel("Recipient").fill("Atieno Wambui");
      await addAddress(guestPage, "en");
      await payWithMpesa(guestPage, "en");

      // The offer after paying: save the details, in place.
      await guestPage.locator("#save-details-offer").click();
      await eventually(() => guestPage.locator("#guest-state").textContent()).toBe("guest");
      const email = uniqueEmail("guest-demo");
      const save = guestPage.locator("#save-details");
      await save.getByLabel("Full name").fill("Atieno Wambui");
      await save.getByLabel("Email").fill(email);
      await save.getByLabel("Password").fill("a long unbreached passphrase");
      await save.getByRole("button", { name: "Save your details" }).click();
      await eventually(() => guestPage.locator("#signed-in-as").textContent()).toBe("Atieno Wambui");
      expect(await guestPage.locator("#guest-state").count()).toBe(0);
      await eventually(() => guestPage.locator("#tabs a").count()).toBe(6);

      // The same account: its address and payment stayed; the email waits for its link.
      const db = t.deps.db.unscoped("test");
      const user = await db.user.findFirstOrThrow({ where: { name: "Atieno Wambui" } });
      expect(user).toMatchObject({ role: "customer", email: null });
      expect(await db.address.count({ where: { userId: user.id } })).toBe(1);
      expect(await db.payment.count({ where: { userId: user.id, status: "SUCCESS" } })).toBe(1);
      expect(await db.mailOutbox.count({ where: { toAddress: email, kind: "confirmEmailChange" } })).toBe(1);
    } finally {
      await guestPage.close();
    }
  });

  it("is not served in production (it follows live links from the dev outbox)", async () => {
    const production = await startTestApp({ NODE_ENV: "production", DEMO_DIR: demoDir });
    try {
      const response = await fetch(`${production.url}/demo/`);
      expect(response.status).toBe(404);
      await response.arrayBuffer();
      // Nor its shop backend, which acts with the admin key.
      const shop = await fetch(`${production.url}/demo/shop/orders`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"amount":1}' });
      expect(shop.status).toBe(404);
      await shop.arrayBuffer();
    } finally {
      await production.close();
    }
  });
});
