/**
 * The MCP Apps views in a real browser (Debian's chromium, driven by
 * playwright-core; no browser download). A small test host page
 * (`views/test_host/host.ts`, ext-apps' `AppBridge`) renders each view in a
 * sandboxed iframe and relays its tool calls to the real skillgate, started
 * over Streamable HTTP with a bearer token, through the MCP client held here.
 * The client declares elicitation: every settings write is confirmed by the
 * user (this test answers) before the trusted part writes overrides.json.
 *
 * Screenshots of both views are saved under test-artifacts/views/ (git-ignored).
 * Without chromium the test is skipped locally with one line and fails in CI.
 * Waits have generous ceilings in seconds; nothing is timed.
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import type { Browser, Frame, Page } from "playwright-core";
import { startHttpProgram } from "../support/http_program.ts";
import { REPO_ROOT } from "../support/program.ts";
import {
  Client,
  type ClientCapabilities,
  ElicitRequestSchema,
  type ElicitResult,
  StreamableHTTPClientTransport,
} from "../support/sdk_client.ts";
import { inlineSafe } from "../../views/build.ts";

const CHROMIUM = "/usr/bin/chromium";
const CEILING_MS = 30_000;
const TOKEN = "views-browser-test-token-0123456789";
const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/views/", import.meta.url));
const CORPUS = `${REPO_ROOT}/tests/fixtures/corpus`;
/** Chromium flags: headless, as root in CI, and no background traffic of its own. */
const CHROMIUM_ARGS = [
  "--headless=new",
  "--no-sandbox",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-default-apps",
  "--disable-domain-reliability",
  "--disable-sync",
  "--metrics-recording-only",
  "--no-first-run",
  "--no-default-browser-check",
  "--no-pings",
  "--disable-features=Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider",
];

