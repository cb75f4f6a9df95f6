import nodemailer from "nodemailer";

/** Connects to SMTP_URL's server and signs in as a mail would (`mteja doctor`); the problem in words, or undefined. */
export async function checkSmtpServer(smtpUrl: string): Promise<string | undefined> {
  const transporter = nodemailer.createTransport({ url: smtpUrl, pool: false, connectionTimeout: 5_000, greetingTimeout: 5_000, socketTimeout: 10_000 });
  try {
    await transporter.verify();
    return undefined;
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    return code === "EAUTH" ? `the SMTP server refused the user name or password (${message ?? code})` : `the SMTP server cannot be used: ${message ?? String(error)}`;
  } finally {
    transporter.close();
  }
}
