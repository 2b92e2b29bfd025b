// Development proxy for the browser client: serves src/web/client/ straight from disk as
// separate modules (no bundle, no rebuild of the executable after editing JavaScript or CSS)
// and forwards the client's API calls to a running `outpost serve`, authenticated as one
// user by HTTP Basic.
//
//   node tests/web/devproxy.mjs --upstream http://127.0.0.1:9991 \
//        --email iago@zulip.com --api-key KEY --port 8080
//
// The page carries no register state (the client registers itself). `/json/<path>` is
// forwarded to `/api/v1/<path>`; `/user_uploads/`, `/user_avatars/` and
// `/static/generated/` are forwarded as they are. The page gets the CSRF token "dev", which
// the proxy does not check: CSRF and sessions are the real server's job. Loopback only.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values: opts } = parseArgs({
  options: {
    upstream: { type: "string", default: "http://127.0.0.1:9991" },
    email: { type: "string" },
    "api-key": { type: "string" },
    port: { type: "string", default: "8080" },
  },
});
if (!opts.email || !opts["api-key"]) {
  console.error("usage: devproxy.mjs --upstream URL --email EMAIL --api-key KEY [--port N]");
  process.exit(2);
}
const clientDir = fileURLToPath(new URL("../../src/web/client/", import.meta.url));
const auth = "Basic " + Buffer.from(`${opts.email}:${opts["api-key"]}`).toString("base64");
const types = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
};
const csp =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
  "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

async function serveFile(res, rel) {
  const path = normalize(join(clientDir, rel));
  if (!path.startsWith(clientDir)) return notFound(res);
  try {
    let body = await readFile(path);
    if (rel === "index.html") {
      body = body
        .toString()
        .replaceAll("{{entry}}", "main.js")
        .replaceAll("{{static}}", "/static/dev")
        .replaceAll("{{csrf_token}}", "dev")
        .replaceAll("{{initial_state}}", "");
    }
    res.writeHead(200, {
      "Content-Type": types[extname(path)] || "application/octet-stream",
      "Content-Security-Policy": csp,
      "Cache-Control": "no-store",
    });
    res.end(body);
  } catch {
    notFound(res);
  }
}

function notFound(res) {
  res.writeHead(404, { "Content-Type": "text/plain" });
  res.end("not found");
}

async function forward(req, res, target) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const headers = { Authorization: auth };
  for (const name of ["content-type", "accept", "range"]) {
    if (req.headers[name]) headers[name] = req.headers[name];
  }
  const hasBody = !["GET", "HEAD"].includes(req.method);
  const answer = await fetch(opts.upstream + target, {
    method: req.method,
    headers,
    body: hasBody ? Buffer.concat(chunks) : undefined,
    redirect: "manual",
  });
  const out = {};
  for (const [name, value] of answer.headers) {
    if (!["content-encoding", "content-length", "transfer-encoding", "connection"].includes(name)) {
      out[name] = value;
    }
  }
  res.writeHead(answer.status, out);
  res.end(Buffer.from(await answer.arrayBuffer()));
}

createServer(async (req, res) => {
  try {
    const url = new URL(req.url, "http://localhost");
    const path = url.pathname;
    if (path === "/" || path === "/login") return serveFile(res, "index.html");
    if (path.startsWith("/static/dev/")) return serveFile(res, path.slice("/static/dev/".length));
    if (path.startsWith("/json/")) {
      return forward(req, res, "/api/v1/" + path.slice("/json/".length) + url.search);
    }
    if (/^\/(user_uploads|user_avatars|static\/generated)\//.test(path)) {
      return forward(req, res, path + url.search);
    }
    notFound(res);
  } catch (err) {
    res.writeHead(502, { "Content-Type": "text/plain" });
    res.end(String(err));
  }
}).listen(Number(opts.port), "127.0.0.1", () => {
  console.log(`devproxy on http://127.0.0.1:${opts.port}/ -> ${opts.upstream} as ${opts.email}`);
});
