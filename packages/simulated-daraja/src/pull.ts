/**
 * Pull Transactions (docs/daraja-simulator.md#pull-transactions): register a short code once, then query
 * its receipts of the last 48 hours by window, paged. What a query lists is what the simulator's
 * records say reached the short code: C2B payments completed from the menu (a confirmation that never
 * arrived included: the "lost confirmation" case) and successful STK payments whose PartyB it is.
 * Bodies as the wire reference gives them: the register answer with spaced keys by default (what the
 * live sandbox sends), lower-case row keys, `msisdn` a JSON number, `amount` a decimal string,
 * `trxDate` with `+03:00`, rows in a list of lists.
 */
import { PULL_QUERY_PATH, PULL_REGISTER_PATH } from "@mteja/daraja";
import { accepted, darajaError, invalidField, type DarajaAnswer, type JsonBody } from "./answers.js";
import type { SimulationContext } from "./context.js";
import { isAcceptableCallbackUrl, text } from "./fields.js";
import type { C2bPayment, PullRegistration, StkPayment } from "./records.js";
import { MSISDN, newRequestId } from "./wire.js";
import { simulatedApi } from "./api.js";

const SHORT_CODE = /^\d{5,7}$/;
const PULL_DATE = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2})(?::(\d{2}))?$/;
const NAIROBI_OFFSET_MS = 3 * 60 * 60 * 1000;
const WINDOW_MS = 48 * 60 * 60 * 1000;

/** The organisation name Pull shows on every row. */
export const SIM_ORGANIZATION_NAME = "Mteja Simulated Shop";

export interface PullOperations {
  register(body: JsonBody): Promise<DarajaAnswer>;
  query(body: JsonBody): Promise<DarajaAnswer>;
}

/** A StartDate/EndDate as Daraja reads it: Nairobi wall-clock time; null when it is not a real one. */
function pullDate(value: unknown): Date | null {
  if (typeof value !== "string") return null;
  const match = PULL_DATE.exec(value);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1).map((part) => Number(part ?? 0)) as number[];
  const wall = new Date(Date.UTC(year!, month! - 1, day!, hour!, minute!, second!));
  if (wall.getUTCDate() !== day || wall.getUTCHours() !== hour || minute! > 59 || second! > 59) return null;
  return new Date(wall.getTime() - NAIROBI_OFFSET_MS);
}

/** `2026-03-10T08:00:00+03:00`. */
function trxDate(at: Date): string {
  return `${new Date(at.getTime() + NAIROBI_OFFSET_MS).toISOString().slice(0, 19)}+03:00`;
}

interface Row {
  at: Date;
  body: JsonBody;
}

/** What a row of Pull shows of a payment the short code received, by C2B or by STK. */
interface Received {
  at: Date;
  receipt: string;
  phone: string;
  command: string | null;
  account: string | null;
  amount: number;
}

function receivedRow({ at, receipt, phone, command, account, amount }: Received): Row {
  const buyGoods = command === "CustomerBuyGoodsOnline";
  return {
    at,
    body: {
      transactionId: receipt,
      trxDate: trxDate(at),
      msisdn: Number(phone),
      sender: "JOHN DOE",
      transactiontype: buyGoods ? "c2b-buy-goods-debit" : "c2b-pay-bill-debit",
      billreference: buyGoods ? "" : (account ?? ""),
      amount: `${amount}.00`,
      organizationname: SIM_ORGANIZATION_NAME,
    },
  };
}

const c2bRow = (payment: C2bPayment): Row =>
  receivedRow({ ...payment, at: new Date(payment.at), receipt: payment.transId, account: payment.account ?? null });

const stkRow = (payment: StkPayment & { receipt: string; settledAt: string }): Row =>
  receivedRow({
    ...payment,
    at: new Date(payment.settledAt),
    command: payment.transactionType,
    account: payment.accountReference ?? null,
  });

const settledWithReceipt = (payment: StkPayment): payment is StkPayment & { receipt: string; settledAt: string } =>
  payment.settled && payment.receipt !== null && payment.settledAt !== null;

