import { smsSimulatorDefaults } from "./defaults.js";
import { buildSmsSimulator } from "./server.js";

async function main(): Promise<void> {
  const env = process.env;
  const sim = buildSmsSimulator({
    logger: true,
    ...(env.SMS_SIM_API_KEY ? { apiKey: env.SMS_SIM_API_KEY } : {}),
    ...(env.SMS_SIM_USERNAME ? { username: env.SMS_SIM_USERNAME } : {}),
    ...(env.SMS_SIM_SENDER_IDS ? { senderIds: env.SMS_SIM_SENDER_IDS.split(",").map((s) => s.trim()) } : {}),
    deliveryReportUrl: env.SMS_SIM_DLR_URL,
  });
  const close = () => {
    sim.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", close);
  process.once("SIGTERM", close);
  await sim.listen({ host: env.SMS_SIM_HOST ?? "127.0.0.1", port: Number(env.SMS_SIM_PORT ?? smsSimulatorDefaults.port) });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