const hasChromium = await Deno.stat(CHROMIUM).then((info) => info.isFile).catch(() => false);
if (!hasChromium) {
  if (Deno.env.get("CI") === "true") {
    throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium for these tests`);
  }
  console.error(`skipping the browser tests: ${CHROMIUM} is missing (apt-get install chromium)`);
}

async function until(what: string, check: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + CEILING_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${CEILING_MS} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Bundles the test host page (ext-apps' AppBridge) with the pinned Deno's bundler. */
async function hostPage(): Promise<string> {
  const folder = await Deno.makeTempDir({ prefix: "skillgate-host-" });
  try {
    const output = `${folder}/host.js`;
    const bundled = await new Deno.Command(Deno.execPath(), {
      args: [
        "bundle",
        "--quiet",
        "--frozen",
        "--platform",
        "browser",
        "-o",
        output,
        "views/test_host/host.ts",
      ],
      cwd: REPO_ROOT,
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.ok(bundled.success, new TextDecoder().decode(bundled.stderr));
    const script = inlineSafe(await Deno.readTextFile(output));
    return `<!doctype html><html><head><meta charset="utf-8"><title>skillgate test host</title>
<style>body{margin:0;font:14px system-ui}#views iframe{border:0;width:1000px;height:760px}</style>
</head><body><div id="views"></div><script type="module">${script}</script></body></html>`;
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
}

/** A skill whose SKILL.md tries to run a script and load remote content. */
const PROBE_SKILL = `---
name: markup-probe
description: A skill whose instructions hold markup that must stay text
---
# Markup probe

Run nothing: <script>window.parent.postMessage("pwned", "*"); document.title = "pwned";</script>

<img src="https://example.invalid/tracker.png" onerror="document.title='pwned'">

![remote image](https://example.invalid/image.png) and [a link](javascript:alert(1)).

| left | right |
|:-----|------:|
| a    | b     |
`;

Deno.test({
  name: "views in a real browser: skills view, search, safe SKILL.md, settings writes, keyboard",
  ignore: !hasChromium,
  fn: async (t) => {
    const dir = await Deno.makeTempDir({ prefix: "skillgate-views-" });
    let browser: Browser | null = null;
    try {
      await Deno.mkdir(`${dir}/extra/markup-probe`, { recursive: true });
      await Deno.writeTextFile(`${dir}/extra/markup-probe/SKILL.md`, PROBE_SKILL);
      // The owner disabled sql-review by hand: no view may turn it back on.
      await Deno.mkdir(`${dir}/config/skillgate`, { recursive: true });
      const overridesPath = `${dir}/config/skillgate/overrides.json`;
      await Deno.writeTextFile(
        overridesPath,
        JSON.stringify({ skills: { "sql-review": { enabled: false } } }, null, 2),
      );
      await using server = await startHttpProgram(["serve", CORPUS, `${dir}/extra`], {
        env: { XDG_CONFIG_HOME: `${dir}/config`, SKILLGATE_HTTP_TOKEN: TOKEN },
      });

      // The MCP client the host relays through: it renders views and can ask the user.
      const asked: string[] = [];
      const answers: ElicitResult[] = [];
      const notified: string[] = [];
      const client = new Client({ name: "skillgate-views-host", version: "1.0.0" }, {
        capabilities: {
          elicitation: {},
          extensions: {
            "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] },
          },
        } as ClientCapabilities,
      });
      const forms: unknown[] = [];
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        asked.push(request.params.message);
        forms.push((request.params as { requestedSchema?: unknown }).requestedSchema);
        return answers.shift() ?? { action: "decline" };
      });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.url), {
          requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
        }),
      );
      // A second host that also loads skills itself (SEP-2640): --tools=auto withdraws
      // skill_load from it, and its views must work all the same.
      const skillsHost = new Client({ name: "skillgate-views-skills-host", version: "1.0.0" }, {
        capabilities: {
          extensions: {
            "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] },
            "io.modelcontextprotocol/skills": {},
          },
        } as ClientCapabilities,
      });
      await skillsHost.connect(
        new StreamableHTTPClientTransport(new URL(server.url), {
          requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
        }),
      );
      /** The MCP client the host page relays through now. */
      let relayClient: Client = client;
      let page: Page | null = null;
      // Every list_changed reaches the host here and is passed on to the open view.
      client.fallbackNotificationHandler = (notification) => {
        const match = /^notifications\/(tools|resources|prompts)\/list_changed$/.exec(
          notification.method,
        );
        if (match !== null) {
          const kind = match[1] as "tools" | "resources" | "prompts";
          notified.push(kind);
          page?.evaluate(`window.notifyListChanged(${JSON.stringify(kind)})`).catch(() => {});
        }
        return Promise.resolve();
      };
      const listed = async () =>
        ((await client.callTool({ name: "skill_list", arguments: {} })).structuredContent as {
          skills: { name: string }[];
        }).skills.map((skill) => skill.name);

      try {
        const { chromium } = await import("playwright-core");
        browser = await chromium.launch({
          executablePath: CHROMIUM,
          headless: true,
          args: CHROMIUM_ARGS,
        });
        page = await browser.newPage({ viewport: { width: 1000, height: 760 } });
        const consoleErrors: string[] = [];
        page.on("console", (message) => {
          if (message.type() === "error") consoleErrors.push(message.text());
        });
        page.on("pageerror", (error) => consoleErrors.push(String(error)));
        // The page reaches nothing but the relay: any other request fails the test.
        const requests: string[] = [];
        await page.route("**/*", (route) => {
          requests.push(route.request().url());
          return route.abort();
        });
        await page.exposeFunction("relay", async (method: string, params: unknown) => {
          const request = params as Record<string, unknown>;
          if (method === "tools/list") return await relayClient.listTools();
          if (method === "resources/read") {
            return await relayClient.readResource(request as { uri: string });
          }
          if (method === "tools/call") {
            return await relayClient.callTool(
              request as { name: string; arguments?: Record<string, unknown> },
            );
          }
          throw new Error(`The test host relays no ${method}`);
        });
        await page.setContent(await hostPage());
        await Deno.mkdir(ARTIFACTS, { recursive: true });

        const viewFrame = async (): Promise<Frame> => {
          const handle = await page!.waitForSelector("#view");
          const frame = await handle.contentFrame();
          assert.ok(frame !== null, "the view's iframe has a frame");
          return frame;
        };
        const served = await listed();

        await t.step(
          "the skills view opens on the catalog: every served skill appears",
          async () => {
            await page!.evaluate(`window.openView("skill_browse", {})`);
            const frame = await viewFrame();
            await frame.waitForSelector("button.skill", { timeout: CEILING_MS });
            const names = await frame.$$eval(
              "button.skill",
              (buttons) => buttons.map((button) => button.getAttribute("data-name")),
            );
            assert.deepEqual(names, served);
            assert.ok(names.includes("markup-probe") && !names.includes("sql-review"));
          },
        );

        await t.step("search narrows the list (skill_search's engine)", async () => {
          const frame = await viewFrame();
          await frame.fill("#search", "spreadsheet formulas");
          await frame.press("#search", "Enter");
          await until("the list narrows", async () => {
            const names = await frame.$$eval(
              "button.skill",
              (buttons) => buttons.map((button) => button.getAttribute("data-name")),
            );
            return names.length > 0 && names.length < served.length &&
              names[0] === "spreadsheet-formulas";
          });
          await frame.fill("#search", "");
          await frame.press("#search", "Enter");
          await until(
            "the whole list is back",
            async () => (await frame.$$("button.skill")).length === served.length,
          );
        });

        await t.step(
          "keyboard: Tab reaches the list, arrows move along it with a visible focus ring, Enter opens a skill",
          async () => {
            const frame = await viewFrame();
            await frame.focus("#search");
            await page!.keyboard.press("Tab");
            assert.equal(
              await frame.evaluate(`document.activeElement?.getAttribute("data-name")`),
              served[0],
              "the first skill follows the search box in the focus order",
            );
            await page!.keyboard.press("ArrowDown");
            const second = await frame.evaluate(
              `document.activeElement?.getAttribute("data-name")`,
            );
            assert.equal(second, served[1]);
            const ring = await frame.evaluate(
              `(() => { const style = getComputedStyle(document.activeElement);
              return [document.activeElement.matches(":focus-visible"), style.outlineStyle]; })()`,
            ) as [boolean, string];
            assert.equal(ring[0], true, "keyboard focus is :focus-visible");
            assert.notEqual(ring[1], "none", "and draws an outline");
            await page!.keyboard.press("Enter");
            await frame.waitForSelector(`#detail-name`, { timeout: CEILING_MS });
            assert.equal(await frame.textContent("#detail-name"), served[1]);
            assert.equal(await frame.evaluate(`document.activeElement?.id`), "detail-name");
          },
        );

        await t.step("SKILL.md renders as markdown; its <script> does not run", async () => {
          const frame = await viewFrame();
          await frame.click(`button.skill[data-name="markup-probe"]`);
          await until(
            "the probe's SKILL.md renders",
            async () => (await frame.textContent("#detail-name")) === "markup-probe",
          );
          const article = await frame.$eval("#skill-md", (element) => ({
            heading: element.querySelector("h1")?.textContent,
            text: element.textContent ?? "",
            scripts: element.querySelectorAll("script").length,
            images: element.querySelectorAll("img").length,
            links: element.querySelectorAll("a").length,
            table: element.querySelectorAll("table td").length,
            styled: element.querySelectorAll("[style]").length,
          }));
          assert.equal(article.heading, "Markup probe");
          assert.match(article.text, /<script>window\.parent\.postMessage/);
          assert.deepEqual(
            [article.scripts, article.images, article.links, article.styled],
            [0, 0, 0, 0],
          );
          assert.equal(article.table, 2);
          assert.notEqual(await frame.evaluate(`document.title`), "pwned");
          assert.notEqual(await page!.title(), "pwned");
          await page!.screenshot({ path: `${ARTIFACTS}skills-view.png` });
        });

        await t.step(
          "a host with the skills extension too: skill_load is withdrawn and the detail pane still works",
          async () => {
            const names = (await skillsHost.listTools()).tools.map((tool) => tool.name);
            assert.ok(!names.includes("skill_load"), "--tools=auto withdrew skill_load");
            assert.ok(names.includes("skill_browse_detail"));
            relayClient = skillsHost;
            try {
              await page!.evaluate(`window.openView("skill_browse", {})`);
              const frame = await viewFrame();
              await frame.waitForSelector(`button.skill[data-name="markup-probe"]`, {
                timeout: CEILING_MS,
              });
              await frame.click(`button.skill[data-name="markup-probe"]`);
              await until(
                "the probe's detail opens",
                async () => (await frame.textContent("#detail-name")) === "markup-probe",
              );
              assert.equal(await frame.$$eval("#detail .error", (found) => found.length), 0);
              const log = await page!.evaluate(`window.viewLog`) as string[];
              assert.ok(log.includes("call skill_browse_detail"), log.join("; "));
              assert.ok(!log.includes("call skill_load"), log.join("; "));
            } finally {
              relayClient = client;
            }
          },
        );

        await t.step(
          "settings view: disabling a skill writes overrides.json, after the user confirms",
          async () => {
            await page!.evaluate(`window.openView("skill_settings", {})`);
            const frame = await viewFrame();
            const box = `input[data-id="meeting-notes:enabled"]`;
            await frame.waitForSelector(box, { timeout: CEILING_MS });
            notified.length = 0;
            answers.push({ action: "accept", content: { run: true } });
            // Keyboard: focus the checkbox and toggle it with Space.
            await frame.focus(box);
            await page!.keyboard.press("Space");
            await until(
              "meeting-notes leaves skill_list",
              async () => !(await listed()).includes("meeting-notes"),
            );
            assert.equal(asked.length, 1);
            assert.match(asked[0]!, /Disable skill "meeting-notes"/);
            assert.equal(
              (forms[0] as { properties: { run: { title: string } } }).properties.run.title,
              "Make this change",
            );
            await until("the client hears list_changed", () => notified.length > 0);
            const file = JSON.parse(await Deno.readTextFile(overridesPath));
            assert.deepEqual(file.skills["meeting-notes"], { enabled: false });
            assert.deepEqual(file.setByView, { "meeting-notes": ["enabled"] });
            assert.deepEqual(file.skills["sql-review"], { enabled: false });
            await until(
              "the view shows it off",
              async () => !(await frame.isChecked(box)) && await frame.isEnabled(box),
            );
            await page!.screenshot({ path: `${ARTIFACTS}settings-view.png` });
          },
        );

        await t.step("a declined confirmation writes nothing", async () => {
          const frame = await viewFrame();
          const box = `input[data-id="log-triage:modelInvocable"]`;
          const before = await Deno.readTextFile(overridesPath);
          answers.push({ action: "decline" });
          await frame.click(box);
          await until(
            "the view says it was declined",
            async () => /did not agree/.test(await frame.textContent("#status") ?? ""),
          );
          assert.equal(await Deno.readTextFile(overridesPath), before);
        });

        await t.step("re-enabling a skill the owner disabled is refused", async () => {
          const frame = await viewFrame();
          const box = `input[data-id="sql-review:enabled"]`;
          assert.equal(await frame.isDisabled(box), true, "the view offers no way to do it");
          assert.match(await frame.textContent(`tr[data-name="sql-review"]`) ?? "", /owner/);
          // Assistive technology hears why: the checkbox's description says who turned it off.
          const described = await frame.$eval(
            box,
            (input) =>
              (input.getAttribute("aria-describedby") ?? "").split(" ").map((id: string) =>
                input.ownerDocument.getElementById(id)?.textContent ?? ""
              ).join(" "),
          );
          assert.match(described, /turned off by the owner/);
          // Whoever calls the tool, the server refuses: the visibility is only a hint.
          const asking = asked.length;
          const refused = await client.callTool({
            name: "skill_settings_write",
            arguments: { name: "sql-review", switch: "enabled", value: true },
          });
          assert.equal(refused.isError, true);
          const body = JSON.parse((refused.content as { text: string }[])[0]!.text);
          assert.equal(body.error, "OVERRIDE_OWNED");
          assert.equal(asked.length, asking, "a refusal never reaches the user");
          assert.ok(!(await listed()).includes("sql-review"));
        });

        await t.step("re-enabling what the view disabled works", async () => {
          const frame = await viewFrame();
          const box = `input[data-id="meeting-notes:enabled"]`;
          answers.push({ action: "accept", content: { run: true } });
          await frame.click(box);
          await until(
            "meeting-notes is back",
            async () => (await listed()).includes("meeting-notes"),
          );
          const file = JSON.parse(await Deno.readTextFile(overridesPath));
          assert.equal(file.skills["meeting-notes"], undefined);
          assert.equal(file.setByView, undefined);
          assert.deepEqual(file.skills["sql-review"], { enabled: false });
          assert.doesNotMatch(server.stderr(), /restart-needed/);
        });

        await t.step("the views ask the network for nothing and log no console error", () => {
          assert.deepEqual(requests, []);
          assert.deepEqual(consoleErrors, []);
        });
      } finally {
        await browser?.close();
        await client.close();
        await skillsHost.close();
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
