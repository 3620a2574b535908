/**
 * The skills view: the catalog (from `skill_browse`), search (`skill_browse`
 * with a query, ranked by `skill_search`'s engine), a skill's problems, files
 * as a tree and SKILL.md rendered safely (`skill_browse_detail`), and the remote
 * sources with their sync state. A skill's detail comes from the app-only
 * `skill_browse_detail`, never from `skill_load` (which `--tools` may withdraw).
 *
 * @module
 */

/// <reference lib="dom" />

import type { Connection } from "./connection.ts";
import { ToolCallError } from "./connection.ts";
import { arrowKeyNavigation, h, replaceChildren } from "./dom.ts";
import { renderMarkdown } from "./markdown.ts";

interface Problem {
  path: string;
  reason: string;
  severity: string;
  detail: string;
}

interface BrowseAnswer {
  query?: string;
  total: number;
  skills: {
    name: string;
    description: string;
    source: string;
    files: number;
    bytes: number;
    hiddenFromModel: boolean;
    hasPrompt: boolean;
    problems: Problem[];
    problemsTotal: number;
  }[];
  problems: Problem[];
  problemsTotal: number;
  sources: { spec: string; prefix?: string; state: string; notes: Problem[] }[];
}

/** What `skill_browse_detail` answers. */
interface DetailAnswer {
  name: string;
  description: string;
  body: string;
  truncated: boolean;
  files: { path: string; size: number }[];
}

/** A folder of the file tree: sub-folders and files by name. */
interface Folder {
  folders: Map<string, Folder>;
  files: { name: string; size: number }[];
}

/**
 * Starts the skills view in `root`.
 *
 * @param root The element to render into.
 * @param connection The app connection (handlers are set here, before `connect`).
 */
export async function startSkillsView(root: HTMLElement, connection: Connection): Promise<void> {
  const search = h("input", {
    type: "search",
    id: "search",
    "aria-label": "Search skills",
    placeholder: "Search skills",
    autocomplete: "off",
  });
  const status = h("p", { id: "status", role: "status" });
  const list = h("ul", { id: "skills", "aria-label": "Skills" });
  // No aria-live on the detail: focus moves to its heading when a skill opens, and a live
  // region would read the whole SKILL.md aloud on every change.
  const detail = h("section", { id: "detail", "aria-label": "Skill detail" });
  const sources = h("section", { id: "sources", "aria-label": "Remote sources" });
  const problems = h("section", { id: "problems", "aria-label": "Catalog problems" });
  replaceChildren(
    root,
    h(
      "header",
      {},
      h("h1", {}, "Skills"),
      h("div", { role: "search" }, search),
    ),
    status,
    h("div", { class: "columns" }, h("nav", { "aria-label": "Skill list" }, list), detail),
    sources,
    problems,
  );
  arrowKeyNavigation(list, () => [...list.querySelectorAll<HTMLElement>("button.skill")]);
  let searchTimer: ReturnType<typeof setTimeout> | undefined;
  let lastAnswer: BrowseAnswer | null = null;
  search.addEventListener("input", () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => void runSearch(), 200);
  });

  // No <form>: a view runs in a sandbox without allow-forms, where a submission is blocked.
  search.addEventListener("keydown", (event: KeyboardEvent) => {
    if (event.key !== "Enter") return;
    event.preventDefault();
    clearTimeout(searchTimer);
    void runSearch();
  });

  async function runSearch(): Promise<void> {
    const query = search.value.trim();
    status.textContent = query === "" ? "Loading…" : `Searching for “${query}”…`;
    try {
      render(await connection.call<BrowseAnswer>("skill_browse", query === "" ? {} : { query }));
    } catch (error) {
      showError(status, error);
    }
  }

  function render(answer: BrowseAnswer): void {
    lastAnswer = answer;
    if (answer.query !== undefined && search.value.trim() === "") search.value = answer.query;
    status.textContent = answer.query === undefined
      ? `${answer.total} skill${answer.total === 1 ? "" : "s"}`
      : `${answer.total} found for “${answer.query}”`;
    replaceChildren(
      list,
      ...answer.skills.map((skill) =>
        h(
          "li",
          {},
          h(
            "button",
            {
              type: "button",
              class: "skill",
              "data-name": skill.name,
              onclick: () => open(skill.name),
            },
            h("strong", {}, skill.name),
            skill.problemsTotal === 0
              ? null
              : h("span", { class: "badge warn" }, `${skill.problemsTotal} problem(s)`),
            skill.hiddenFromModel ? h("span", { class: "badge" }, "hidden from model") : null,
            h("span", { class: "description" }, skill.description),
          ),
        )
      ),
    );
    renderSources(answer);
    renderProblems(answer);
  }

  function renderSources(answer: BrowseAnswer): void {
    if (answer.sources.length === 0) {
      replaceChildren(sources);
      return;
    }
    replaceChildren(
      sources,
      h("h2", {}, "Remote sources"),
      h(
        "ul",
        {},
        ...answer.sources.map((source) =>
          h(
            "li",
            {},
            h("code", {}, source.spec),
            " ",
            h("span", { class: `badge state-${source.state}` }, source.state),
            ...source.notes.map((note) =>
              h("div", { class: "note" }, `${note.reason}: ${note.detail}`)
            ),
          )
        ),
      ),
    );
  }

  function renderProblems(answer: BrowseAnswer): void {
    if (answer.problems.length === 0) {
      replaceChildren(problems);
      return;
    }
    replaceChildren(
      problems,
      h(
        "details",
        {},
        h("summary", {}, `Catalog problems (${answer.problemsTotal})`),
        h(
          "ul",
          {},
          ...answer.problems.map(problemItem),
          moreItem(answer.problemsTotal - answer.problems.length),
        ),
      ),
    );
  }

  async function open(name: string): Promise<void> {
    replaceChildren(detail, h("p", {}, `Loading ${name}…`));
    try {
      // Not skill_load: --tools may withdraw it; the view tools are always offered to a view.
      const skill = await connection.call<DetailAnswer>("skill_browse_detail", { name });
      const shown = list.querySelector(`button.skill[data-name="${CSS.escape(name)}"]`);
      for (const button of list.querySelectorAll("button.skill")) {
        button.setAttribute("aria-current", String(button === shown));
      }
      const article = h("article", { class: "markdown", id: "skill-md" });
      // markdown-it with html off: raw HTML in the skill is escaped (see markdown.ts).
      article.innerHTML = renderMarkdown(skill.body);
      const { shown: problemsOfSkill, total } = currentProblems(name);
      replaceChildren(
        detail,
        h("h2", { id: "detail-name", tabindex: "-1" }, skill.name),
        h("p", { class: "description" }, skill.description),
        problemsOfSkill.length === 0 ? "" : h(
          "ul",
          { class: "problems" },
          ...problemsOfSkill.map(problemItem),
          moreItem(total - problemsOfSkill.length),
        ),
        h("h3", {}, "Files"),
        fileTree(skill.files),
        h("h3", {}, "SKILL.md"),
        skill.truncated ? h("p", { class: "note" }, "SKILL.md was cut at the size limit") : "",
        article,
      );
      (detail.querySelector("#detail-name") as HTMLElement).focus();
    } catch (error) {
      showError(detail, error);
    }
  }

  function currentProblems(name: string): { shown: Problem[]; total: number } {
    const skill = lastAnswer?.skills.find((candidate) => candidate.name === name);
    return { shown: skill?.problems ?? [], total: skill?.problemsTotal ?? 0 };
  }

  connection.app.ontoolinput = (params) => {
    const query = (params.arguments as { query?: unknown } | undefined)?.query;
    if (typeof query === "string") search.value = query;
  };
  connection.app.ontoolresult = (params) => {
    if (params.isError === true) {
      showError(status, new ToolCallError("ERROR", "skill_browse failed", ""));
      return;
    }
    render(params.structuredContent as unknown as BrowseAnswer);
  };
  status.textContent = "Waiting for the catalog…";
  await connection.app.connect();
}

