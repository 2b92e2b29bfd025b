// STAND-IN (web-client): a minimal profile card with the contract's interface, until the
// web-features helper's profile_card.js replaces this file at merge.
export function openProfileCard(userId, ctx) {
  const u = ctx.users.get(userId);
  if (!u) return;
  const dlg = document.createElement("dialog");
  dlg.className = "dialog";
  dlg.setAttribute("aria-label", "User profile");
  const name = document.createElement("h2");
  name.textContent = u.full_name;
  const email = document.createElement("p");
  email.textContent = u.email;
  const dm = document.createElement("button");
  dm.type = "button";
  dm.textContent = "Send direct message";
  dm.addEventListener("click", () => { dlg.close(); ctx.navigate(`#narrow/dm/${u.user_id}-dm`); });
  const view = document.createElement("button");
  view.type = "button";
  view.textContent = "View messages";
  view.addEventListener("click", () => { dlg.close(); ctx.navigate(`#narrow/sender/${u.user_id}-user`); });
  const close = document.createElement("button");
  close.type = "button";
  close.textContent = "Close";
  close.addEventListener("click", () => dlg.close());
  dlg.append(name, email, dm, view, close);
  dlg.addEventListener("close", () => dlg.remove());
  document.body.append(dlg);
  dlg.showModal();
}
