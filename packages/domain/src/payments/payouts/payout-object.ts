/** A payout as the event feed shows it (`data.payout`): the read API's fields, snake_case, with updated_at. */
import type { PayoutModel } from "@mteja/db";
import { payoutStatus } from "../shared/payment-views.js";

export function payoutObject(payout: PayoutModel) {
  return {
    id: payout.id,
    livemode: payout.livemode,
    status: payoutStatus(payout),
    amount: payout.amount,
    phone: payout.phone,
    command_id: payout.commandId,
    remarks: payout.remarks,
    occasion: payout.occasion,
    originator_conversation_id: payout.originatorConversationId,
    conversation_id: payout.conversationId,
    transaction_id: payout.transactionId,
    result_code: payout.resultCode,
    result_desc: payout.resultDesc,
    receiver_name: payout.receiverName,
    created_at: payout.createdAt.toISOString(),
    settled_at: payout.settledAt ? payout.settledAt.toISOString() : null,
    updated_at: payout.updatedAt.toISOString(),
  };
}
