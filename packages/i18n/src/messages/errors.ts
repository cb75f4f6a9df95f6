/**
 * Error messages: `error.<CODE>` is the message of each code of packages/domain/src/shared/errors.ts (the
 * domain fails to compile while a code has none), then the specific messages the domain raises, by area.
 * Terms: docs/i18n-glossary.md.
 */
import type { Bilingual } from "../catalogue.js";

export const errorMessages = {
  // One per error code.
  "error.VALIDATION_ERROR": { en: "The request is invalid.", sw: "Ombi si sahihi." },
  "error.MALFORMED_REQUEST": { en: "Malformed request.", sw: "Muundo wa ombi si sahihi." },
  "error.TENANT_REQUIRED": { en: "The X-Tenant-ID header is required.", sw: "Kichwa cha X-Tenant-ID kinahitajika." },
  "error.TENANT_NOT_FOUND": { en: "No active tenant has this X-Tenant-ID.", sw: "Hakuna duka linalotumika lenye X-Tenant-ID hii." },
  "error.USER_EXISTS": { en: "An account with this email already exists.", sw: "Tayari kuna akaunti yenye barua pepe hii." },
  "error.INVALID_CREDENTIALS": { en: "The email or password is incorrect.", sw: "Barua pepe au nenosiri si sahihi." },
  "error.INVALID_OTP": { en: "The code is incorrect.", sw: "Nambari ya kuthibitisha si sahihi." },
  "error.INVALID_TOKEN": { en: "The access token is invalid or expired.", sw: "Tokeni ya ufikiaji si sahihi au muda wake umekwisha." },
  "error.AUTH_REQUIRED": { en: "Please sign in first.", sw: "Tafadhali ingia kwanza." },
  "error.FORBIDDEN": { en: "You are not allowed to do this.", sw: "Huruhusiwi kufanya kitendo hiki." },
  "error.NOT_FOUND": { en: "Not found.", sw: "Haikupatikana." },
  "error.RATE_LIMITED": { en: "Too many attempts; please wait before trying again.", sw: "Majaribio ni mengi mno; tafadhali subiri kidogo kabla ya kujaribu tena." },
  "error.OTP_NOT_SETUP": { en: "Two-factor authentication is not enabled.", sw: "Uthibitishaji wa hatua mbili haujawashwa." },
  "error.OTP_ALREADY_ENABLED": { en: "Two-factor authentication is already enabled.", sw: "Uthibitishaji wa hatua mbili tayari umewashwa." },
  "error.EMAIL_NOT_VERIFIED": { en: "Please verify your email address before signing in.", sw: "Tafadhali thibitisha anwani yako ya barua pepe kabla ya kuingia." },
  "error.PAYMENT_PROVIDER_ERROR": { en: "M-Pesa refused the request.", sw: "M-Pesa imekataa ombi hili." },
  "error.PAYMENT_PROVIDER_UNAVAILABLE": { en: "M-Pesa could not be reached; please try again shortly.", sw: "Imeshindikana kufikia M-Pesa; tafadhali jaribu tena baada ya muda mfupi." },
  "error.REFERENCE_IN_USE": { en: "Another open payment intent of this shop has this reference.", sw: "Agizo lingine la malipo lililo wazi la duka hili tayari lina kumbukumbu hii." },
  "error.INTENT_NOT_PAYABLE": {
    en: "This payment intent cannot be paid now: a payment is pending, or it is paid, cancelled or expired.",
    sw: "Agizo hili la malipo haliwezi kulipwa sasa: kuna malipo yanayosubiri, au tayari limelipwa, limeghairiwa au muda wake umekwisha.",
  },
  "error.INTENT_NOT_CANCELLABLE": { en: "This payment intent can no longer be cancelled.", sw: "Agizo hili la malipo haliwezi kughairiwa tena." },
  "error.PAYLOAD_TOO_LARGE": { en: "The request body is too large.", sw: "Maudhui ya ombi ni makubwa mno." },
  "error.INTERNAL_ERROR": { en: "Something went wrong on our side.", sw: "Hitilafu imetokea upande wetu. Tafadhali jaribu tena baadaye." },
  "error.REVERSAL_EXISTS": {
    en: "This payment already has a reversal that is pending or done.",
    sw: "Malipo haya tayari yana urejeshaji unaoendelea au uliokamilika.",
  },
  "error.PAYMENT_NOT_REVERSIBLE": { en: "Only a successful payment can be reversed.", sw: "Ni malipo yaliyofanikiwa pekee yanayoweza kurejeshwa." },
  "error.PAYMENT_NOT_REFUNDABLE": { en: "This payment cannot be refunded.", sw: "Pesa za malipo haya haziwezi kurejeshwa." },
  "error.PHONE_IN_USE": {
    en: "This phone number is already verified on another account.",
    sw: "Nambari hii ya simu tayari imethibitishwa kwenye akaunti nyingine.",
  },
  "error.SERVICE_UNAVAILABLE": {
    en: "The service is unavailable for a moment; please try again shortly.",
    sw: "Huduma haipatikani kwa muda; tafadhali jaribu tena baada ya muda mfupi.",
  },
  "error.SMS_UNAVAILABLE": {
    en: "Text messages cannot be sent from this shop right now; please try again later.",
    sw: "Ujumbe mfupi hauwezi kutumwa kutoka duka hili kwa sasa; tafadhali jaribu tena baadaye.",
  },
  "error.EMAIL_IN_USE": {
    en: "Another account of this shop uses this email address.",
    sw: "Akaunti nyingine ya duka hili inatumia anwani hii ya barua pepe.",
  },
  "error.TENANT_EXISTS": {
    en: "A tenant with this id already exists.",
    sw: "Tayari kuna duka lenye kitambulisho hiki.",
  },
  "error.STEP_UP_REQUIRED": {
    en: "Please confirm it is you before this change: sign in again or reauthenticate (POST /api/v1/auth/reauthenticate), then retry.",
    sw: "Tafadhali thibitisha kwamba ni wewe kabla ya badiliko hili: ingia tena au jithibitishe upya (POST /api/v1/auth/reauthenticate), kisha ujaribu tena.",
  },
  "error.ACCOUNT_EXISTS": {
    en: "An account with this email already exists: sign in to it, then link your Google account.",
    sw: "Akaunti yenye barua pepe hii tayari ipo: ingia kwenye akaunti hiyo, kisha uunganishe akaunti yako ya Google.",
  },
  "error.IDENTITY_IN_USE": {
    en: "This Google account is already linked to another account.",
    sw: "Akaunti hii ya Google tayari imeunganishwa na akaunti nyingine.",
  },
  "error.LAST_SIGN_IN_METHOD": {
    en: "This is the last way to sign in to your account: add another (a password, a verified phone or another passkey) before removing it.",
    sw: "Hii ndiyo njia ya mwisho ya kuingia kwenye akaunti yako: ongeza nyingine (nenosiri, simu iliyothibitishwa au passkey nyingine) kabla ya kuiondoa.",
  },
  "error.NO_VERIFIED_PHONE": {
    en: "This account has no verified phone to text a code to; confirm with your password instead.",
    sw: "Akaunti hii haina nambari ya simu iliyothibitishwa ya kutumiwa nambari ya kuthibitisha; tafadhali thibitisha kwa nenosiri lako.",
  },

  // Credentials and access (packages/domain/src/trpc.ts, api-keys/credential.ts).
  "access.token_required": { en: "An access token is required (Authorization: Bearer <token>).", sw: "Tokeni ya ufikiaji inahitajika (Authorization: Bearer <token>)." },
  "access.token_wrong_tenant": { en: "The access token is not valid for this tenant.", sw: "Tokeni ya ufikiaji haitumiki kwa duka hili." },
  "access.customer_token_needed": { en: "This operation takes a customer's access token, not an API key.", sw: "Kitendo hiki kinahitaji tokeni ya ufikiaji ya mteja, si ufunguo wa API." },
  "access.api_key_needed": { en: "This operation takes an API key (Authorization: Bearer mk_…), not an access token.", sw: "Kitendo hiki kinahitaji ufunguo wa API (Authorization: Bearer mk_…), si tokeni ya ufikiaji." },
  "access.api_key_required": { en: "An API key is required (Authorization: Bearer mk_…).", sw: "Ufunguo wa API unahitajika (Authorization: Bearer mk_…)." },
  "access.api_key_invalid": { en: "The API key is not valid for this tenant, or has been revoked.", sw: "Ufunguo wa API hautumiki kwa duka hili, au umebatilishwa." },
  "access.admin_role_needed": { en: "This operation needs the admin role.", sw: "Kitendo hiki kinahitaji jukumu la msimamizi." },
  "access.admin_key_required": { en: "The admin API key is required.", sw: "Ufunguo wa API wa msimamizi unahitajika." },
  "access.admin_key_invalid": { en: "The admin API key is not valid.", sw: "Ufunguo wa API wa msimamizi si sahihi." },

  // Sign-in, sessions, recovery.
  "auth.no_refresh_cookie": { en: "No refresh cookie was sent.", sw: "Hakuna kidakuzi cha kikao kilichotumwa." },
  "auth.refresh_cookie_invalid": {
    en: "The refresh cookie is invalid or expired; please sign in again.",
    sw: "Kidakuzi cha kikao si sahihi au muda wake umekwisha; tafadhali ingia tena.",
  },
  "auth.sign_in_step_expired": {
    en: "The sign-in step has expired or is no longer valid; please sign in again.",
    sw: "Muda wa hatua hii ya kuingia umekwisha au haitumiki tena; tafadhali ingia tena.",
  },
  "auth.link_invalid": { en: "This link is invalid or has expired. Please request a new one.", sw: "Kiungo hiki si sahihi au muda wake umekwisha. Tafadhali omba kiungo kipya." },
  "auth.email_link_other_session": {
    en: "This link works only where the change was asked for: open it on that device, signed in as you were then.",
    sw: "Kiungo hiki kinafanya kazi tu pale mabadiliko yalipoombwa: tafadhali kifungue kwenye kifaa hicho, ukiwa umeingia kama ulivyokuwa wakati huo.",
  },
  "auth.hashing_busy": {
    en: "Too many sign-in attempts are being processed; try again shortly.",
    sw: "Majaribio mengi ya kuingia yanashughulikiwa kwa sasa; tafadhali jaribu tena baada ya muda mfupi.",
  },
  "auth.current_password_wrong": { en: "The current password is incorrect.", sw: "Nenosiri la sasa si sahihi." },
  "auth.password_wrong": { en: "The password is incorrect.", sw: "Nenosiri si sahihi." },
  "otp.set_up_first": {
    en: "Set up two-factor authentication first (POST /api/v1/auth/otp/setup).",
    sw: "Tafadhali weka kwanza uthibitishaji wa hatua mbili (POST /api/v1/auth/otp/setup).",
  },

  // Not found, by what was looked for.
  "not_found.tenant": { en: "No tenant has this id.", sw: "Hakuna duka lenye kitambulisho hiki." },
  "not_found.user": { en: "No user of this tenant has this id.", sw: "Hakuna mtumiaji wa duka hili mwenye kitambulisho hiki." },
  "not_found.passkey": { en: "You have no passkey with this id.", sw: "Huna passkey yenye kitambulisho hiki." },
  "not_found.session": { en: "You have no session with this id.", sw: "Huna kipindi cha kuingia chenye kitambulisho hiki." },
  "not_found.address": { en: "No address with this id.", sw: "Hakuna anwani yenye kitambulisho hiki." },
  "not_found.api_key": { en: "This tenant has no API key with this id.", sw: "Duka hili halina ufunguo wa API wenye kitambulisho hiki." },
  "not_found.intent": { en: "No payment intent of this shop has this id.", sw: "Duka hili halina agizo la malipo lenye kitambulisho hiki." },
  "not_found.shop_payment": { en: "No payment of this shop has this id.", sw: "Duka hili halina malipo yenye kitambulisho hiki." },
  "not_found.refund": { en: "No refund of this shop has this id.", sw: "Duka hili halina marejesho ya pesa yenye kitambulisho hiki." },
  "not_found.checkout": { en: "No payment with this checkoutRequestId.", sw: "Hakuna malipo yenye checkoutRequestId hii." },
  "not_found.payout": { en: "No payout with this originatorConversationId.", sw: "Hakuna malipo ya kutuma yenye originatorConversationId hii." },
  "not_found.webhook_event": { en: "No webhook event with this id.", sw: "Hakuna tukio la webhook lenye kitambulisho hiki." },
  "not_found.webhook_endpoint": { en: "No webhook endpoint with this id.", sw: "Hakuna anwani ya webhook yenye kitambulisho hiki." },

  // Limits and conflicts.
  "limits.addresses": {
    en: "You can keep at most {max} addresses; delete one to add another.",
    sw: "Unaweza kuhifadhi anwani zisizozidi {max}; tafadhali futa moja ili kuongeza nyingine.",
  },
  "limits.api_keys": {
    en: "A tenant has at most {max} API keys that are not revoked; revoke one first.",
    sw: "Duka linaweza kuwa na funguo za API zisizozidi {max} ambazo hazijabatilishwa; batilisha mmoja kwanza.",
  },
  "limits.webhook_endpoints": {
    en: "A tenant has at most {max} webhook endpoints; delete one first.",
    sw: "Duka linaweza kuwa na anwani za webhook zisizozidi {max}; futa moja kwanza.",
  },
  "limits.webhook_redeliveries": {
    en: "This event was sent again too often in the last hour; try again later.",
    sw: "Tukio hili limetumwa tena mara nyingi mno katika saa iliyopita; jaribu tena baadaye.",
  },
  "limits.status_streams": {
    en: "At most {max} payment status subscriptions can be open at once; close one first.",
    sw: "Unaweza kuwa na ufuatiliaji {max} tu wa hali ya malipo ulio wazi kwa wakati mmoja; funga mmoja kwanza.",
  },
  "tenants.id_taken": { en: "A tenant with this id already exists.", sw: "Tayari kuna duka lenye kitambulisho hiki." },
  "intents.not_cancellable": {
    en: "This payment intent is {status}: it can no longer be cancelled.",
    sw: "Agizo hili la malipo lina hali {status}: haliwezi kughairiwa tena.",
  },

  // Payments and payouts.
  "payments.idempotency_key_invalid": { en: "The Idempotency-Key header is invalid.", sw: "Kichwa cha Idempotency-Key si sahihi." },
  "payments.idempotency_key_reused": {
    en: "This Idempotency-Key was already used for a different request.",
    sw: "Idempotency-Key hii tayari imetumika kwa ombi jingine.",
  },
  "payments.not_configured": {
    en: "M-Pesa payments are not configured on this service.",
    sw: "Malipo ya M-Pesa hayajawekwa kwenye huduma hii.",
  },
  "payouts.service_not_configured": {
    en: "M-Pesa payouts (B2C) are not configured on this service.",
    sw: "Malipo ya kutuma ya M-Pesa (B2C) hayajawekwa kwenye huduma hii.",
  },
  "payouts.switched_off": {
    en: "Payouts are switched off for this shop (settings.momo.b2c.enabled).",
    sw: "Malipo ya kutuma yamezimwa kwa duka hili (settings.momo.b2c.enabled).",
  },
  "payouts.not_switched_on": {
    en: "Payouts are not switched on for this shop (settings.momo.b2c.enabled).",
    sw: "Malipo ya kutuma hayajawashwa kwa duka hili (settings.momo.b2c.enabled).",
  },
  "payouts.not_configured": {
    en: "M-Pesa payouts (B2C) are not configured for this shop.",
    sw: "Malipo ya kutuma ya M-Pesa (B2C) hayajawekwa kwa duka hili.",
  },

  // Phone sign-in (docs/phone-sign-in.md).
  "google.token_refused": {
    en: "The Google sign-in could not be verified; please try again.",
    sw: "Kuingia kwa Google hakukuweza kuthibitishwa; tafadhali jaribu tena.",
  },
  "google.not_set_up": { en: "This shop does not offer Sign in with Google.", sw: "Duka hili halitoi huduma ya kuingia kwa Google." },
  "google.not_linked": { en: "No Google account is linked to this account.", sw: "Hakuna akaunti ya Google iliyounganishwa na akaunti hii." },
  "google.other_account_linked": {
    en: "Another Google account is already linked to this account: unlink it first.",
    sw: "Akaunti nyingine ya Google tayari imeunganishwa na akaunti hii: iondoe kwanza.",
  },
  "phone.code_wrong_or_expired": {
    en: "The code is incorrect or has expired.",
    sw: "Nambari ya kuthibitisha si sahihi au muda wake umekwisha.",
  },
  "phone.in_use": { en: "This phone number is verified on another account.", sw: "Nambari hii ya simu imethibitishwa kwenye akaunti nyingine." },
  "phone.too_many_codes": {
    en: "Too many codes were sent to this phone; please wait before trying again.",
    sw: "Nambari nyingi mno zimetumwa kwa simu hii; tafadhali subiri kabla ya kujaribu tena.",
  },

  // C2B (docs/mpesa.md#c2b).
  "c2b.no_own_shortcode": {
    en: "This shop has no short code of its own to register.",
    sw: "Duka hili halina nambari fupi (short code) yake ya kusajili.",
  },

  // Payments that never called back: Pull Transactions (docs/mpesa.md#recovery).
  "pull.no_own_shortcode": {
    en: "This shop has no short code of its own to pull M-Pesa receipts for.",
    sw: "Duka hili halina nambari fupi (short code) yake ya kuvuta risiti za M-Pesa.",
  },
  "pull.not_configured": {
    en: "Pulling M-Pesa receipts (Pull Transactions) is not configured on this service.",
    sw: "Kuvuta risiti za M-Pesa (Pull Transactions) hakujawekwa kwenye huduma hii.",
  },

  // Pay by QR (docs/payment-intents.md#pay-by-qr).
  "qr.not_configured": {
    en: "M-Pesa QR codes are not configured on this service.",
    sw: "Misimbo ya QR ya M-Pesa haijawekwa kwenye huduma hii.",
  },
  "qr.till_only": {
    en: "This shop is paid through a till only: a QR code needs a paybill, whose payments carry the order's reference.",
    sw: "Duka hili linalipwa kupitia till pekee: msimbo wa QR unahitaji paybill, ambayo malipo yake hubeba kumbukumbu ya oda.",
  },

  // Reversals (docs/mpesa.md#reversals).
  "reversals.service_not_configured": {
    en: "M-Pesa reversals are not configured on this service.",
    sw: "Urejeshaji wa malipo ya M-Pesa haujawekwa kwenye huduma hii.",
  },
  "reversals.initiator_missing": {
    en: "M-Pesa reversals need the shop's initiator (B2C) credentials.",
    sw: "Urejeshaji wa malipo ya M-Pesa unahitaji vitambulisho vya mwanzilishi (B2C) vya duka.",
  },
  "reversals.not_reversible": {
    en: "Only a successful payment with an M-Pesa receipt can be reversed.",
    sw: "Ni malipo yaliyofanikiwa yenye risiti ya M-Pesa pekee yanayoweza kurejeshwa.",
  },
  "reversals.exists": {
    en: "This payment already has a reversal or a refund ({status}); only after a FAILED one can another be made.",
    sw: "Malipo haya tayari yana urejeshaji au marejesho ya pesa ({status}); mengine yanaweza kufanywa tu baada ya yale yaliyoshindwa (FAILED).",
  },

  // Refunds (docs/mpesa.md#refunds).
  "refunds.service_not_configured": {
    en: "M-Pesa refunds are not configured on this service.",
    sw: "Marejesho ya pesa ya M-Pesa hayajawekwa kwenye huduma hii.",
  },
  "refunds.initiator_missing": {
    en: "M-Pesa refunds need the shop's initiator (B2C) credentials.",
    sw: "Marejesho ya pesa ya M-Pesa yanahitaji vitambulisho vya mwanzilishi (B2C) vya duka.",
  },
  "refunds.not_succeeded": {
    en: "Only a successful payment can be refunded.",
    sw: "Ni malipo yaliyofanikiwa pekee yanayoweza kurejeshewa pesa.",
  },
  "refunds.masked_phone_part": {
    en: "Only the whole of this payment can be refunded: the payer's phone is not stored in full (M-Pesa masks it), so nothing can be sent to it.",
    sw: "Malipo haya yanaweza kurejeshewa pesa zote pekee: nambari ya simu ya mlipaji haijahifadhiwa kamili (M-Pesa huificha), kwa hivyo hakuna kinachoweza kutumwa kwake.",
  },
  "refunds.no_receipt_no_phone": {
    en: "This payment has neither an M-Pesa receipt nor the payer's full phone number, so it cannot be refunded.",
    sw: "Malipo haya hayana risiti ya M-Pesa wala nambari kamili ya simu ya mlipaji, kwa hivyo hayawezi kurejeshewa pesa.",
  },
  "refunds.b2c_under_minimum": {
    en: "A refund sent by B2C must be at least {min} shillings (Daraja's minimum).",
    sw: "Marejesho ya pesa yanayotumwa kwa B2C lazima yawe angalau {min:money} (kiwango cha chini cha Daraja).",
  },
  "refunds.b2c_switched_off": {
    en: "This refund is sent by B2C, and B2C is switched off for this shop (settings.momo.b2c.enabled).",
    sw: "Marejesho haya ya pesa hutumwa kwa B2C, na B2C imezimwa kwa duka hili (settings.momo.b2c.enabled).",
  },
  "refunds.b2c_not_switched_on": {
    en: "This refund is sent by B2C, and B2C is not switched on for this shop (settings.momo.b2c.enabled).",
    sw: "Marejesho haya ya pesa hutumwa kwa B2C, na B2C haijawashwa kwa duka hili (settings.momo.b2c.enabled).",
  },
  "refunds.idempotency_key_required": {
    en: "A refund needs an Idempotency-Key header, so that a retry never refunds twice.",
    sw: "Marejesho ya pesa yanahitaji kichwa cha Idempotency-Key, ili jaribio la pili lisirejeshe pesa mara mbili.",
  },
  "access.api_key_or_admin_required": {
    en: "An API key or an admin's access token is required (Authorization: Bearer …).",
    sw: "Ufunguo wa API au tokeni ya ufikiaji ya msimamizi unahitajika (Authorization: Bearer …).",
  },
  "access.api_key_or_admin_needed": {
    en: "This operation needs an API key or the admin role.",
    sw: "Kitendo hiki kinahitaji ufunguo wa API au jukumu la msimamizi.",
  },
  "access.live_only": {
    en: "This operation moves live money only: use a live API key (mk_live_…), not a test key.",
    sw: "Kitendo hiki ni cha pesa halisi pekee: tumia ufunguo wa API wa moja kwa moja (mk_live_…), si ufunguo wa majaribio.",
  },

  // The request itself (apps/api/src/http).
  "http.body_not_json": {
    en: "The request body must be valid JSON sent as application/json.",
    sw: "Maudhui ya ombi lazima yawe JSON sahihi yaliyotumwa kama application/json.",
  },
  "http.body_not_object": { en: "The request body must be a JSON object.", sw: "Maudhui ya ombi lazima yawe kitu (object) cha JSON." },
  "http.body_too_deep": {
    en: "The request body is nested too deeply (at most {max} levels).",
    sw: "Maudhui ya ombi yana ngazi nyingi mno (zisizozidi {max}).",
  },
  "http.body_proto_key": { en: "The request body must not use the key __proto__.", sw: "Maudhui ya ombi hayaruhusiwi kutumia ufunguo __proto__." },
  "http.url_malformed": { en: "The request URL is malformed.", sw: "URL ya ombi si sahihi." },
  "http.too_slow": { en: "The request did not arrive in time.", sw: "Ombi halikufika kwa wakati." },
  "http.headers_too_large": { en: "The request's URL or headers are too large.", sw: "URL au vichwa vya ombi ni vikubwa mno." },
  "http.not_http": { en: "The request is not valid HTTP.", sw: "Ombi si HTTP sahihi." },
  "http.stream_needs_streaming_link": {
    en: "This operation answers a file: call its REST path, or use a streaming tRPC link (httpBatchStreamLink).",
    sw: "Kitendo hiki hujibu faili: tumia njia yake ya REST, au kiungo cha tRPC cha mtiririko (httpBatchStreamLink).",
  },
} as const satisfies Record<string, Bilingual>;
