/**
 * SKILL.md as HTML, safely: markdown-it with raw HTML off (a `<script>` in a
 * skill is shown as text), links and images rendered as text (no navigation,
 * no remote fetch: the CSP blocks both anyway), no inline styles.
 *
 * @module
 */

/// <reference lib="dom" />

import MarkdownIt from "markdown-it";

const renderer = new MarkdownIt({ html: false, linkify: false, typographer: false });
const rules = renderer.renderer.rules;
// An image is its alt text: no request leaves the view.
rules.image = (tokens, index) => {
  const alt = renderer.utils.escapeHtml(tokens[index]!.content);
  return `<span class="image">[image: ${alt}]</span>`;
};
// A link is its text, with the target shown after it; nothing to click.
rules.link_open = () => `<span class="link">`;
rules.link_close = (tokens, index) => {
  let open = index - 1;
  while (open >= 0 && tokens[open]!.type !== "link_open") open--;
  const href = open >= 0 ? tokens[open]!.attrGet("href") ?? "" : "";
  return `</span> <span class="url">(${renderer.utils.escapeHtml(String(href))})</span>`;
};
// Table alignment would be an inline style, which the CSP refuses: left out.
for (const name of ["th_open", "td_open"]) {
  rules[name] = (tokens, index, options, _env, self) => {
    const token = tokens[index]!;
    token.attrs = null;
    return self.renderToken(tokens, index, options);
  };
}

/**
 * Renders markdown to HTML with raw HTML escaped.
 *
 * @param text The markdown (a skill's SKILL.md body).
 * @returns HTML holding no element that runs, loads or navigates.
 */
export function renderMarkdown(text: string): string {
  return renderer.render(text);
}
