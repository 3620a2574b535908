/**
 * DOM helpers for the views: elements are built with text nodes only (never
 * `innerHTML`, except the markdown renderer's output in `markdown.ts`).
 *
 * @module
 */

/// <reference lib="dom" />

/** Attributes and listeners of {@linkcode h}. */
export type Attributes = Record<string, string | boolean | ((event: Event) => void) | undefined>;

/**
 * Creates an element.
 *
 * @param tag The tag name.
 * @param attributes Attributes (`true` sets an empty one, `false`/undefined none); a
 *   function under `on<event>` is added as a listener.
 * @param children Text (as a text node) or elements.
 * @returns The element.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: (Node | string | null | undefined)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value === "function") element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, "");
    else if (typeof value === "string") element.setAttribute(name, value);
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    element.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return element;
}

/**
 * Replaces an element's children.
 *
 * @param parent The element.
 * @param children The new children.
 */
export function replaceChildren(parent: Element, ...children: (Node | string)[]): void {
  parent.replaceChildren(...children);
}

/**
 * Moves focus among `items` with the arrow keys, Home and End.
 *
 * @param container The element that receives the key events.
 * @param items Returns the focusable items, in order.
 */
export function arrowKeyNavigation(container: HTMLElement, items: () => HTMLElement[]): void {
  container.addEventListener("keydown", (event: KeyboardEvent) => {
    const list = items();
    const at = list.indexOf(document.activeElement as HTMLElement);
    let next = -1;
    if (event.key === "ArrowDown") next = Math.min(at + 1, list.length - 1);
    else if (event.key === "ArrowUp") next = Math.max(at - 1, 0);
    else if (event.key === "Home") next = 0;
    else if (event.key === "End") next = list.length - 1;
    else return;
    event.preventDefault();
    list[next]?.focus();
  });
}
