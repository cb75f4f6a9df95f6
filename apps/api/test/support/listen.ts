import type { FastifyInstance } from "fastify";

/** Listens on 127.0.0.1 at a free port; answers the base URL. */
export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  return `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
}
