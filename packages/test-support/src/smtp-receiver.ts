import addressparser from "nodemailer/lib/addressparser";
import { SMTPServer } from "smtp-server";
import { decodeWords, parseMessage } from "./mime.js";

/** A mail as the receiving server saw it. */
export interface ReceivedMail {
  /** RCPT TO addresses. */
  to: string[];
  /** MAIL FROM address. */
  envelopeFrom: string;
  /** The From header: display name (decoded) and address. */
  from: { name: string; address: string } | undefined;
  subject: string;
  /** Decoded text/plain part. */
  text: string;
  /** Decoded text/html part. */
  html: string;
  /** Decoded top-level headers, names lower-cased. */
  headers: Record<string, string>;
  /** The message exactly as received. */
  raw: string;
}

export interface SmtpReceiver {
  /** smtp://127.0.0.1:PORT, usable as SMTP_URL. */
  readonly url: string;
  readonly port: number;
  /** Every mail received so far, across restarts, oldest first. */
  readonly mails: ReceivedMail[];
  /** Resolves with the first mail (already received or still to come) that matches. */
  waitForMail(predicate?: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  /** Stops listening and drops open connections: an outage. */
  stop(): Promise<void>;
  /** Listens again on the same port: the outage is over. */
  restart(): Promise<void>;
}

/** Starts a plain SMTP server on 127.0.0.1 (no auth, no TLS) that keeps what it receives. */
export async function startSmtpReceiver(options: { port?: number } = {}): Promise<SmtpReceiver> {
  const mails: ReceivedMail[] = [];
  const waiters = new Set<() => void>();
  let server: SMTPServer | undefined;
  let port = options.port ?? 0;

  function receive(message: Buffer, envelopeFrom: string, to: string[]): void {
    const parsed = parseMessage(message);
    // Addresses are parsed before decoding: a decoded display name may itself contain "<", "," or quotes.
    const sender = addressparser(parsed.rawHeaders["from"] ?? "", { flatten: true })[0];
    mails.push({
      to,
      envelopeFrom,
      from: sender ? { name: decodeWords(sender.name), address: sender.address } : undefined,
      subject: parsed.headers["subject"] ?? "",
      text: parsed.text ?? "",
      html: parsed.html ?? "",
      headers: parsed.headers,
      raw: message.toString("utf8"),
    });
    for (const wake of waiters) wake();
  }

  async function listen(): Promise<void> {
    const next = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      // Tests stop the receiver to simulate an outage; open connections must not delay that.
      closeTimeout: 100,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.on("end", () => {
          const envelopeFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
          receive(Buffer.concat(chunks), envelopeFrom, session.envelope.rcptTo.map((rcpt) => rcpt.address));
          callback();
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      next.once("error", reject);
      const netServer = next.listen(port, "127.0.0.1", () => {
        next.off("error", reject);
        const address = netServer.address();
        if (address && typeof address === "object") port = address.port;
        resolve();
      });
    });
    server = next;
  }

  await listen();

  return {
    get url() {
      return `smtp://127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    mails,
    waitForMail(predicate = () => true, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const check = (): boolean => {
          const found = mails.find(predicate);
          if (!found) return false;
          waiters.delete(wake);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const wake = (): void => void check();
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`No matching mail within ${timeoutMs} ms (${mails.length} received)`));
        }, timeoutMs);
        if (!check()) waiters.add(wake);
      });
    },
    async stop() {
      const current = server;
      server = undefined;
      if (current) await new Promise<void>((resolve) => current.close(() => resolve()));
    },
    async restart() {
      if (!server) await listen();
    },
  };
}
