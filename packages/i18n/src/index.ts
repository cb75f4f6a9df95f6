export { DEFAULT_LOCALE, LOCALES, isLocale, localeFromAcceptLanguage, preferredLocale, resolveLocale, type Locale, type LocaleSources } from "./locale.js";
export { formatMoney, formatWhen } from "./format.js";
export { placeholdersOf, type Bilingual, type ParamValue } from "./catalogue.js";
export { messages } from "./messages/index.js";
export { isMessageKey, t, translate, type MessageKey, type OwnText, type ParamsOf, type Text } from "./translate.js";
