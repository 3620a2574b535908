/**
 * TEST ONLY: a small MCP Apps host for the browser tests
 * (`tests/e2e/views_browser_test.ts`). It implements the host side with
 * ext-apps' `AppBridge`: finds a tool's view in `tools/list` (`_meta.ui`),
 * reads the `ui://` resource, renders it in a sandboxed iframe (scripts only,
 * opaque origin), and forwards the view's tool calls to the real skillgate
 * through `relay()`, a function the test exposes (it holds the MCP client
 * connected over HTTP with the bearer token). A tool whose visibility leaves
 * out "app" is refused to the view, as a host must.
 *
 * @module
 */

/// <reference lib="dom" />

import {
  AppBridge,
  getToolUiResourceUri,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
} from "@modelcontextprotocol/ext-apps/app-bridge";

declare global {
  /** Exposed by the test: one MCP request to skillgate, answered with its result. */
  function relay(method: string, params: unknown): Promise<unknown>;
  /** Opens a tool's view in the iframe and hands it the tool's input and result. */
  var openView: (toolName: string, args: Record<string, unknown>) => Promise<void>;
  /** Passes a server's list_changed notification on to the open view. */
  var notifyListChanged: (kind: "tools" | "resources" | "prompts") => Promise<void>;
  /** What the host saw, for a failing test's message. */
  var viewLog: string[];
}

type ListedTool = { name: string; _meta?: Record<string, unknown> };

let bridge: AppBridge | null = null;
let tools: ListedTool[] = [];
globalThis.viewLog = [];

globalThis.openView = async (toolName, args) => {
  tools = ((await relay("tools/list", {})) as { tools: ListedTool[] }).tools;
  const tool = tools.find((candidate) => candidate.name === toolName);
  const uri = tool === undefined ? undefined : getToolUiResourceUri(tool);
  if (uri === undefined) throw new Error(`${toolName} names no view`);
  const read = (await relay("resources/read", { uri })) as {
    contents: { mimeType?: string; text?: string }[];
  };
  const content = read.contents[0];
  if (content?.mimeType !== RESOURCE_MIME_TYPE || typeof content.text !== "string") {
    throw new Error(`${uri} is not an MCP Apps view`);
  }
  await bridge?.close();
  const frame = document.createElement("iframe");
  frame.setAttribute("sandbox", "allow-scripts");
  frame.title = toolName;
  frame.id = "view";
  document.getElementById("views")!.replaceChildren(frame);
  const next = new AppBridge(
    null,
    { name: "skillgate-test-host", version: "1.0.0" },
    { serverTools: { listChanged: true }, serverResources: {}, logging: {} },
  );
  next.oncalltool = async (params) => {
    const called = tools.find((candidate) => candidate.name === params.name);
    const visibility = (called?._meta?.ui as { visibility?: string[] } | undefined)?.visibility;
    if (called === undefined || (visibility !== undefined && !visibility.includes("app"))) {
      throw new Error(`The view may not call ${params.name}`);
    }
    globalThis.viewLog.push(`call ${params.name}`);
    return (await relay("tools/call", params)) as Awaited<
      ReturnType<NonNullable<AppBridge["oncalltool"]>>
    >;
  };
  next.onreadresource = async (params) =>
    (await relay("resources/read", params)) as Awaited<
      ReturnType<NonNullable<AppBridge["onreadresource"]>>
    >;
  next.oninitialized = async () => {
    await next.sendToolInput({ arguments: args });
    const result = await relay("tools/call", { name: toolName, arguments: args });
    await next.sendToolResult(result as Parameters<AppBridge["sendToolResult"]>[0]);
    globalThis.viewLog.push(`opened ${toolName}`);
  };
  await next.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  bridge = next;
  frame.srcdoc = content.text;
};

globalThis.notifyListChanged = async (kind) => {
  globalThis.viewLog.push(`${kind} list changed`);
  if (bridge === null) return;
  if (kind === "tools") await bridge.sendToolListChanged();
  if (kind === "resources") await bridge.sendResourceListChanged();
  if (kind === "prompts") await bridge.sendPromptListChanged();
};
