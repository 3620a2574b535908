/**
 * The resources family: every file of every skill as `skill://<name>/<path>`
 * (and, for a client that renders MCP Apps, the two `ui://` views first),
 * served from the catalog snapshot with the SDK's low-level handlers
 * (`resources/list` with a real cursor, `resources/templates/list`,
 * `resources/read` through the path gate, `resources/subscribe` and
 * `resources/unsubscribe`).
 *
 * @module
 */

import { MAX_RESOURCE_READ_BYTES, RESOURCE_PAGE_SIZE } from "../../caps.ts";
import { clientShowsViews } from "../apps/app_meta.ts";
import { isViewUri, listedViewResources, readViewResource } from "../apps/view_resources.ts";
import { declaredCapabilities } from "../elicitation/input_round.ts";
import { holdAnswerBytes } from "../answer_budget.ts";
import type { MethodFamily } from "../family.ts";
import type { ResourceTemplate } from "../sdk.ts";
import { handlerExtra } from "../handler_extra.ts";
import { readSkillResource, resolveResourceUri } from "./read_resource.ts";
import { listResourcePage } from "./resource_page.ts";
import {
  catalogPrefixes,
  parseSkillUri,
  SKILL_FILE_URI_TEMPLATE,
  SKILL_PREFIXED_FILE_URI_TEMPLATE,
  skillFileUri,
} from "./skill_uri.ts";
import { addSubscription, removeSubscription } from "./subscriptions.ts";

/** The one resource template: any file of any skill. */
export const SKILL_FILE_TEMPLATE: Readonly<ResourceTemplate> = Object.freeze<ResourceTemplate>({
  uriTemplate: SKILL_FILE_URI_TEMPLATE,
  name: "skill-file",
  title: "A file of a skill",
  description: "Any file of a served skill by its relative path, e.g. " +
    "skill://theme-factory/SKILL.md (the skill's instructions) or " +
    "skill://theme-factory/themes/arctic-frost.md",
  annotations: { audience: ["assistant"] },
});

/** The template of a prefixed skill's files (a prefixed root's or a remote source's). */
export const SKILL_PREFIXED_FILE_TEMPLATE: Readonly<ResourceTemplate> = Object.freeze<
  ResourceTemplate
>({
  uriTemplate: SKILL_PREFIXED_FILE_URI_TEMPLATE,
  name: "prefixed-skill-file",
  title: "A file of a skill from a prefixed root or a remote source",
  description: "Any file of a skill served as PREFIX__NAME, e.g. " +
    "skill://acme-skills/pdf/SKILL.md for acme-skills__pdf",
  annotations: { audience: ["assistant"] },
});

/**
 * The resources family (capability `resources: {subscribe, listChanged}`,
 * both false on a stateless server, which can send no notifications).
 */
export const resourcesFamily: MethodFamily = {
  name: "resources",
  capabilities: (context) => {
    const canNotify = context.isStateless !== true;
    // Live refresh sends resources/list_changed; --static freezes the catalog (src/refresh/).
    const isLive = canNotify && !context.config.options.static;
    return { resources: { subscribe: canNotify, listChanged: isLive } };
  },
  install: (server, context) => {
    server.setRequestHandler("resources/list", (request, io) => {
      const page = listResourcePage(context.store.current(), {
        cursor: request.params?.cursor,
        pageSize: RESOURCE_PAGE_SIZE,
      });
      // The MCP Apps views open the first page, for a client that renders them
      // (2026-07-28: as this request declares; 2025-era: as initialize declared).
      const isFirstPage = request.params?.cursor === undefined;
      if (
        !isFirstPage ||
        !clientShowsViews(declaredCapabilities(io) ?? server.getClientCapabilities())
      ) {
        return page;
      }
      return { ...page, resources: [...listedViewResources(), ...page.resources] };
    });
    server.setRequestHandler(
      "resources/templates/list",
      () => ({ resourceTemplates: [SKILL_FILE_TEMPLATE, SKILL_PREFIXED_FILE_TEMPLATE] }),
    );
    server.setRequestHandler(
      "resources/read",
      (request, extra) =>
        // The MCP Apps views (ui://skillgate/...), then skill files.
        isViewUri(request.params.uri)
          ? readViewResource(request.params.uri)
          : readSkillResource(context.store.current(), request.params.uri, {
            maxBytes: MAX_RESOURCE_READ_BYTES,
            hold: (bytes) => holdAnswerBytes(handlerExtra(extra), bytes),
          }),
    );
    server.setRequestHandler("resources/subscribe", (request) => {
      // A listed view can be subscribed to like any listed resource; its page is fixed for
      // the life of the process, so no update ever follows.
      if (isViewUri(request.params.uri)) return {};
      const served = resolveResourceUri(context.store.current(), request.params.uri);
      addSubscription(server, served.uri);
      return {};
    });
    server.setRequestHandler("resources/unsubscribe", (request) => {
      const parsed = parseSkillUri(
        request.params.uri,
        catalogPrefixes(context.store.current()),
      );
      if (parsed.ok) removeSubscription(server, skillFileUri(parsed.name, parsed.path));
      return {};
    });
  },
};
