// The STK result callback Daraja POSTs for a successful prompt (docs/mpesa.md#callbacks), for the
// payments bench/seed.mjs seeds (100 KES, MerchantRequestID `mr-<CheckoutRequestID>`).
export function stkCallbackBody(checkoutRequestId, receipt, amount = 100) {
  return JSON.stringify({
    Body: {
      stkCallback: {
        MerchantRequestID: `mr-${checkoutRequestId}`,
        CheckoutRequestID: checkoutRequestId,
        ResultCode: 0,
        ResultDesc: "The service request is processed successfully.",
        CallbackMetadata: {
          Item: [
            { Name: "Amount", Value: amount },
            { Name: "MpesaReceiptNumber", Value: receipt },
            { Name: "Balance" },
            { Name: "TransactionDate", Value: 20261125101530 },
            { Name: "PhoneNumber", Value: 254708374149 },
          ],
        },
      },
    },
  });
}
