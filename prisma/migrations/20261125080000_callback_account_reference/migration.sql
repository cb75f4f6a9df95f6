-- An STK callback does not carry the AccountReference; the prompt's CallBackURL does (`ref=`). It is
-- kept beside the callback so a callback for a CheckoutRequestID that was never stored (the push's
-- outcome was unknown) can be matched to its payment by phone, amount and reference, also later.

-- AlterTable
ALTER TABLE "momo_callbacks" ADD COLUMN "account_reference" TEXT;
