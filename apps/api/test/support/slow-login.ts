import http from "node:http";

/** A login whose body arrives in two parts: in flight from the first byte until `finish()`. */
export function slowLogin(url: string) {
  const { hostname, port } = new URL(url);
  const body = JSON.stringify({ email: "nobody@example.com", password: "a password that is wrong" });
  const request = http.request({
    host: hostname,
    port,
    method: "POST",
    path: "/api/v1/auth/login",
    headers: {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
      "x-tenant-id": "default",
    },
  });
  const answer = new Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    request.on("response", (response) => {
      let text = "";
      response.on("data", (chunk) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text, headers: response.headers }));
    });
    request.on("error", reject);
  });
  request.write(body.slice(0, 10));
  return { answer, finish: () => request.end(body.slice(10)) };
}
