/** Field limits Daraja enforces; exported so callers validate before a request is stored or sent. */
export const STK_ACCOUNT_REFERENCE_MAX_LENGTH = 12;
export const STK_TRANSACTION_DESC_MAX_LENGTH = 13;
export const STK_AMOUNT_MIN = 1;
export const STK_AMOUNT_MAX = 250_000;
export const B2C_AMOUNT_MIN = 10;
export const B2C_AMOUNT_MAX = 250_000;
export const B2C_REMARKS_MAX_LENGTH = 100;
export const B2C_OCCASION_MAX_LENGTH = 100;
