/* A web host of MCP Apps for tests/integration/test_mcp_app.py, built as ext-apps' examples/basic-host is:
 * the MCP TypeScript SDK's client over streamable HTTP to the served haygate, and ext-apps' own AppBridge
 * speaking to the view through a sandbox proxy on another origin (sandbox.html). Bundled with esbuild when
 * the test starts. The test drives it through `window.haygateHost`, and reads `window.viewMessages`: every
 * JSON-RPC message that passed between this page and the view. */
import { AppBridge, PostMessageTransport, RESOURCE_MIME_TYPE, getToolUiResourceUri } from "@modelcontextprotocol/ext-apps/app-bridge";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const HOST = { name: "haygate test host", version: "1.0.0" };
const MAX_HEIGHT = 780;
const query = new URLSearchParams(location.search);
const SERVER = new URL(query.get("server"));
const SANDBOX = new URL(query.get("sandbox"));

window.viewMessages = [];

async function connect() {
  // The host declares MCP Apps (SEP-1724's extensions capability), as the extension asks hosts to; with
  // `?declare=no` it declares nothing, as VS Code's client and the extension's own basic-host do.
  const declared = query.get("declare") !== "no";
  const capabilities = declared ? { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [RESOURCE_MIME_TYPE] } } } : {};
  const client = new Client(HOST, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(SERVER));
  const tools = new Map((await client.listTools()).tools.map((tool) => [tool.name, tool]));
  return { client, tools };
}

async function uiResource(client, uri) {
  const { contents } = await client.readResource({ uri });
  if (contents.length !== 1 || contents[0].mimeType !== RESOURCE_MIME_TYPE) throw new Error(`not an MCP App: ${uri}`);
  const content = contents[0];
  return { html: "blob" in content ? atob(content.blob) : content.text, csp: content._meta?.ui?.csp, permissions: content._meta?.ui?.permissions };
}

function loadSandbox(iframe, csp) {
  const url = new URL(SANDBOX);
  if (csp) url.searchParams.set("csp", JSON.stringify(csp));
  iframe.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
  const ready = new Promise((resolve) => {
    const listener = ({ source, data }) => {
      if (source === iframe.contentWindow && data?.method === "ui/notifications/sandbox-proxy-ready") {
        window.removeEventListener("message", listener);
        resolve();
      }
    };
    window.addEventListener("message", listener);
  });
  iframe.src = url.href;
  return ready;
}

/** Calls a tool as a model would, and shows its result in the tool's view. */
async function show(name, args) {
  const { client, tools } = await connection;
  const tool = tools.get(name);
  const uri = getToolUiResourceUri(tool);
  if (!uri) throw new Error(`${name} has no view`);
  const resultPromise = client.callTool({ name, arguments: args });
  const resource = await uiResource(client, uri);

  const iframe = document.createElement("iframe");
  iframe.id = "app";
  iframe.title = `${name} view`;
  document.getElementById("call").textContent = `${name} ${JSON.stringify(args)}`;
  document.getElementById("apps").replaceChildren(iframe);
  await loadSandbox(iframe, resource.csp);
  window.addEventListener("message", ({ source, data }) => {
    if (source === iframe.contentWindow && data?.jsonrpc === "2.0") window.viewMessages.push({ from: "view", ...data });
  });

  const bridge = new AppBridge(client, HOST, { openLinks: {}, serverTools: client.getServerCapabilities()?.tools, serverResources: client.getServerCapabilities()?.resources });
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) iframe.style.height = `${Math.min(height, MAX_HEIGHT)}px`; // taller views scroll
  };
  const initialized = new Promise((resolve) => (bridge.oninitialized = resolve));
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  // A view may call only the tools whose visibility includes "app" (every tool, when none is declared).
  const forward = bridge.oncalltool;
  bridge.oncalltool = async (params, extra) => {
    const visibility = tools.get(params.name)?._meta?.ui?.visibility ?? ["model", "app"];
    if (!visibility.includes("app")) throw new Error(`${params.name} is not for apps`);
    return forward(params, extra);
  };
  await bridge.sendSandboxResourceReady({ html: resource.html, csp: resource.csp, permissions: resource.permissions });
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(await resultPromise);
  return true;
}

const connection = connect();
window.haygateHost = {
  ready: connection.then(({ tools }) => Array.from(tools.values(), (tool) => ({ name: tool.name, ui: tool._meta?.ui ?? null }))),
  show,
};
