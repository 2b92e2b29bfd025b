// Entry point of the browser client (placeholder until the client lands).
import { api } from "./api.js";

const root = document.getElementById("app");
api.get("users/me").then((me) => {
  root.textContent = `Logged in as ${me.full_name}`;
  root.removeAttribute("aria-busy");
});
