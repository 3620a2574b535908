/**
 * The views' entry: one bundle for both; `<body data-view>` says which.
 *
 * @module
 */

/// <reference lib="dom" />

import { createConnection } from "./connection.ts";
import { startSettingsView } from "./settings_view.ts";
import { startSkillsView } from "./skills_view.ts";

const root = document.getElementById("root") as HTMLElement;
const view = document.body.dataset.view;
const connection = createConnection(`skillgate-${view}`);
// The frame's title names the view for assistive technology.
document.title = view === "settings" ? "Skill settings · skillgate" : "Skills · skillgate";
if (view === "settings") await startSettingsView(root, connection);
else await startSkillsView(root, connection);
