/**
 * The demo's own words (labels, headings, hints, statuses) in English and Swahili; the API's messages
 * and mails come translated from the service. Swahili terms follow docs/i18n-glossary.md. A `{name}`
 * in a text is filled by `t(key, { name })`; both languages use the same placeholders (a test checks).
 */
import { currentLanguage } from "./chosen-language.js";

export interface Text {
  en: string;
  sw: string;
}

export const texts = {
  // Shell: tabs, header
  "tab.account": { en: "Account", sw: "Akaunti" },
  "tab.two-factor": { en: "Two-factor", sw: "Hatua mbili" },
  "tab.addresses": { en: "Addresses", sw: "Anwani" },
  "tab.checkout": { en: "Checkout", sw: "Lipa" },
  "tab.devices": { en: "Devices", sw: "Vifaa" },
  "tab.my-data": { en: "My data", sw: "Data yangu" },
  "shell.notSignedIn": { en: "Not signed in", sw: "Hujaingia" },
  "shell.signOut": { en: "Sign out", sw: "Toka" },
  "shell.signedOut": { en: "You are signed out.", sw: "Umetoka kwenye akaunti." },
  "common.loading": { en: "Loading…", sw: "Inapakia…" },
  "common.startOver": { en: "Start over", sw: "Anza upya" },
  "common.verifyAndSignIn": { en: "Verify and sign in", sw: "Thibitisha na uingie" },
  "common.twoFactorNeeded": {
    en: "Two-factor is on for this account: enter the code from your authenticator app.",
    sw: "Uthibitishaji wa hatua mbili umewashwa kwenye akaunti hii: tafadhali weka nambari ya kuthibitisha kutoka kwa programu ya uthibitishaji.",
  },
  "common.verified": { en: "verified", sw: "imethibitishwa" },
  "common.notVerified": { en: "not verified", sw: "haijathibitishwa" },
  "common.on": { en: "on", sw: "imewashwa" },
  "common.off": { en: "off", sw: "imezimwa" },
  "common.currentPassword": { en: "Current password", sw: "Nenosiri la sasa" },
  "common.authCode": { en: "Authentication code", sw: "Nambari ya kuthibitisha" },
  // Account
  "account.createTitle": { en: "Create an account", sw: "Fungua akaunti" },
  "account.fullName": { en: "Full name", sw: "Jina kamili" },
  "account.email": { en: "Email", sw: "Barua pepe" },
  "account.phoneOptional": { en: "Phone (optional)", sw: "Nambari ya simu (si lazima)" },
  "account.password": { en: "Password", sw: "Nenosiri" },
  "account.create": { en: "Create account", sw: "Fungua akaunti" },
  "account.signInTitle": { en: "Sign in", sw: "Ingia" },
  "account.signIn": { en: "Sign in", sw: "Ingia" },
  "account.lostPhone": {
    en: "Lost your phone? Enter one of your recovery codes instead. The sign-in attempt lasts 5 minutes.",
    sw: "Umepoteza simu? Tafadhali weka mojawapo ya nambari za kurejesha akaunti badala yake. Jaribio la kuingia linadumu kwa dakika 5.",
  },
  "account.yourAccount": { en: "Your account", sw: "Akaunti yako" },
  "account.name": { en: "Name", sw: "Jina" },
  "account.phone": { en: "Phone", sw: "Nambari ya simu" },
  "account.twoFactor": { en: "Two-factor", sw: "Hatua mbili" },
  "account.manage": { en: "manage", sw: "simamia" },
  "inbox.title": { en: "Inbox ", sw: "Barua pepe zako " },
  "inbox.devOutbox": { en: "(dev outbox)", sw: "(kikasha cha majaribio)" },
  "inbox.verifiedHint": {
    en: "The mails the shop sent you. Without SMTP the service keeps them in its outbox (GET /dev/outbox).",
    sw: "Barua pepe ambazo duka limekutumia. Bila SMTP huduma inazihifadhi kwenye kikasha chake (GET /dev/outbox).",
  },
  "inbox.unverifiedHint": {
    en: "We sent you a verification link. Without SMTP the service keeps it in its outbox: follow it here.",
    sw: "Tumekutumia kiungo cha kuthibitisha. Bila SMTP huduma inakihifadhi kwenye kikasha chake: tafadhali kifuate hapa.",
  },
  "inbox.verifyWithLink": { en: "Verify my email with this link", sw: "Thibitisha barua pepe yangu kwa kiungo hiki" },
  "inbox.none": { en: "No mail yet.", sw: "Bado hakuna barua pepe." },
  "inbox.resend": { en: "Send a new verification link", sw: "Nitumie kiungo kipya cha kuthibitisha" },
  "inbox.refresh": { en: "Refresh", sw: "Onyesha upya" },
  // Phone sign-in
  "phone.title": { en: "Sign in with phone", sw: "Ingia kwa nambari ya simu" },
  "phone.hint": {
    en: "We text you a 6-digit code. No account yet? One is made for this number.",
    sw: "Tutakutumia SMS yenye nambari ya kuthibitisha ya tarakimu 6. Huna akaunti bado? Tutakufungulia moja kwa nambari hii.",
  },
  "phone.send": { en: "Text me a code", sw: "Nitumie nambari ya kuthibitisha" },
  "phone.fromOutbox": { en: "Read the code from the dev outbox", sw: "Soma nambari kutoka kwa kikasha cha majaribio" },
  "phone.code": { en: "Code from the SMS", sw: "Nambari ya kuthibitisha kutoka kwa SMS" },
  "phone.name": { en: "Your name (new accounts)", sw: "Jina lako (akaunti mpya)" },
  // Sign in with Google
  "google.title": { en: "Sign in with Google", sw: "Ingia kwa Google" },
  "google.hint": {
    en: "Use your Google account: no password to remember. On npm start a local stand-in for Google asks for any email.",
    sw: "Tumia akaunti yako ya Google: hakuna nenosiri la kukumbuka. Kwenye npm start, kibadala cha Google cha majaribio kinauliza barua pepe yoyote.",
  },
  "google.button": { en: "Sign in with Google", sw: "Ingia kwa Google" },
  "google.failed": { en: "Signing in with Google did not finish ({code}).", sw: "Kuingia kwa Google hakukukamilika ({code})." },
  // Two-factor
  "otp.title": { en: "Two-factor authentication", sw: "Uthibitishaji wa hatua mbili" },
  "otp.turnOff": { en: "Turn two-factor off", sw: "Zima uthibitishaji wa hatua mbili" },
  "otp.onHint": { en: " Signing in asks for a code from your authenticator app.", sw: " Kuingia kunahitaji nambari ya kuthibitisha kutoka kwa programu ya uthibitishaji." },
  "otp.setUp": { en: "Set up two-factor", sw: "Washa uthibitishaji wa hatua mbili" },
  "otp.offHint": {
    en: " Protect the account with a code from an authenticator app (Google Authenticator, Aegis, 1Password…).",
    sw: " Linda akaunti kwa nambari ya kuthibitisha kutoka kwa programu ya uthibitishaji (Google Authenticator, Aegis, 1Password…).",
  },
  "otp.codeFromApp": { en: "Code from the app", sw: "Nambari kutoka kwa programu" },
  "otp.turnOn": { en: "Turn two-factor on", sw: "Washa hatua mbili" },
  "otp.scan": { en: "1. Scan this QR code with your authenticator app:", sw: "1. Tafadhali changanua msimbo huu wa QR kwa programu ya uthibitishaji:" },
  "otp.qrAlt": { en: "QR code of the two-factor secret", sw: "Msimbo wa QR wa siri ya hatua mbili" },
  "otp.typeSecret": { en: "…or type the secret: ", sw: "…au andika siri: " },
  "otp.enterCode": { en: "2. Enter the 6-digit code the app shows:", sw: "2. Tafadhali weka nambari ya tarakimu 6 ambayo programu inaonyesha:" },
  "otp.enabled": { en: "Two-factor authentication is now enabled.", sw: "Uthibitishaji wa hatua mbili sasa umewashwa." },
  "otp.recoveryHint": {
    en: "Your recovery codes. Each works once in place of a code; they are shown only now:",
    sw: "Nambari zako za kurejesha akaunti. Kila moja inatumika mara moja badala ya nambari ya kuthibitisha; zinaonyeshwa sasa tu:",
  },
  "otp.saved": { en: "I have saved them", sw: "Nimezihifadhi" },
  // Addresses
  "addresses.title": { en: "Your delivery addresses", sw: "Anwani zako za kupelekea" },
  "addresses.addTitle": { en: "Add an address", sw: "Ongeza anwani" },
  "addresses.none": { en: "No address yet: add one to check out.", sw: "Bado huna anwani: tafadhali ongeza moja ili ulipe." },
  "addresses.default": { en: "default", sw: "chaguo-msingi" },
  "addresses.makeDefault": { en: "Make default", sw: "Fanya chaguo-msingi" },
  "addresses.delete": { en: "Delete", sw: "Futa" },
  "addresses.county": { en: "County", sw: "Kaunti" },
  "addresses.chooseCounty": { en: "Choose a county…", sw: "Chagua kaunti…" },
  "addresses.label": { en: "Label", sw: "Jina la anwani" },
  "addresses.labelPlaceholder": { en: "Home, Office…", sw: "Nyumbani, Ofisini…" },
  "addresses.recipient": { en: "Recipient", sw: "Mpokeaji" },
  "addresses.street": { en: "Street / building", sw: "Barabara / jengo" },
  "addresses.town": { en: "Town (optional)", sw: "Mji (si lazima)" },
  "addresses.landmark": { en: "Landmark (optional)", sw: "Alama ya karibu (si lazima)" },
  "addresses.makeMyDefault": { en: "Make this my default address", sw: "Fanya hii anwani yangu ya chaguo-msingi" },
  "addresses.save": { en: "Save address", sw: "Hifadhi anwani" },
  // Checkout
  "checkout.title": { en: "Checkout", sw: "Lipa" },
  "checkout.loading": { en: "Loading your addresses…", sw: "Inapakia anwani zako…" },
  "checkout.addAddressFirst": { en: "Add a delivery address first: ", sw: "Tafadhali ongeza anwani ya kupelekea kwanza: " },
  "checkout.addressesLink": { en: "addresses", sw: "anwani" },
  "checkout.item": { en: "1 × Kikoi beach towel", sw: "1 × Taulo ya kikoi ya ufukweni" },
  "checkout.deliverTo": { en: "Deliver to", sw: "Peleka kwa" },
  "checkout.phone": { en: "M-Pesa phone", sw: "Nambari ya simu ya M-Pesa" },
  "checkout.amount": { en: "Amount (KSh)", sw: "Kiasi (KSh)" },
  "checkout.pay": { en: "Pay with M-Pesa", sw: "Lipa kwa M-Pesa" },
  "checkout.payFromMenu": { en: "Pay from the M-Pesa menu", sw: "Lipa kutoka kwa menyu ya M-Pesa" },
  "checkout.simulatorAmounts": { en: "Amounts the Daraja simulator understands", sw: "Kiasi ambacho kiigaji cha Daraja kinaelewa" },
  "checkout.sim.paid": { en: "paid (SUCCESS)", sw: "imelipwa (SUCCESS)" },
  "checkout.sim.cancelled": { en: "cancelled by the customer", sw: "imeghairiwa na mteja" },
  "checkout.sim.timeout": { en: "customer unreachable (TIMEOUT)", sw: "mteja hapatikani (TIMEOUT)" },
  "checkout.sim.funds": { en: "insufficient funds (FAILED)", sw: "salio halitoshi (FAILED)" },
  "checkout.sim.pin": { en: "wrong PIN (FAILED)", sw: "PIN si sahihi (FAILED)" },
  "checkout.unconfirmed": {
    en: "M-Pesa did not confirm the prompt. If one reaches your phone, you may pay it; do not pay twice.",
    sw: "M-Pesa haikuthibitisha ombi la malipo. Likifika kwenye simu yako, unaweza kulipa; tafadhali usilipe mara mbili.",
  },
  "checkout.checkPhone": { en: "Order {order}. Check your phone: enter your M-Pesa PIN to pay.", sw: "Oda {order}. Tafadhali angalia simu yako: weka PIN yako ya M-Pesa ili ulipe." },
  "checkout.payFromMenuOrder": { en: "Order {order}: pay it from the M-Pesa menu.", sw: "Oda {order}: tafadhali ilipe kutoka kwa menyu ya M-Pesa." },
  "checkout.menuNotSetUp": { en: "Paying from the M-Pesa menu is not set up for this shop.", sw: "Kulipa kutoka kwa menyu ya M-Pesa hakujawekwa kwa duka hili." },
  "checkout.simulatedPhone": { en: "Pay it on the simulated phone", sw: "Lipa kwenye simu ya kuigiza" },
  "checkout.phonePaid": { en: "The phone paid: M-Pesa sent {receipt}.", sw: "Simu imelipa: M-Pesa imetuma {receipt}." },
  "checkout.phoneCancelled": { en: "M-Pesa cancelled the payment ({reason}).", sw: "M-Pesa imeghairi malipo ({reason})." },
  "checkout.step.open": { en: "Open M-Pesa → Lipa na M-Pesa → Pay Bill.", sw: "Fungua M-Pesa → Lipa na M-Pesa → Pay Bill." },
  "checkout.step.business": { en: "Business number: ", sw: "Nambari ya biashara: " },
  "checkout.step.account": { en: "Account number (your order number): ", sw: "Nambari ya akaunti (nambari ya oda yako): " },
  "checkout.step.amount": { en: "Amount: {amount}, then your PIN.", sw: "Kiasi: {amount}, kisha PIN yako." },
  "checkout.orderStatus": { en: "Order status: ", sw: "Hali ya oda: " },
  "checkout.noPhone": { en: "No phone at hand? The Daraja simulator pays it for you:", sw: "Huna simu karibu? Kiigaji cha Daraja kitakulipia:" },
  "checkout.qr.title": { en: "Or scan to pay", sw: "Au skani ili ulipe" },
  "checkout.qr.hint": {
    en: "Scan it in the M-Pesa app: the shop, the amount and your order number are filled in.",
    sw: "Iskani kwenye programu ya M-Pesa: duka, kiasi na nambari ya oda yako vitajazwa.",
  },
  "checkout.qr.alt": { en: "QR code to pay order {order}", sw: "Msimbo wa QR wa kulipia oda {order}" },
  "checkout.qr.unavailable": { en: "No QR code for this order: {reason}", sw: "Hakuna msimbo wa QR kwa oda hii: {reason}" },
  "checkout.simulatedScan": { en: "Scan it with the simulated phone", sw: "Iskani kwa simu ya kuigiza" },
  "checkout.paidFromMenu": { en: "Paid from the M-Pesa menu. M-Pesa receipt ", sw: "Imelipwa kutoka kwa menyu ya M-Pesa. Risiti ya M-Pesa " },
  "checkout.payment": { en: "Payment", sw: "Malipo" },
  "checkout.status": { en: "Status: ", sw: "Hali: " },
  "checkout.promptSent": { en: "prompt sent: ", sw: "ombi la malipo limetumwa: " },
  "checkout.paid": { en: "Paid {amount} from {phone}. M-Pesa receipt ", sw: "Umelipa {amount} kutoka {phone}. Risiti ya M-Pesa " },
  // Devices
  "devices.title": { en: "Where you are signed in", sw: "Mahali ulipoingia" },
  "devices.signOutOthers": { en: "Sign out all other devices", sw: "Toa vifaa vingine vyote" },
  "devices.othersEnded": { en: "Other sessions ended.", sw: "Vikao vingine vimekamilishwa." },
  "devices.loadFailed": { en: "Could not load your devices.", sw: "Imeshindikana kupakia vifaa vyako." },
  "devices.signOutHere": { en: "Sign out here", sw: "Toka hapa" },
  "devices.endSession": { en: "End this session", sw: "Maliza kikao hiki" },
  "devices.unknownBrowser": { en: "Unknown browser", sw: "Kivinjari kisichojulikana" },
  "devices.thisDevice": { en: "this device", sw: "kifaa hiki" },
  "devices.details": { en: "IP {ip} · signed in {created} · last used {used}", sw: "IP {ip} · uliingia {created} · ilitumika mwisho {used}" },
  "devices.unknown": { en: "unknown", sw: "haijulikani" },
  // My data
  "myData.download": { en: "Download my data (JSON)", sw: "Pakua data yangu (JSON)" },
  "myData.downloaded": {
    en: "Downloaded: {addresses} addresses, {sessions} sessions, {payments} payments, {events} security events.",
    sw: "Imepakuliwa: anwani {addresses}, vikao {sessions}, malipo {payments}, matukio ya usalama {events}.",
  },
  "myData.delete": { en: "Delete my account", sw: "Futa akaunti yangu" },
  "myData.title": { en: "Your data", sw: "Data yako" },
  "myData.hint": {
    en: "A copy of your profile, addresses, sessions, payments and security events. You will get an email about it.",
    sw: "Nakala ya wasifu wako, anwani, vikao, malipo na matukio ya usalama. Utapokea barua pepe kuihusu.",
  },
  "myData.deleteTitle": { en: "Delete your account", sw: "Futa akaunti yako" },
  "myData.deleteHint": {
    en: "Your personal details, addresses and sessions are removed. Payment records are kept, as the law requires, without your full phone number.",
    sw: "Taarifa zako binafsi, anwani na vikao vinafutwa. Rekodi za malipo zinahifadhiwa, kama sheria inavyotaka, bila nambari yako kamili ya simu.",
  },
  // Errors as the page shows them
  "error.retryAfter": { en: "Try again in {seconds} s.", sw: "Tafadhali jaribu tena baada ya sekunde {seconds}." },
  // Dev outbox
  "outbox.mailsElsewhere": {
    en: "The dev outbox answers only the machine that runs npm start (and never in production): open the demo there, or the link in the email.",
    sw: "Kikasha cha majaribio kinajibu tu kompyuta inayoendesha npm start (na kamwe si kwenye uzalishaji): tafadhali fungua demo hapo, au kiungo kilicho kwenye barua pepe.",
  },
  "outbox.textsElsewhere": {
    en: "The dev outbox answers only the machine that runs npm start (and never in production): read the code on your phone.",
    sw: "Kikasha cha majaribio kinajibu tu kompyuta inayoendesha npm start (na kamwe si kwenye uzalishaji): tafadhali soma nambari kwenye simu yako.",
  },
  "outbox.noCode": { en: "No code in the dev outbox yet: try again in a moment.", sw: "Bado hakuna nambari kwenye kikasha cha majaribio: tafadhali jaribu tena baada ya muda mfupi." },
  "outbox.answered": { en: "The dev outbox answered HTTP {status}.", sw: "Kikasha cha majaribio kimejibu HTTP {status}." },
  "outbox.mailLine": { en: "{kind} · to {to} · {when}", sw: "{kind} · kwa {to} · {when}" },
  // Mail links
  "links.verifying": { en: "Verifying {email}…", sw: "Inathibitisha {email}…" },
  "links.verifyTitle": { en: "Verify your email", sw: "Thibitisha barua pepe yako" },
  "links.toShop": { en: "Go to the shop", sw: "Nenda dukani" },
  "links.resetFor": { en: "For {email}. Every session of the account is signed out.", sw: "Kwa {email}. Kila kikao cha akaunti kitatolewa." },
  "links.newPassword": { en: "New password", sw: "Nenosiri jipya" },
  "links.setPassword": { en: "Set new password", sw: "Weka nenosiri jipya" },
  "links.signIn": { en: "Sign in", sw: "Ingia" },
  "links.resetTitle": { en: "Choose a new password", sw: "Chagua nenosiri jipya" },
  "links.changeTitle": { en: "Confirm your new email", sw: "Thibitisha barua pepe yako mpya" },
  "links.changing": { en: "Changing your email to {email}…", sw: "Inabadilisha barua pepe yako kuwa {email}…" },
  "links.changed": { en: "Your email is now {email}.", sw: "Barua pepe yako sasa ni {email}." },
  "links.changeSignInFirst": {
    en: "Please sign in to the shop in this browser first, then open the link again: it changes the email of the account signed in here.",
    sw: "Tafadhali ingia kwenye duka kwenye kivinjari hiki kwanza, kisha ufungue kiungo tena: kinabadilisha barua pepe ya akaunti iliyoingia hapa.",
  },
  // Changing (or adding) the account's email
  "email.changeTitle": { en: "Change email", sw: "Badilisha barua pepe" },
  "email.addTitle": { en: "Add an email", sw: "Ongeza barua pepe" },
  "email.new": { en: "New email", sw: "Barua pepe mpya" },
  "email.send": { en: "Send me a link", sw: "Nitumie kiungo" },
  "email.hint": {
    en: "The link goes to the new address; your email changes when it is opened here. Your other devices are then signed out.",
    sw: "Kiungo kitatumwa kwa anwani mpya; barua pepe yako itabadilika kikifunguliwa hapa. Kisha utatolewa kwenye vifaa vyako vingine.",
  },
  "email.confirmWithLink": { en: "Confirm with this link", sw: "Thibitisha kwa kiungo hiki" },
} satisfies Record<string, Text>;

export type TextKey = keyof typeof texts;

/** The text in the page's current language, `{name}` placeholders filled from `values`. */
export function t(key: TextKey, values: Record<string, string | number> = {}): string {
  const template: string = texts[key][currentLanguage()];
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

/** Shillings as Kenyans write them, in both languages: "KSh 1,500". */
export function money(amount: number | string): string {
  return `KSh ${Number(amount).toLocaleString("en-KE", { maximumFractionDigits: 2 })}`;
}
