// The topic menu (from the topic list and the recipient bar): mute, unmute, follow and
// unfollow a topic through POST /user_topics; the `user_topic` event updates the views.
import { showMenu } from "./menu.js";
import { policyFor, topicActions } from "./mute.js";

export function setTopicPolicy(app, streamId, topic, action) {
  const sub = app.store.subs.get(streamId);
  return app.api.post("user_topics", {
    stream_id: streamId,
    topic,
    visibility_policy: policyFor(action, !!(sub && sub.is_muted)),
  });
}

export function openTopicMenu(app, anchor, streamId, topic, at = null) {
  const items = topicActions(app.store, streamId, topic).map((a) => ({
    label: a.label,
    run: () => setTopicPolicy(app, streamId, topic, a.action),
  }));
  return showMenu({ anchor, label: `Topic options for ${topic}`, items, toast: app.toast, at });
}
