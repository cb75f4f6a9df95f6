/**
 * Devices: where the customer is signed in (auth.listSessions), ending one session or every other one.
 * Ending this device's own session signs it out.
 */
import type { MtejaClient } from "@mteja/client";
import type { Screen, Shell } from "./shell.js";
import { button, h, notice } from "./ui.js";
import { t } from "./text.js";

type Device = Awaited<ReturnType<MtejaClient["api"]["auth"]["listSessions"]["query"]>>["data"]["sessions"][number];

export const devicesScreen: Screen = (shell) => {
  const status = notice();
  const list = h("div", { id: "device-list", class: "cards" }, h("p", { class: "muted" }, t("common.loading")));
  const refresh = async () => {
    const { data } = await shell.mteja.api.auth.listSessions.query({ limit: 100 });
    list.replaceChildren(...data.sessions.map((device) => deviceCard(shell, device, status, refresh)));
  };
  const others = button(t("devices.signOutOthers"), status, async () => {
    const { data, message } = await shell.mteja.api.auth.revokeOtherSessions.mutate();
    await refresh();
    return `${message ?? t("devices.othersEnded")} (${data.revoked})`;
  }, { id: "revoke-others", class: "danger" });
  refresh().catch(() => status.show("error", t("devices.loadFailed")));
  return h("section", {}, h("article", { class: "card", id: "devices" }, h("h2", {}, t("devices.title")), status, list, h("div", { class: "actions" }, others)));
};

function deviceCard(shell: Shell, device: Device, status: ReturnType<typeof notice>, refresh: () => Promise<void>): HTMLElement {
  const end = button(device.current ? t("devices.signOutHere") : t("devices.endSession"), status, async () => {
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
    h("strong", {}, device.user_agent ?? t("devices.unknownBrowser"), device.current ? h("span", { class: "badge ok" }, t("devices.thisDevice")) : null),
    h("span", { class: "muted" }, t("devices.details", { ip: device.ip ?? t("devices.unknown"), created: new Date(device.created_at).toLocaleString(), used: device.last_used_at ? new Date(device.last_used_at).toLocaleString() : "—" })),
    h("div", { class: "actions" }, end),
  );
}
