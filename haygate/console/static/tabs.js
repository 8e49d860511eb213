/* The tabs: the URL's hash names the open panel; each panel may hook its showing, hiding and leaving. */

import { $, $$ } from "./dom.js";
import { state } from "./state.js";

export const TABS = ["tools", "compare", "collections", "judge", "evaluations", "live"];
export const tabHooks = {}; // name -> {show(), hide(), canLeave()}, filled by each panel

/** The tab a hash names; the Tools tab for any other hash. */
export function tabOf(hash) {
  const name = hash.replace(/^#/, "");
  return TABS.includes(name) ? name : "tools";
}

function selectTab(name) {
  if (state.activeTab === name) return;
  const previous = state.activeTab;
  if (previous && tabHooks[previous]?.canLeave && !tabHooks[previous].canLeave()) {
    // Stay: put the hash back without another hashchange, and the focus on the tab that stays open.
    history.replaceState(null, "", `#${previous}`);
    if (document.activeElement?.getAttribute("role") === "tab") $(`#tab-${previous}`).focus();
    return;
  }
  state.activeTab = name;
  for (const tab of TABS) {
    const button = $(`#tab-${tab}`);
    const selected = tab === name;
    button.setAttribute("aria-selected", String(selected));
    button.tabIndex = selected ? 0 : -1;
    $(`#panel-${tab}`).hidden = !selected;
  }
  if (previous && tabHooks[previous]?.hide) tabHooks[previous].hide();
  if (tabHooks[name]?.show) tabHooks[name].show();
}

export function initTabs() {
  for (const button of $$('[role="tab"]')) {
    // The hash is the source of truth, so a link or the back button opens the same panel.
    button.addEventListener("click", () => {
      if (location.hash !== `#${button.dataset.tab}`) location.hash = button.dataset.tab;
      else selectTab(button.dataset.tab);
    });
    button.addEventListener("keydown", (event) => {
      const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
      if (!step) return;
      const index = (TABS.indexOf(button.dataset.tab) + step + TABS.length) % TABS.length;
      $(`#tab-${TABS[index]}`).focus();
      location.hash = TABS[index];
    });
  }
  window.addEventListener("hashchange", () => selectTab(tabOf(location.hash)));
  selectTab(tabOf(location.hash));
}
