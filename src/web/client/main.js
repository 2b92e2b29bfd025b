// Entry point of the browser client: registers, builds the store and the page layout (top
// bar, channels sidebar, message view with compose, users sidebar), routes URL hashes to
// narrows or settings, runs the event loop and dispatches each event to the store, the views
// and the feature modules (through `ctx`), and applies the theme.
import { api, csrfToken } from "./api.js";
import { register, startEventLoop } from "./events.js";
import { applyEvent, createStore, setTopics, typingIn, unreadSummary } from "./store.js";
import { narrowTitle, parseHash } from "./narrow.js";
import { h, namesFor } from "./render.js";
import { renderSidebar } from "./sidebar.js";
import { MessageList } from "./message_list.js";
import { Compose } from "./compose.js";
import { createActions } from "./message_actions.js";
import { createSearch } from "./search.js";
import { installKeyboard } from "./keyboard.js";
import { notificationsAvailable, notifyMessage, soundMessage } from "./notify.js";
import { mountUserList } from "./user_list.js";
import { openProfileCard } from "./profile_card.js";
import { mountSettings } from "./settings.js";
import { themeFor } from "./theme.js";
import { mountDrafts } from "./drafts.js";
import { openTopicMenu } from "./topic_menu.js";
import { openChannelMenu } from "./channel_menu.js";
import { mountChannels } from "./channels_view.js";

const root = document.getElementById("app");

function meFrom(initial, store) {
  const u = store.users.get(initial.user_id) || {};
  return {
    ...u,
    user_id: initial.user_id,
    email: initial.email,
    delivery_email: initial.delivery_email,
    full_name: initial.full_name,
    role: u.role,
    is_admin: initial.is_admin,
    is_owner: initial.is_owner,
    is_moderator: initial.is_moderator,
    is_guest: initial.is_guest,
    avatar_url: initial.avatar_url,
  };
}

/**
 * The register answer the page shell carries (the server registered for this page), once:
 * null when there is none (the development proxy, or the server could not), and the client
 * registers by itself.
 */
function embeddedState() {
  const el = document.getElementById("initial-state");
  if (!el) return null;
  const text = el.textContent;
  el.remove();
  try {
    const state = text.trim() ? JSON.parse(text) : null;
    return state && typeof state.queue_id === "string" ? state : null;
  } catch {
    return null;
  }
}

