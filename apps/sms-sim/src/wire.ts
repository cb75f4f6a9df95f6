/**
 * Africa's Talking's wire format, as the simulator writes it (docs/sms.md): the send answer, the
 * per-recipient status codes, the message ids, the number of parts a text is billed as.
 */
import { randomBytes } from "node:crypto";

export const STATUS_NAMES: Record<number, string> = {
  100: "Processed",
  101: "Success",
  102: "Queued",
  401: "RiskHold",
  402: "InvalidSenderId",
  403: "InvalidPhoneNumber",
  404: "UnsupportedNumberType",
  405: "InsufficientBalance",
  406: "UserInBlacklist",
  407: "CouldNotRoute",
  409: "DoNotDisturbRejection",
  500: "InternalServerError",
  501: "GatewayError",
  502: "RejectedByGateway",
};

export interface Recipient {
  statusCode: number;
  number: string;
  status: string;
  cost: string;
  messageId: string;
}

export function newMessageId(): string {
  return `ATXid_${randomBytes(16).toString("hex")}`;
}

// GSM-7's basic set; one character outside it makes the whole text UCS-2. An assumption: Africa's
// Talking documents neither the encoding nor the split.
const GSM7 = /^[@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&'()*+,\-./0-9:;<=>?¡A-ZÄÖÑÜ§¿a-zäöñüà^{}\\[~\]|€]*$/;

export function partsOf(text: string): number {
  const gsm = GSM7.test(text);
  const [single, multi] = gsm ? [160, 153] : [70, 67];
  return text.length <= single ? 1 : Math.ceil(text.length / multi);
}

export function sendAnswer(recipients: Recipient[]): { SMSMessageData: { Message: string; Recipients: Recipient[] } } {
  const sent = recipients.filter((r) => r.statusCode >= 100 && r.statusCode <= 102);
  const total = sent.reduce((sum, r) => sum + Number(r.cost.replace(/^KES /, "")), 0);
  const cost = sent.length ? `KES ${total.toFixed(4)}` : "0";
  return { SMSMessageData: { Message: `Sent to ${sent.length}/${recipients.length} Total Cost: ${cost}`, Recipients: recipients } };
}

export function requestRefused(message: string): { SMSMessageData: { Message: string; Recipients: [] } } {
  return { SMSMessageData: { Message: message, Recipients: [] } };
}
