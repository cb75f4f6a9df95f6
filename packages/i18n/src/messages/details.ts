/**
 * The `details[].message` of a field the domain itself refuses (after the input schemas passed).
 * A detail names its field in `path`; the message reads after it.
 */
import type { Bilingual } from "../catalogue.js";

export const detailMessages = {
  "detail.cursor": { en: "cursor is not a next_cursor of this list", sw: "cursor si next_cursor ya orodha hii" },
  "detail.cursor_camel": { en: "cursor is not a nextCursor of this list", sw: "cursor si nextCursor ya orodha hii" },
  "detail.user_not_customer": { en: "user_id is not a customer of this shop", sw: "user_id si mteja wa duka hili" },
  "detail.addresses_full": { en: "at most {max} addresses per customer", sw: "mteja anaweza kuwa na anwani zisizozidi {max}" },
  "detail.api_keys_full": {
    en: "this tenant already has {max} API keys that are not revoked",
    sw: "duka hili tayari lina funguo za API {max} ambazo hazijabatilishwa",
  },
  "detail.webhook_endpoints_full": { en: "this tenant already has {max} webhook endpoints", sw: "duka hili tayari lina anwani za webhook {max}" },
  "detail.webhook_url_refused": {
    en: "{reason}",
    sw: "anwani hii haikubaliki kwa webhook: lazima iwe https na ya mtandao wa umma ({reason})",
  },
  "detail.tenant_id_taken": { en: "already exists", sw: "tayari kipo" },
  "detail.reference_in_use": {
    en: "{reference} is the reference of an intent that requires payment or is processing",
    sw: "{reference} ni kumbukumbu ya agizo la malipo linalosubiri malipo au linaloshughulikiwa",
  },
  "detail.intent_required": {
    en: "intent_id is required: this shop takes payments for payment intents only",
    sw: "intent_id inahitajika: duka hili hupokea malipo ya maagizo ya malipo pekee",
  },
  "detail.amount_not_intents": {
    en: "amount must be the payment intent's amount ({amount}) or left out",
    sw: "amount lazima iwe kiasi cha agizo la malipo ({amount:money}) au iachwe bila kujazwa",
  },
  "detail.amount_below_shop_min": { en: "amount must be at least {min} for this shop", sw: "amount lazima iwe angalau {min:money} kwa duka hili" },
  "detail.amount_over_shop_max": { en: "amount must be at most {max} for this shop", sw: "amount isizidi {max:money} kwa duka hili" },
  "detail.payout_over_max": { en: "amount must be at most {max} for a payout from this shop", sw: "amount isizidi {max:money} kwa malipo ya kutuma kutoka duka hili" },
  "detail.payout_over_daily_limit": {
    en: "amount is over this shop's daily payout limit of {limit} ({left} left today)",
    sw: "amount inazidi kikomo cha kila siku cha malipo ya kutuma cha duka hili cha {limit:money} (kimebaki {left:money} leo)",
  },
  "detail.refund_over_remaining": {
    en: "amount must be at most {left}, what is left to refund of this payment",
    sw: "amount isizidi {left:money}, kiasi kilichobaki cha kurejeshwa cha malipo haya",
  },
  "detail.refund_nothing_left": {
    en: "nothing is left to refund of this payment (refunds that are not failed count)",
    sw: "hakuna kilichobaki cha kurejeshwa cha malipo haya (marejesho ambayo hayajashindwa huhesabiwa)",
  },
  "detail.refund_over_daily_limit": {
    en: "amount is over this shop's daily B2C limit of {limit} ({left} left today; payouts and refunds by B2C count)",
    sw: "amount inazidi kikomo cha kila siku cha B2C cha duka hili cha {limit:money} (kimebaki {left:money} leo; malipo ya kutuma na marejesho ya pesa kwa B2C huhesabiwa)",
  },
  "detail.idempotency_key_required": {
    en: "required: 1-255 visible ASCII characters (a UUID is a good choice)",
    sw: "inahitajika: herufi 1 hadi 255 za ASCII zinazoonekana (UUID inafaa)",
  },
  "detail.idempotency_key_format": {
    en: "must be 1-255 visible ASCII characters (a UUID is a good choice)",
    sw: "lazima iwe herufi 1 hadi 255 za ASCII zinazoonekana (UUID inafaa)",
  },
  "detail.idempotency_key_reused": {
    en: "already used with a different body; use a new key for a new request",
    sw: "tayari imetumika na maudhui tofauti; tumia ufunguo mpya kwa ombi jipya",
  },
  "detail.credentials_all_or_nothing": {
    en: "required: a shop's M-Pesa credentials are all or nothing",
    sw: "inahitajika: vitambulisho vya M-Pesa vya duka hutolewa vyote au havitolewi kabisa",
  },
  "detail.till_required": {
    en: "required with transactionType CustomerBuyGoodsOnline (the till customers pay into)",
    sw: "inahitajika pamoja na transactionType CustomerBuyGoodsOnline (nambari ya till ambayo wateja hulipia)",
  },
  "detail.payouts_need_own_account": {
    en: "payouts need the shop's own B2C account ({fields})",
    sw: "malipo ya kutuma yanahitaji akaunti ya B2C ya duka lenyewe ({fields})",
  },
  "detail.redirect_uri_not_listed": {
    en: "is not one of the shop's redirect URIs for Sign in with Google (settings.oidc.google.redirectUris)",
    sw: "si mojawapo ya anwani za kurudi za duka za kuingia kwa Google (settings.oidc.google.redirectUris)",
  },
  "detail.secret_nothing_to_keep": {
    en: "nothing is stored to keep: send the {field} itself",
    sw: "hakuna kilichohifadhiwa cha kubakiza: tuma {field} yenyewe",
  },
  "detail.c2b_needs_own_shortcode": {
    en: "C2B needs the shop's own short code (only the default tenant uses the platform's)",
    sw: "C2B inahitaji nambari fupi (short code) ya duka lenyewe (ni duka la msingi pekee linalotumia ya jukwaa)",
  },
  "detail.pull_window_48h": {
    en: "from must be within the last 48 hours (Daraja keeps no older receipts)",
    sw: "from lazima iwe ndani ya saa 48 zilizopita (Daraja haihifadhi risiti za zamani zaidi)",
  },
  "detail.pull_to_in_future": { en: "to must not be in the future", sw: "to haipaswi kuwa wakati ujao" },
  "detail.pull_to_before_from": { en: "to must be after from", sw: "to lazima iwe baada ya from" },
  "detail.qr_needs_paybill": {
    en: "a QR code needs the shop to be paid through a paybill (transactionType CustomerPayBillOnline)",
    sw: "msimbo wa QR unahitaji duka lilipwe kupitia paybill (transactionType CustomerPayBillOnline)",
  },
  "detail.field_required": { en: "{field} is required", sw: "{field} inahitajika" },
  "detail.sms_code_required": {
    en: "sms_code is required: this account has no password (send one with /api/v1/auth/me/phone/start)",
    sw: "sms_code inahitajika: akaunti hii haina nenosiri (omba nambari kwa /api/v1/auth/me/phone/start)",
  },
  "detail.password_or_sms_code": {
    en: "send password or sms_code (one of them; sms_code from /api/v1/auth/reauthenticate/sms)",
    sw: "tuma password au sms_code (kimoja tu; sms_code kutoka /api/v1/auth/reauthenticate/sms)",
  },
  "detail.account_has_no_phone": { en: "phone is required: the account has no phone", sw: "phone inahitajika: akaunti haina nambari ya simu" },
  "detail.phone_change_needs_verification": {
    en: "a verified phone is changed by verifying the new number: /api/v1/auth/me/phone/start, then /api/v1/auth/me/phone/verify",
    sw: "nambari ya simu iliyothibitishwa hubadilishwa kwa kuthibitisha nambari mpya: /api/v1/auth/me/phone/start, kisha /api/v1/auth/me/phone/verify",
  },
  "detail.email_is_current": {
    en: "email is already this account's address",
    sw: "email tayari ni anwani ya akaunti hii",
  },
} as const satisfies Record<string, Bilingual>;
