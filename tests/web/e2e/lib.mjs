// Shared helpers of the browser end-to-end specs. run.sh sets the environment: the server's
// address, its binary and config (for restarts), the users it created, the directory with
// the npm packages (outside the working tree) and the artifacts directory.
import { createRequire } from "node:module";
import { appendFileSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { connect } from "node:net";
import { join } from "node:path";
import assert from "node:assert/strict";

function need(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the specs through tests/web/run.sh`);
  return value;
}

const require = createRequire(join(need("E2E_DEPS"), "package.json"));
export const { chromium } = require("playwright-core");
export const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

export const site = need("E2E_SITE");
export const origin = new URL(site).origin;
export const users = JSON.parse(readFileSync(need("E2E_USERS"), "utf8"));
export const artifacts = need("ARTIFACTS_DIR");

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };
/** How long a live update (a message, reaction, edit) may take to show on the other side. */
export const LIVE_MS = 10_000;

export async function launch() {
  // Playwright gives the browser a fresh temporary profile (--user-data-dir) and --headless.
  return chromium.launch({
    executablePath: need("E2E_CHROMIUM"),
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}

// E2E_DEVPROXY=1 (development only, before the server's /login exists): each user's page is
// served by tests/web/devproxy.mjs on its own port, authenticated by the user's API key.
const devproxy = Boolean(process.env.E2E_DEVPROXY);
const bases = new WeakMap();
const proxies = [];
process.on("exit", () => proxies.forEach((p) => p.kill()));

/** The address of `path` on the server that serves `page` (the site, or its dev proxy). */
export function url(page, path) {
  return (bases.get(page) || site) + path;
}

async function freePort() {
  const { createServer } = await import("node:net");
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function openThroughProxy(page, who) {
  const port = await freePort();
  const script = new URL("../devproxy.mjs", import.meta.url).pathname;
  const user = users[who];
  const proxy = spawn(process.execPath, [script, "--upstream", site, "--email", user.email, "--api-key", user.api_key, "--port", String(port)], { stdio: "ignore" });
  proxy.unref();
  proxies.push(proxy);
  const base = `http://127.0.0.1:${port}`;
  bases.set(page, base);
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(base + "/");
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  await page.goto(base + "/");
}

/** Records what a page must never do: open a dialog (alert) or fetch from another origin. */
export function watch(page, marker = "marker.invalid") {
  const seen = { dialogs: [], foreign: [], errors: [] };
  page.on("dialog", (dialog) => {
    seen.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    dialog.dismiss().catch(() => {});
  });
  page.on("request", (request) => {
    const url = request.url();
    if (url.startsWith("data:") || url.startsWith("blob:") || url === "about:blank") return;
    if (!url.startsWith((bases.get(page) || origin) + "/") || url.includes(marker)) seen.foreign.push(url);
  });
  page.on("pageerror", (error) => seen.errors.push(String(error)));
  return seen;
}

/** A new browser context logged in as `who` through the real /login form, on the main view. */
export async function loginAs(browser, who, { viewport = DESKTOP, contextOptions = {} } = {}) {
  const context = await browser.newContext({ viewport, ...contextOptions });
  const page = await context.newPage();
  const seen = watch(page);
  if (devproxy) await openThroughProxy(page, who);
  else await loginWithForm(page, who);
  await waitForMainView(page, who);
  return { context, page, seen };
}

export async function loginWithForm(page, who) {
  const user = users[who];
  const response = await page.goto(`${site}/login`);
  assert.equal(response.status(), 200, `GET /login answered ${response.status()} instead of the login form`);
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password", { exact: true }).fill(user.password);
  await Promise.all([
    page.waitForURL((url) => !url.pathname.startsWith("/login"), { timeout: 10_000 }).catch(() => {}),
    page.getByRole("button", { name: "Log in" }).click(),
  ]);
  const url = new URL(page.url());
  if (url.pathname.startsWith("/login")) {
    const alert = await page.getByRole("alert").allTextContents().catch(() => []);
    assert.fail(`after "Log in" as ${user.email} the user stayed on ${url.pathname} (alert: ${alert.join(" ") || "none"})`);
  }
}

/** Waits until the message list is shown (the client booted: register done, first page in). */
export async function waitForMainView(page, who = "") {
  const messages = page.getByRole("region", { name: "Messages" });
  try {
    await messages.waitFor({ state: "visible", timeout: 15_000 });
    await page.locator("#app[aria-busy=true]").waitFor({ state: "detached", timeout: 15_000 }).catch(() => {});
  } catch {
    const text = (await page.locator("body").innerText().catch(() => "")).slice(0, 300);
    assert.fail(`${who || "the user"} saw no message list (region "Messages") at ${page.url()}; the page showed: ${JSON.stringify(text)}`);
  }
}

/** The chat API as a bot would call it: Basic auth with the user's API key. */
export async function api(who, method, path, params = {}) {
  const user = users[who];
  const auth = "Basic " + Buffer.from(`${user.email}:${user.api_key}`).toString("base64");
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) form.append(k, typeof v === "string" ? v : JSON.stringify(v));
  let url = `${site}/api/v1/${path}`;
  const init = { method, headers: { Authorization: auth } };
  if (method === "GET") {
    if ([...form].length) url += `?${form}`;
  } else {
    init.headers["Content-Type"] = "application/x-www-form-urlencoded";
    init.body = form.toString();
  }
  const response = await fetch(url, init);
  const body = await response.json();
  assert.equal(body.result, "success", `${method} /api/v1/${path} as ${who}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

/** Creates (or joins) a channel with both users subscribed. */
export async function channel(name) {
  await api("alice", "POST", "users/me/subscriptions", {
    subscriptions: [{ name }],
    principals: [users.alice.user_id, users.bob.user_id],
  });
  const { stream_id } = await api("alice", "GET", "get_stream_id", { stream: name });
  return stream_id;
}

export async function sendApi(who, channelName, topic, content) {
  const { id } = await api(who, "POST", "messages", { type: "stream", to: channelName, topic, content });
  return id;
}

export function messages(page) {
  return page.getByRole("region", { name: "Messages" });
}

export function message(page, text) {
  return messages(page).locator("article.message", { hasText: text });
}

/** Opens a channel (and topic) narrow through its client-side hash. */
export async function narrowTo(page, streamId, name, topic) {
  let hash = `#narrow/channel/${streamId}-${encodeURIComponent(name)}`;
  if (topic) hash += `/topic/${encodeURIComponent(topic)}`;
  await page.goto(url(page, `/${hash}`));
  await waitForMainView(page);
}

/** Opens the compose box if it is closed (key "c"), and returns its message textarea. */
export async function composeBox(page) {
  const box = page.getByRole("textbox", { name: "Message", exact: true });
  if (!(await box.isVisible())) {
    await messages(page).click({ position: { x: 5, y: 5 } }).catch(() => {});
    await page.keyboard.press("c");
  }
  await box.waitFor({ state: "visible", timeout: 5_000 });
  return box;
}

async function fillField(page, label, value) {
  const field = page.getByLabel(label, { exact: true }).first();
  if (!(await field.isVisible())) return false;
  const tag = await field.evaluate((el) => el.tagName);
  if (tag === "SELECT") await field.selectOption({ label: value });
  else await field.fill(value);
  return true;
}

/** Writes and sends a channel message through the compose box. */
export async function sendFromCompose(page, { channel: channelName, topic, content }) {
  const box = await composeBox(page);
  if (channelName) await fillField(page, "Channel", channelName);
  if (topic !== undefined) await fillField(page, "Topic", topic);
  await box.fill(content);
  await page.getByRole("button", { name: "Send", exact: true }).click();
}

export async function screenshot(page, name) {
  const path = join(artifacts, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}

/** Records one figure for the table run.sh prints (name, value, unit, the bound aimed at). */
export function figure(name, value, unit, bound = "") {
  appendFileSync(join(artifacts, "figures.jsonl"), JSON.stringify({ name, value, unit, bound }) + "\n");
}

// --- the server process (restart spec) ---

function alive(pid) {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // A killed child of run.sh's shell stays a zombie until the shell reaps it.
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

function portOpen() {
  const { hostname, port } = new URL(site);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}

/**
 * Stops the server with `signal` (SIGTERM: graceful, SIGKILL: a crash), runs `whileDown` (if
 * given) while it is down, and starts it again.
 */
export async function restartServer(signal, whileDown) {
  const pidfile = need("E2E_PIDFILE");
  const pid = Number(readFileSync(pidfile, "utf8").trim());
  process.kill(pid, signal);
  const deadline = Date.now() + 30_000;
  while (alive(pid)) {
    if (Date.now() > deadline) assert.fail(`the server did not stop within 30 s of ${signal}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  let failure = null;
  if (whileDown) await whileDown().catch((e) => (failure = e));
  const log = openSync(need("E2E_SERVER_LOG"), "a");
  const child = spawn(need("E2E_BIN"), ["serve", "--config", need("E2E_CONFIG")], {
    detached: true,
    stdio: ["ignore", log, log],
  });
  child.unref();
  writeFileSync(pidfile, `${child.pid}\n`);
  const started = Date.now();
  while (!(await portOpen())) {
    if (Date.now() > started + 30_000) assert.fail(`the server did not listen again after ${signal}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  if (failure) throw failure;
}

/** What the user sees in the message list: the last few messages, for failure messages. */
export async function shownMessages(page, last = 4) {
  const texts = await messages(page).locator("article.message").allInnerTexts().catch(() => []);
  const shown = texts.slice(-last).map((t) => t.replace(/\s+/g, " ").trim().slice(0, 120));
  return `${texts.length} messages shown${shown.length ? `, the last: ${JSON.stringify(shown)}` : ""}`;
}

/** Waits for `locator` to be visible; on failure says what `who` saw instead. */
export async function expectSeen(page, locator, who, what, timeout = LIVE_MS) {
  try {
    await locator.first().waitFor({ state: "visible", timeout });
  } catch {
    assert.fail(`${who} did not see ${what} within ${timeout / 1000} s at ${page.url()}; ${await shownMessages(page)}`);
  }
}

/** Shows a message's action buttons (hover) and returns the button named `name`. */
export async function messageAction(page, text, name) {
  const row = message(page, text).last();
  await row.scrollIntoViewIfNeeded();
  await row.hover();
  const button = row.getByRole("button", { name, exact: true });
  try {
    await button.waitFor({ state: "visible", timeout: 5_000 });
  } catch {
    const names = await row.getByRole("button").evaluateAll((bs) => bs.map((b) => b.getAttribute("aria-label") || b.textContent.trim()));
    assert.fail(`hovering the message "${text}" showed no "${name}" button (buttons: ${JSON.stringify(names)})`);
  }
  return button;
}

/** The id of the selected message (j/k), as the client marks it. */
export async function selectedMessageId(page) {
  return page.evaluate(() => {
    const el =
      document.querySelector(
        "article.message.selected, article.message.selected_message, article.message[aria-selected=true], article.message[aria-current=true]",
      ) || document.activeElement?.closest?.("article.message");
    return el ? Number(el.dataset.messageId) : null;
  });
}
