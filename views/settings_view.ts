/**
 * The settings view: each skill's three switches (served, in the model's
 * catalog, has a prompt) as checkboxes. Turning one off asks the server
 * (`skill_settings_write`, app-only; the user confirms; the trusted part
 * writes `overrides.json`); a switch can be turned back on only when a view
 * turned it off. Roots and sources are never added here: the owner's
 * commands are shown instead.
 *
 * @module
 */

/// <reference lib="dom" />

import type { Connection } from "./connection.ts";
import { ToolCallError } from "./connection.ts";
import { arrowKeyNavigation, h, replaceChildren } from "./dom.ts";

type SwitchName = "enabled" | "modelInvocable" | "userInvocable";

interface SwitchState {
  on: boolean;
  offBy?: "frontmatter" | "owner" | "view";
  canTurnOn: boolean;
}

interface SettingsAnswer {
  writable: boolean;
  refusal?: string;
  total: number;
  skills:
    ({ name: string; description: string; source: string } & Record<SwitchName, SwitchState>)[];
  addRoot: string[];
  addSource: string[];
}

const LABELS: Record<SwitchName, string> = {
  enabled: "Served",
  modelInvocable: "In the model's catalog",
  userInvocable: "Has a prompt",
};

const WHO: Record<string, string> = {
  frontmatter: "off in the skill's own frontmatter",
  owner: "turned off by the owner",
  view: "turned off from a view",
};

/**
 * Starts the settings view in `root`.
 *
 * @param root The element to render into.
 * @param connection The app connection (handlers are set here, before `connect`).
 */
export async function startSettingsView(root: HTMLElement, connection: Connection): Promise<void> {
  const status = h("p", { id: "status", role: "status" });
  const table = h("table", { id: "settings" });
  const owner = h("section", { id: "owner" });
  replaceChildren(root, h("header", {}, h("h1", {}, "Skill settings")), status, table, owner);
  arrowKeyNavigation(
    table,
    () => [...table.querySelectorAll<HTMLElement>("input:not([disabled])")],
  );

  async function reload(): Promise<void> {
    try {
      render(await connection.call<SettingsAnswer>("skill_settings", {}));
    } catch (error) {
      showError(error);
    }
  }

  async function change(name: string, key: SwitchName, value: boolean): Promise<void> {
    status.textContent = `Saving ${name}…`;
    try {
      const answer = await connection.call<{ status: string }>(
        "skill_settings_write",
        { name, switch: key, value },
      );
      status.textContent = answer.status === "written"
        ? `${name}: “${LABELS[key]}” turned ${value ? "on" : "off"} (saved to overrides.json)`
        : `${name}: nothing to change`;
    } catch (error) {
      showError(error);
    }
    const focused = `${name}:${key}`;
    await reload();
    table.querySelector<HTMLElement>(`input[data-id="${CSS.escape(focused)}"]`)?.focus();
  }

  function render(answer: SettingsAnswer): void {
    if (!answer.writable) status.textContent = answer.refusal ?? "Settings are read-only here";
    replaceChildren(
      table,
      h("caption", {}, "Each skill's switches: uncheck one to turn it off"),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, "Skill"),
          ...Object.values(LABELS).map((label) => h("th", { scope: "col" }, label)),
        ),
      ),
      h(
        "tbody",
        {},
        ...answer.skills.map((skill, row) =>
          h(
            "tr",
            { "data-name": skill.name },
            h(
              "th",
              { scope: "row" },
              h("strong", {}, skill.name),
              h("div", { class: "description" }, skill.description),
            ),
            ...(Object.keys(LABELS) as SwitchName[]).map((key) => {
              const state = skill[key];
              const canChange = answer.writable && (state.on || state.canTurnOn);
              const id = `${skill.name}:${key}`;
              // The aria-label replaces the label's text as the name, so who turned the
              // switch off is tied to the checkbox as its description.
              const whoId = `who-${row}-${key}`;
              const box = h("input", {
                type: "checkbox",
                "data-id": id,
                "aria-label": `${LABELS[key]}: ${skill.name}`,
                "aria-describedby": state.offBy === undefined ? undefined : whoId,
                checked: state.on,
                disabled: !canChange,
                onchange: (event: Event) =>
                  void change(skill.name, key, (event.target as HTMLInputElement).checked),
              });
              return h(
                "td",
                {},
                h(
                  "label",
                  {},
                  box,
                  state.offBy === undefined
                    ? ""
                    : h("span", { class: "who", id: whoId }, WHO[state.offBy] ?? ""),
                ),
              );
            }),
          )
        ),
      ),
    );
    replaceChildren(
      owner,
      h("h2", {}, "Adding skills"),
      h("p", {}, "Folders and remote sources are never added from this view. The owner can:"),
      h("h3", {}, "Add a folder of skills"),
      h("pre", {}, answer.addRoot.join("\n")),
      h("h3", {}, "Add a remote source"),
      h("pre", {}, answer.addSource.join("\n")),
    );
  }

  function showError(error: unknown): void {
    const message = error instanceof ToolCallError
      ? `${error.message}${error.hint === "" ? "" : `. ${error.hint}`}`
      : error instanceof Error
      ? error.message
      : String(error);
    status.replaceChildren(h("span", { class: "error", role: "alert" }, message));
  }

  connection.app.ontoolresult = (params) => {
    if (params.isError !== true) render(params.structuredContent as unknown as SettingsAnswer);
  };
  status.textContent = "Waiting for the settings…";
  await connection.app.connect();
  // A view opened without a tool result (or after it) loads the settings itself.
  if (table.childElementCount === 0) await reload();
}
