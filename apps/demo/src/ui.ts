/** A few DOM helpers: elements are built with text nodes only (no innerHTML), so API data is never markup. */
import { isMtejaError, isTRPCClientError, validationDetailsOf } from "@mteja/client";
import { t } from "./text.js";

type Child = Node | string | null | undefined | false;
type Attributes = Record<string, string | number | boolean | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? "" : String(value));
  }
  element.append(...children.filter((child): child is Node | string => child !== null && child !== undefined && child !== false));
  return element;
}

/** A labelled input; `name` is the key in the form's values. */
export function field(label: string, name: string, attributes: Attributes = {}): HTMLLabelElement {
  return h("label", {}, h("span", {}, label), h("input", { name, ...attributes }));
}

export function values(form: HTMLFormElement): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of new FormData(form)) if (typeof value === "string") result[name] = value;
  return result;
}

/** The API's error envelope (docs/errors.md) as a readable message: code, message and, for VALIDATION_ERROR, each field. */
export function describeError(error: unknown): string {
  if (isMtejaError(error)) {
    const details = validationDetailsOf(error).map((detail) => (detail.path ? `${detail.path}: ${detail.message}` : detail.message));
    const retryAfter = error.data.retryAfter;
    return [`${error.shape.error.code} — ${error.message}`, ...details, retryAfter ? t("error.retryAfter", { seconds: retryAfter }) : ""].filter(Boolean).join("\n");
  }
  // A failure that never reached the service (offline, refused connection).
  if (isTRPCClientError(error)) return `NETWORK_ERROR — ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/** A status line under a form or a card. */
export function notice(): HTMLParagraphElement & { show(kind: "ok" | "error" | "info", text: string): void; clear(): void } {
  const element = h("p", { class: "notice", role: "status", hidden: true });
  return Object.assign(element, {
    show(kind: "ok" | "error" | "info", text: string) {
      element.className = `notice ${kind}`;
      element.textContent = text;
      element.hidden = false;
    },
    clear() {
      element.hidden = true;
      element.textContent = "";
    },
  });
}

/**
 * Runs `action` on submit with the submit button disabled; a thrown error is shown in `status`.
 * The action's returned string, if any, is shown as success.
 */
export function onSubmit(form: HTMLFormElement, status: ReturnType<typeof notice>, action: (values: Record<string, string>) => Promise<string | void>): void {
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const buttons = [...form.querySelectorAll("button")];
    buttons.forEach((button) => (button.disabled = true));
    status.clear();
    action(values(form))
      .then((message) => {
        if (message) status.show("ok", message);
      })
      .catch((error: unknown) => status.show("error", describeError(error)))
      .finally(() => buttons.forEach((button) => (button.disabled = false)));
  });
}

/** A button that runs `action`, reporting errors in `status`. */
export function button(label: string, status: ReturnType<typeof notice>, action: () => Promise<string | void>, attributes: Attributes = {}): HTMLButtonElement {
  const element = h("button", { type: "button", ...attributes }, label);
  element.addEventListener("click", () => {
    element.disabled = true;
    status.clear();
    action()
      .then((message) => {
        if (message) status.show("ok", message);
      })
      .catch((error: unknown) => status.show("error", describeError(error)))
      .finally(() => (element.disabled = false));
  });
  return element;
}
