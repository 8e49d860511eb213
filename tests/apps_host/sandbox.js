/* The sandbox proxy a web host puts between itself and a view (MCP Apps, "Sandbox proxy"): served from
 * another origin than the host's, under the content security policy the host built from the view's declared
 * `_meta.ui.csp` (an HTTP header, set by the test's server from `?csp=`). It loads the view's HTML into an
 * inner frame and relays every message between host and view, except its own `ui/notifications/sandbox-*`. */
"use strict";
(() => {
  const HOST_ORIGIN = new URL(document.referrer).origin;
  const inner = document.createElement("iframe");
  inner.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
  document.body.append(inner);

  window.addEventListener("message", (event) => {
    if (event.source === window.parent && event.origin === HOST_ORIGIN) {
      const message = event.data;
      if (message?.method === "ui/notifications/sandbox-resource-ready") {
        const view = inner.contentDocument;
        view.open();
        view.write(message.params.html);
        view.close();
      } else {
        inner.contentWindow.postMessage(message, "*");
      }
    } else if (event.source === inner.contentWindow) {
      window.parent.postMessage(event.data, HOST_ORIGIN);
    }
  });
  window.parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} }, HOST_ORIGIN);
})();