async function boot() {
  performance.mark("outpost:boot");
  let initial;
  try {
    initial = embeddedState() || (await register(api));
  } catch (err) {
    root.removeAttribute("aria-busy");
    if (err.status === 401) {
      window.location.href = "/login";
      return;
    }
    root.replaceChildren(h("p", { role: "alert", class: "boot-error" }, `Could not connect: ${err.message}. `,
      h("a", { href: "" }, "Reload")));
    return;
  }
  const app = { api, store: createStore(initial), terms: [], mode: "messages", handlers: new Map() };
  const darkQuery = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  const applyTheme = () => {
    document.documentElement.dataset.theme = themeFor(app.store.settings.color_scheme, darkQuery && darkQuery.matches);
  };
  applyTheme();
  if (darkQuery) darkQuery.addEventListener("change", applyTheme);

  // ctx for the feature modules
  const ctx = {
    api,
    initial,
    me: meFrom(initial, app.store),
    users: app.store.users,
    onEvent(type, handler) {
      if (!app.handlers.has(type)) app.handlers.set(type, new Set());
      app.handlers.get(type).add(handler);
      return () => app.handlers.get(type).delete(handler);
    },
    navigate: (hash) => app.navigate(hash),
    toast: (text) => app.toast(text),
  };
  app.ctx = ctx;

  // Layout
  const toasts = h("div", { class: "toasts", role: "status", "aria-live": "polite" });
  const banner = h("div", { class: "connection-banner", role: "status", hidden: true });
  const nav = h("nav", { id: "left-sidebar", class: "left-sidebar", "aria-label": "Channels" });
  const aside = h("aside", { id: "right-sidebar", class: "right-sidebar", "aria-label": "Users" });
  const title = h("h1", { class: "narrow-title", id: "narrow-title" }, "All messages");
  const typing = h("p", { class: "typing-status", "aria-live": "polite" });
  const settingsPane = h("div", { class: "settings-pane", hidden: true });
  app.toast = (text) => {
    const t = h("p", { class: "toast" }, text);
    toasts.append(t);
    setTimeout(() => t.remove(), 6000);
  };
  app.queueId = () => (app.loop ? app.loop.queueId : initial.queue_id);
  app.currentHash = () => window.location.hash || "#all-messages";
  app.navigate = (hash) => {
    if (window.location.hash === hash) safeRoute();
    else window.location.hash = hash;
  };
  const list = new MessageList({ app, toolbar: (m) => actions.toolbar(m), onReaction: (m, g) => actions.toggleReaction(m, g) });
  app.list = list;
  // The first view's messages are on their way while the page is built.
  const firstTerms = parseHash(app.currentHash());
  if (firstTerms) list.prefetch(firstTerms);
  const actions = createActions(app);
  const compose = new Compose(app);
  app.compose = compose;
  const search = createSearch(app);
  app.search = search;

  const leftToggle = h("button", { type: "button", class: "panel-toggle left-toggle", "aria-controls": "left-sidebar", "aria-expanded": "false",
    onclick: () => togglePanel("left") }, h("span", { "aria-hidden": "true" }, "☰"), h("span", { class: "sr-only" }, "Show channels"));
  const rightToggle = h("button", { type: "button", class: "panel-toggle right-toggle", "aria-controls": "right-sidebar", "aria-expanded": "false",
    onclick: () => togglePanel("right") }, h("span", { "aria-hidden": "true" }, "Users"), h("span", { class: "sr-only" }, "Show users"));
  const layout = h("div", { class: "layout" });
  function togglePanel(side, force) {
    const cls = side === "left" ? "show-left" : "show-right";
    const on = force !== undefined ? force : !layout.classList.contains(cls);
    layout.classList.toggle(cls, on);
    (side === "left" ? leftToggle : rightToggle).setAttribute("aria-expanded", String(on));
    if (on) (side === "left" ? nav : aside).querySelector("a, button")?.focus();
  }
  app.closePanels = () => {
    togglePanel("left", false);
    togglePanel("right", false);
  };

  const markAll = h("button", { type: "button", class: "mark-all", onclick: async () => {
    try {
      await api.post("mark_all_as_read");
    } catch {
      try {
        await api.post("messages/flags/narrow", { narrow: [], anchor: "oldest", num_before: 0, num_after: 5000, op: "add", flag: "read" });
      } catch (err) {
        app.toast(`Could not mark as read: ${err.message}`);
      }
    }
  } }, "Mark all as read");
  const notifyButton = notificationsAvailable() && Notification.permission === "default"
    ? h("button", { type: "button", class: "notify-enable", onclick: async (e) => {
      const btn = e.currentTarget;
      try {
        await Notification.requestPermission();
        btn.remove();
      } catch (err) {
        app.toast(`Could not enable notifications: ${err.message}`);
      }
    } }, "Enable notifications")
    : null;
  const header = h("header", { class: "top-bar" },
    leftToggle,
    h("a", { class: "brand", href: "#all-messages" }, initial.realm_name || "Outpost"),
    search.form,
    h("div", { class: "top-actions" },
      markAll,
      notifyButton,
      h("button", { type: "button", class: "settings-button", onclick: () => app.navigate("#settings/profile") }, "Settings"),
      h("form", { method: "post", action: "/logout", class: "logout" },
        h("input", { type: "hidden", name: "csrf_token", value: csrfToken() }),
        h("button", { type: "submit" }, "Log out")),
      rightToggle));
  const main = h("main", { id: "main", class: "center", "aria-labelledby": "narrow-title" },
    h("div", { class: "narrow-header" }, title), list.section, list.jump, typing, compose.form, settingsPane);
  layout.append(nav, main, aside);
  layout.addEventListener("click", (e) => {
    if (e.target === layout) app.closePanels();
    if (e.target.closest && e.target.closest(".left-sidebar a")) togglePanel("left", false);
  });
  list.section.addEventListener("click", (e) => {
    const name = e.target.closest && e.target.closest("button.sender-name, .message-content .user-mention[data-user-id]");
    if (name) openProfileCard(Number(name.dataset.userId), ctx);
    const topicButton = e.target.closest && e.target.closest("button.topic-options");
    if (topicButton) openTopicMenu(app, topicButton, Number(topicButton.dataset.streamId), topicButton.dataset.topic);
    const resolve = e.target.closest && e.target.closest("button.resolve-topic");
    if (resolve) actions.toggleResolved(app.store.messages.get(Number(resolve.dataset.messageId)));
    const art = e.target.closest && e.target.closest("article.message");
    if (art && !e.target.closest("button, a, textarea")) {
      const id = Number(art.dataset.messageId);
      if (Number.isInteger(id)) list.select(id, { focus: false });
    }
  });
  // Channel and topic menus in the sidebar: the options buttons, or a right click on the row.
  const sidebarMenu = (e, at) => {
    const target = e.target.closest && e.target.closest("button.side-options, li.topic, li.channel");
    if (!target) return false;
    const el = target.matches("button") ? target : target.querySelector(":scope > button.side-options");
    if (!el) return false;
    const streamId = Number(el.dataset.streamId);
    if (el.classList.contains("topic-options")) openTopicMenu(app, el, streamId, el.dataset.topic, at);
    else openChannelMenu(app, el, streamId, at);
    return true;
  };
  nav.addEventListener("click", (e) => {
    if (e.target.closest && e.target.closest("button.side-options")) sidebarMenu(e, null);
  });
  nav.addEventListener("contextmenu", (e) => {
    if (sidebarMenu(e, { x: e.clientX, y: e.clientY })) e.preventDefault();
  });
  root.replaceChildren(h("a", { class: "skip-link", href: "#main", onclick: (e) => { e.preventDefault(); list.section.focus(); } }, "Skip to messages"),
    header, banner, layout, toasts);
  root.removeAttribute("aria-busy");

  // Routing
  let settingsHandle = null;
  async function route() {
    const hash = app.currentHash();
    const settingsMatch = /^#(settings|organization)(?:\/(.*))?$/.exec(hash);
    if (settingsMatch) {
      app.mode = "settings";
      app.terms = [];
      list.section.hidden = true;
      compose.form.hidden = true;
      typing.hidden = true;
      settingsPane.hidden = false;
      title.textContent = settingsMatch[1] === "settings" ? "Settings" : "Organization settings";
      if (settingsHandle) settingsHandle.unmount();
      settingsPane.replaceChildren();
      list.jump.hidden = true;
      const section = settingsMatch[1] === "organization" ? `organization/${settingsMatch[2] || "profile"}` : settingsMatch[2] || "profile";
      settingsHandle = mountSettings(settingsPane, ctx, section);
      document.title = `${title.textContent} - ${initial.realm_name}`;
      renderSidebar(nav, app);
      return;
    }
    if (settingsHandle) {
      settingsHandle.unmount();
      settingsHandle = null;
    }
    settingsPane.replaceChildren();
    if (hash === "#channels") {
      app.mode = "channels";
      app.terms = [];
      list.section.hidden = true;
      list.jump.hidden = true;
      compose.form.hidden = true;
      typing.hidden = true;
      settingsPane.hidden = false;
      title.textContent = "Browse channels";
      document.title = `Browse channels - ${initial.realm_name}`;
      renderSidebar(nav, app);
      settingsHandle = mountChannels(settingsPane, app);
      return;
    }
    if (hash === "#drafts") {
      app.mode = "drafts";
      app.terms = [];
      list.section.hidden = true;
      compose.form.hidden = true;
      typing.hidden = true;
      settingsPane.hidden = false;
      title.textContent = "Drafts";
      list.jump.hidden = true;
      document.title = `Drafts - ${initial.realm_name}`;
      renderSidebar(nav, app);
      mountDrafts(settingsPane, app);
      return;
    }
    app.mode = "messages";
    settingsPane.hidden = true;
    list.section.hidden = false;
    compose.form.hidden = false;
    typing.hidden = false;
    const terms = parseHash(hash);
    app.terms = terms || [];
    title.textContent = narrowTitle(app.terms, namesFor(app.store));
    document.title = `${title.textContent} - ${initial.realm_name}`;
    search.show(app.terms);
    compose.followNarrow(app.terms);
    const ch = app.terms.find((t) => t.operator === "channel" && typeof t.operand === "number");
    renderSidebar(nav, app);
    updateTyping();
    list.open(app.terms);
    if (ch) {
      try {
        const answer = await api.get(`users/me/${ch.operand}/topics`);
        setTopics(app.store, ch.operand, answer.topics);
        renderSidebar(nav, app);
      } catch {
        // topics come from messages then
      }
    }
  }
  // A view that fails to open says so instead of leaving the page half-switched.
  const safeRoute = () => Promise.resolve().then(route).catch((err) => {
    console.error(err);
    settingsPane.hidden = false;
    settingsPane.replaceChildren(h("p", { role: "alert", class: "view-error" }, `Could not open this view: ${err.message}. `,
      h("a", { href: "#all-messages" }, "Back to all messages")));
  });
  window.addEventListener("hashchange", safeRoute);
  // Last resort for promise rejections no handler caught: tell the user rather than fail silently.
  window.addEventListener("unhandledrejection", (e) => {
    const reason = e.reason;
    if (reason && reason.name === "AbortError") return;
    console.error(reason);
    app.toast(`Something went wrong: ${(reason && reason.message) || reason}`);
  });

  function updateTyping() {
    const s = app.store;
    const ch = app.terms.find((t) => t.operator === "channel");
    const tp = app.terms.find((t) => t.operator === "topic");
    const dm = app.terms.find((t) => t.operator === "dm");
    let key = null;
    if (ch && tp) key = `stream:${ch.operand}:${String(tp.operand).toLowerCase()}`;
    else if (dm && Array.isArray(dm.operand)) key = `dm:${dm.operand.slice().sort((a, b) => a - b).join(",")}`;
    // Stale entries (a lost "stop" event) expire after typingIn's window.
    const who = key ? typingIn(s, key) : [];
    const names = who.map((id) => (s.users.get(id) || {}).full_name || "Someone");
    typing.textContent = names.length ? `${names.join(", ")} ${names.length === 1 ? "is" : "are"} typing…` : "";
  }

  function updateTitleCount() {
    const n = unreadSummary(app.store).all;
    document.title = `${n ? `(${n}) ` : ""}${title.textContent} - ${initial.realm_name}`;
  }

  // Events
  let sidebarQueued = false;
  const queueSidebar = () => {
    if (sidebarQueued) return;
    sidebarQueued = true;
    requestAnimationFrame(() => {
      sidebarQueued = false;
      renderSidebar(nav, app);
      updateTitleCount();
    });
  };
  function onEvents(events) {
    for (const ev of events) {
      try {
        onEvent(ev);
      } catch (err) {
        // One malformed event must not stop the others nor look like a lost connection.
        console.error("event", ev && ev.type, err);
      }
    }
  }
  function onEvent(ev) {
    const changed = applyEvent(app.store, ev);
    if (ev.type === "realm_user" && ev.person && ev.person.user_id === app.store.me) Object.assign(ctx.me, ev.person);
    list.update(changed, [ev]);
    if (changed.has("unread") || changed.has("subs") || changed.has("topics") || changed.has("dms") || changed.has("users")) queueSidebar();
    if (changed.has("typing")) updateTyping();
    if (changed.has("settings")) {
      applyTheme();
      compose.updateHint();
    }
    if (changed.has("subs") || changed.has("users")) compose.refreshLists();
    if (ev.type === "message") {
      notifyMessage(app, ev);
      soundMessage(app, ev);
    }
    for (const handler of app.handlers.get(ev.type) || []) {
      try {
        handler(ev);
      } catch (err) {
        console.error(err);
      }
    }
  }
  function onReregister(fresh) {
    app.store = createStore(fresh);
    ctx.initial = fresh;
    ctx.users.clear();
    for (const [id, u] of app.store.users) ctx.users.set(id, u);
    app.store.users = ctx.users;
    applyTheme();
    safeRoute();
  }
  // One Map shared by the store and ctx so feature modules see live users.
  ctx.users = app.store.users;
  setInterval(updateTyping, 5000);
  installKeyboard(app);
  safeRoute();
  // What the first view does not need waits until it has been shown (or a second at most,
  // should its messages not come): the event loop's first long-poll (events wait in the
  // queue meanwhile) and the user list.
  let started = false;
  const afterFirstView = () => {
    if (started) return;
    started = true;
    app.loop = startEventLoop({
      api,
      initial,
      onEvents,
      onReregister,
      setStatus: (text) => {
        banner.hidden = !text;
        banner.textContent = text || "";
      },
    });
    mountUserList(aside, ctx);
  };
  list.firstShown.then(afterFirstView);
  setTimeout(afterFirstView, 1000);
}

boot();
