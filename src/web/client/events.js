// The server connection: registers an event queue (with upstream's web client capabilities),
// long-polls GET events, hands each event to `onEvents`, re-registers when the queue is gone
// (BAD_EVENT_QUEUE_ID) and backs off 1 s doubling to 30 s on network errors while a
// role="status" banner says "Reconnecting".

export const CLIENT_CAPABILITIES = {
  notification_settings_null: true,
  bulk_message_deletion: true,
  user_avatar_url_field_optional: false,
  stream_typing_notifications: true,
  user_settings_object: true,
  empty_topic_name: true,
  linkifier_url_template: true,
  user_list_incomplete: false,
  include_deactivated_groups: true,
  archived_channels: true,
};

export function register(api) {
  return api.post("register", {
    apply_markdown: true,
    client_gravatar: false,
    include_subscribers: false,
    slim_presence: true,
    client_capabilities: CLIENT_CAPABILITIES,
  });
}

/** The next back-off delay: 1 s doubling up to 30 s. */
export function nextDelay(previous) {
  return previous ? Math.min(previous * 2, 30000) : 1000;
}

/**
 * Runs the loop until stopped. `onEvents(events)` gets each batch; `onReregister(initial)`
 * gets a fresh register response after the queue was lost; `setStatus(text|null)` shows or
 * hides the banner.
 */
export function startEventLoop({ api, initial, onEvents, onReregister, setStatus }) {
  let queueId = initial.queue_id;
  let lastId = initial.last_event_id;
  let stopped = false;
  let delay = 0;
  let controller = null;

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  async function loop() {
    while (!stopped) {
      controller = new AbortController();
      try {
        const answer = await api.get("events", { queue_id: queueId, last_event_id: lastId, dont_block: false }, { signal: controller.signal });
        if (delay) setStatus(null);
        delay = 0;
        const events = answer.events || [];
        for (const ev of events) lastId = Math.max(lastId, ev.id);
        const real = events.filter((ev) => ev.type !== "heartbeat");
        if (real.length) onEvents(real);
      } catch (err) {
        if (stopped) return;
        if (err && err.code === "BAD_EVENT_QUEUE_ID") {
          try {
            const fresh = await register(api);
            queueId = fresh.queue_id;
            lastId = fresh.last_event_id;
            if (delay) setStatus(null);
            delay = 0;
            onReregister(fresh);
            continue;
          } catch {
            // falls through to the back-off below
          }
        }
        if (err && err.status === 401) {
          setStatus("Your session has ended. Reload the page to log in again.");
          return;
        }
        delay = nextDelay(delay);
        setStatus(`Reconnecting in ${Math.round(delay / 1000)} s…`);
        await sleep(delay);
        setStatus("Reconnecting…");
      }
    }
  }
  loop();
  return {
    get queueId() {
      return queueId;
    },
    stop() {
      stopped = true;
      if (controller) controller.abort();
      api.del("events", { queue_id: queueId }).catch(() => {});
    },
  };
}