export function createPullOperations(context: SimulationContext): PullOperations {
  const { options, records } = context;
  const ownShortCodes = () => [options.shortcode, ...(options.tillNumber ? [options.tillNumber] : [])];

  /** A short code of the simulator's (its paybill or till); anything else is Daraja's 400.001. */
  function shortCodeProblem(value: unknown): DarajaAnswer | { shortCode: string } {
    const shortCode = text(value);
    if (!shortCode || !SHORT_CODE.test(shortCode)) return invalidField("ShortCode");
    if (!ownShortCodes().includes(shortCode)) return darajaError(400, "400.001", "Invalid ShortCode");
    return { shortCode };
  }

  async function register(body: JsonBody): Promise<DarajaAnswer> {
    const checked = shortCodeProblem(body["ShortCode"]);
    if (!("shortCode" in checked)) return checked;
    const { shortCode } = checked;
    if (body["RequestType"] !== "Pull") return invalidField("RequestType");
    const nominated = text(body["NominatedNumber"]);
    if (!nominated || !MSISDN.test(nominated)) return invalidField("NominatedNumber");
    const callbackUrl = body["CallBackURL"];
    if (!isAcceptableCallbackUrl(callbackUrl, options.blockCallbackKeywords)) return invalidField("CallBackURL");
    const registration: PullRegistration = {
      kind: "pull_registration",
      shortCode,
      nominatedNumber: nominated,
      callbackUrl,
      registeredAt: options.now().toISOString(),
    };
    const first = await records.add(registration);
    const status = first ? "1000" : "1001";
    const description = first ? "Shortcode Registered Successfully" : "ShortCode already Registered";
    if (options.pullRegisterKeys === "portal") {
      const portal = { ResponseStatus: status, ShortCode: shortCode, ResponseDescription: description };
      return accepted({ ResponseRefID: newRequestId(), ...portal });
    }
    const spaced = { "Response Status": status, ShortCode: shortCode, "Response Description": description };
    return accepted({ ResponseRefID: newRequestId(), ...spaced });
  }

  /** Every receipt of the short code less than 48 hours old in [from, to], oldest first. */
  async function rowsOf(shortCode: string, from: Date, to: Date): Promise<Row[]> {
    const c2b = (await records.list("c2b")).filter((payment) => payment.completed && payment.shortCode === shortCode);
    const stk = (await records.list("stk")).filter((payment) => payment.partyB === shortCode);
    const oldest = options.now().getTime() - WINDOW_MS;
    const idOf = (row: Row) => String(row.body["transactionId"]);
    return [...c2b.map(c2bRow), ...stk.filter(settledWithReceipt).map(stkRow)]
      .filter((row) => row.at.getTime() >= oldest && row.at >= from && row.at <= to)
      .sort((a, b) => a.at.getTime() - b.at.getTime() || idOf(a).localeCompare(idOf(b)));
  }

  function noRecords(): DarajaAnswer {
    return accepted({
      ResponseRefID: newRequestId(),
      ResponseCode: "1001",
      ResponseMessage: "No records found or Organization Name not available",
      Response: [[]],
    });
  }

  async function query(body: JsonBody): Promise<DarajaAnswer> {
    const checked = shortCodeProblem(body["ShortCode"]);
    if (!("shortCode" in checked)) return checked;
    const from = pullDate(body["StartDate"]);
    if (!from) return invalidField("StartDate");
    const to = pullDate(body["EndDate"]);
    if (!to || to < from) return invalidField("EndDate");
    const offsetText = text(body["OffSetValue"]);
    if (offsetText === null || !/^\d+$/.test(offsetText)) return invalidField("OffSetValue");
    const offset = Number(offsetText);
    // Daraja's "no records" also stands for a short code it has not provisioned for Pull.
    if (!(await records.get("pull_registration", checked.shortCode))) return noRecords();

    const rows = await rowsOf(checked.shortCode, from, to);
    const size = options.pullPageSize;
    const byPage = options.pullPaging === "page";
    const start = byPage ? offset * size : offset;
    const page = rows.slice(start, start + size);
    if (page.length === 0) return noRecords();
    return accepted({
      ResponseRefID: newRequestId(),
      ResponseCode: "1000",
      ResponseMessage: "Success",
      Response: [page.map((row) => row.body)],
      ...(byPage ? { TotalPages: Math.ceil(rows.length / size) } : {}),
    });
  }

  return { register, query };
}

/** Pull Transactions: register a short code, query its receipts. */
export const pullApi = simulatedApi({
  endpoints: [
    {
      path: PULL_REGISTER_PATH,
      operation: "pullregister",
      firstField: "ShortCode",
      create: (context) => ({ answer: createPullOperations(context).register }),
    },
    {
      path: PULL_QUERY_PATH,
      operation: "pullquery",
      firstField: "ShortCode",
      create: (context) => ({ answer: createPullOperations(context).query }),
    },
  ],
  callbackKinds: [],
});
