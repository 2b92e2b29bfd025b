// STAND-IN (web-client): a plain user list with the contract's interface, until the
// web-features helper's user_list.js replaces this file at merge.
import { openProfileCard } from "./profile_card.js";

export function mountUserList(container, ctx) {
  const draw = () => {
    const ul = document.createElement("ul");
    ul.className = "user-list";
    const users = [...ctx.users.values()].filter((u) => u.is_active !== false && !u.is_bot)
      .sort((a, b) => a.full_name.localeCompare(b.full_name));
    for (const u of users) {
      const li = document.createElement("li");
      li.className = "presence-offline";
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = u.full_name;
      b.addEventListener("click", () => openProfileCard(u.user_id, ctx));
      li.append(b);
      ul.append(li);
    }
    container.replaceChildren(ul);
  };
  draw();
  ctx.onEvent("realm_user", draw);
}
