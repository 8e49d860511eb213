/* The page's state, one object the panels share. */

export const state = {
  info: null,
  tools: [],
  pipelines: null,
  toolsByName: new Map(),
  activeTab: null,
  collection: null, // the collection being browsed
  documentsNext: null,
  plotUrl: null, // the current blob: URL, revoked when replaced
  reports: new Map(),
  liveTimer: null,
};
