/**
 * Devices: where the customer is signed in (auth.listSessions), ending one session or every other one.
 * Ending this device's own session signs it out.
 */
import type { MtejaClient } from "@mteja/client";
import type { Screen, Shell } from "./shell.js";
import { button, h, notice } from "./ui.js";

type Device = Awaited<ReturnType<MtejaClient["api"]["auth"]["listSessions"]["query"]>>["data"]["sessions"][number];

export const devicesScreen: Screen = (shell) => {
  const status = notice();
  const list = h("div", { id: "device-list", class: "cards" }, h("p", { class: "muted" }, "Loading…"));
  const refresh = async () => {
    const { data } = await shell.mteja.api.auth.listSessions.query({ limit: 100 });
    list.replaceChildren(...data.sessions.map((device) => deviceCard(shell, device, status, refresh)));
  };
  const others = button("Sign out all other devices", status, async () => {
    const { data, message } = await shell.mteja.api.auth.revokeOtherSessions.mutate();
    await refresh();
    return `${message ?? "Other sessions ended."} (${data.revoked})`;
  }, { id: "revoke-others", class: "danger" });
  refresh().catch(() => status.show("error", "Could not load your devices."));
  return h("section", {}, h("article", { class: "card", id: "devices" }, h("h2", {}, "Where you are signed in"), status, list, h("div", { class: "actions" }, others)));
};

function deviceCard(shell: Shell, device: Device, status: ReturnType<typeof notice>, refresh: () => Promise<void>): HTMLElement {
  const end = button(device.current ? "Sign out here" : "End this session", status, async () => {
    const { message } = await shell.mteja.api.auth.revokeSession.mutate({ id: device.id });
    if (device.current) {
      shell.signedOut();
      return;
    }
    await refresh();
    return message;
  }, { class: "secondary" });
  return h(
    "div",
    { class: "address device", "data-session-id": device.id },
    h("strong", {}, device.user_agent ?? "Unknown browser", device.current ? h("span", { class: "badge ok" }, "this device") : null),
    h("span", { class: "muted" }, `IP ${device.ip ?? "unknown"} · signed in ${new Date(device.created_at).toLocaleString()} · last used ${device.last_used_at ? new Date(device.last_used_at).toLocaleString() : "—"}`),
    h("div", { class: "actions" }, end),
  );
}
