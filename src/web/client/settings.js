// STAND-IN (web-client): a minimal settings page with the contract's interface, until the
// web-features helper's settings.js replaces this file at merge.
export function mountSettings(container, ctx, section) {
  const h = document.createElement("h1");
  h.textContent = `Settings: ${section || "profile"}`;
  const p = document.createElement("p");
  p.textContent = `Logged in as ${ctx.me.full_name} (${ctx.me.email}).`;
  container.replaceChildren(h, p);
  return { unmount() { container.replaceChildren(); } };
}