/**
 * The line that ends a cut problem list: never a silent cut (README).
 *
 * @param more How many problems the answer left out (0 or less: none).
 * @returns The list item, or null when nothing was left out.
 */
function moreItem(more: number): HTMLElement | null {
  return more <= 0
    ? null
    : h("li", { class: "problem more" }, `… and ${more} more (skillgate list shows them all)`);
}

function problemItem(problem: Problem): HTMLElement {
  return h(
    "li",
    { class: `problem ${problem.severity}` },
    h("code", {}, problem.reason),
    ` ${problem.path}: ${problem.detail}`,
  );
}

/**
 * The files as a nested list of folders.
 *
 * @param files The skill's files.
 * @returns The tree.
 */
export function fileTree(files: readonly { path: string; size: number }[]): HTMLElement {
  const top: Folder = { folders: new Map(), files: [] };
  for (const file of files) {
    const parts = file.path.split("/");
    let at = top;
    for (const part of parts.slice(0, -1)) {
      let next = at.folders.get(part);
      if (next === undefined) {
        next = { folders: new Map(), files: [] };
        at.folders.set(part, next);
      }
      at = next;
    }
    at.files.push({ name: parts.at(-1)!, size: file.size });
  }
  const render = (folder: Folder): HTMLElement =>
    h(
      "ul",
      { class: "tree" },
      ...[...folder.folders].sort(([a], [b]) => a.localeCompare(b)).map(([name, sub]) =>
        h("li", { class: "folder" }, h("span", {}, `${name}/`), render(sub))
      ),
      ...folder.files.map((file) =>
        h("li", { class: "file" }, file.name, h("span", { class: "size" }, ` ${file.size} B`))
      ),
    );
  return render(top);
}

function showError(where: HTMLElement, error: unknown): void {
  const message = error instanceof ToolCallError
    ? `${error.message}${error.hint === "" ? "" : `. ${error.hint}`}`
    : error instanceof Error
    ? error.message
    : String(error);
  // Replaces what was there ("Loading…", an earlier error): errors do not pile up.
  where.replaceChildren(h("p", { class: "error", role: "alert" }, message));
}
