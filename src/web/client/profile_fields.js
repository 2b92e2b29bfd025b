// Editing one's own custom profile fields (#settings/profile): one control per field the
// organization defines, by field type, and saving only what changed: PATCH
// /users/me/profile_data for new values, DELETE /users/me/profile_data for cleared ones (as
// upstream). A server without those routes gets PATCH /users/{me} with profile_data, which
// administrators may use. The `realm_user` event with `custom_profile_field` updates ctx.users.
import { h } from "./render.js";

export const FIELD_TYPES = { SHORT_TEXT: 1, LONG_TEXT: 2, SELECT: 3, DATE: 4, URL: 5, USER: 6, EXTERNAL_ACCOUNT: 7, PRONOUNS: 8 };

/** The options of a select field: `[[key, text]]` in the field's order (bad data gives []). */
export function selectOptions(field) {
  let data = field.field_data;
  if (typeof data === "string") {
    try {
      data = data ? JSON.parse(data) : {};
    } catch {
      return [];
    }
  }
  if (!data || typeof data !== "object" || Array.isArray(data)) return [];
  return Object.entries(data)
    .filter(([, v]) => v && typeof v === "object")
    .sort((a, b) => Number(a[1].order) - Number(b[1].order))
    .map(([key, v]) => [key, String(v.text ?? key)]);
}

/** A user field's stored value (JSON list of ids) as numbers. */
export function userIds(value) {
  try {
    const ids = JSON.parse(value || "[]");
    return Array.isArray(ids) ? ids.filter(Number.isInteger) : [];
  } catch {
    return [];
  }
}

/**
 * What to send: `edited` maps field id -> the control's text ("" means cleared; user fields
 * give a JSON list). Returns `{update: [{id, value}], clear: [id]}` for changed fields only.
 */
export function profileChanges(fields, profileData, edited) {
  const update = [];
  const clear = [];
  for (const f of fields) {
    if (!(f.id in edited)) continue;
    const before = profileData && profileData[f.id] ? String(profileData[f.id].value ?? "") : "";
    let after = String(edited[f.id] ?? "");
    if (f.type !== FIELD_TYPES.LONG_TEXT) after = after.trim();
    if (f.type === FIELD_TYPES.USER) {
      const ids = userIds(after);
      if (JSON.stringify(ids) === JSON.stringify(userIds(before))) continue;
      if (ids.length) update.push({ id: f.id, value: ids });
      else if (before) clear.push(f.id);
      continue;
    }
    if (after === before) continue;
    if (after === "") clear.push(f.id);
    else update.push({ id: f.id, value: after });
  }
  return { update, clear };
}

function control(f, value, users) {
  const id = `profile-field-${f.id}`;
  switch (f.type) {
    case FIELD_TYPES.LONG_TEXT:
      return h("textarea", { id, rows: "3", maxlength: "500" }, value);
    case FIELD_TYPES.SELECT:
      return h("select", { id },
        h("option", { value: "" }, "(none)"),
        ...selectOptions(f).map(([key, text]) => h("option", { value: key, selected: key === value }, text)));
    case FIELD_TYPES.DATE:
      return h("input", { id, type: "date", value });
    case FIELD_TYPES.URL:
      return h("input", { id, type: "url", value, maxlength: "2048", autocomplete: "url" });
    case FIELD_TYPES.USER: {
      const chosen = userIds(value);
      return h("select", { id, multiple: true, size: "4" },
        ...users.map((u) => h("option", { value: String(u.user_id), selected: chosen.includes(u.user_id) }, u.full_name)));
    }
    default:
      return h("input", { id, type: "text", value, maxlength: "50" });
  }
}

function controlValue(f, el) {
  if (f.type === FIELD_TYPES.USER) return JSON.stringify([...el.selectedOptions].map((o) => Number(o.value)));
  return el.value;
}

async function save(ctx, changes) {
  const meId = ctx.me.user_id;
  try {
    if (changes.update.length) await ctx.api.patch("users/me/profile_data", { data: changes.update });
    if (changes.clear.length) await ctx.api.del("users/me/profile_data", { data: changes.clear });
  } catch (err) {
    if (err.status !== 404 && !/endpoint not found/i.test(err.message)) throw err;
    const all = [...changes.update, ...changes.clear.map((id) => ({ id, value: "" }))];
    await ctx.api.patch(`users/${meId}`, { profile_data: all });
  }
}

/** The "Profile fields" form, or null when the organization defines none. */
export function profileFieldsForm(ctx, fields) {
  if (!fields || !fields.length) return null;
  const me = () => ctx.users.get(ctx.me.user_id) || ctx.me;
  const users = [...ctx.users.values()].filter((u) => u.is_active !== false && !u.is_bot)
    .sort((a, b) => a.full_name.localeCompare(b.full_name));
  const data = me().profile_data || {};
  const rows = [];
  const controls = new Map();
  for (const f of [...fields].sort((a, b) => (a.order ?? 0) - (b.order ?? 0))) {
    const value = data[f.id] ? String(data[f.id].value ?? "") : "";
    const el = control(f, value, users);
    controls.set(f.id, el);
    const row = h("div", { class: "f-field" }, h("label", { for: el.id }, f.name), el);
    if (f.hint) {
      el.setAttribute("aria-describedby", `${el.id}-hint`);
      row.append(h("p", { class: "f-hint", id: `${el.id}-hint` }, f.hint));
    }
    rows.push(row);
  }
  const alert = h("p", { class: "f-error", role: "alert" });
  const done = h("p", { class: "f-saved", role: "status" });
  const button = h("button", { type: "submit", class: "f-button f-primary" }, "Save profile fields");
  const form = h("form", { class: "f-form", "aria-label": "Profile fields", novalidate: true },
    ...rows, h("div", { class: "f-form-actions" }, button, done), alert);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    alert.textContent = "";
    done.textContent = "";
    const edited = {};
    for (const f of fields) edited[f.id] = controlValue(f, controls.get(f.id));
    const changes = profileChanges(fields, me().profile_data || {}, edited);
    if (!changes.update.length && !changes.clear.length) {
      done.textContent = "No changes";
      return;
    }
    button.disabled = true;
    try {
      await save(ctx, changes);
      const mine = me();
      mine.profile_data = { ...(mine.profile_data || {}) };
      for (const u of changes.update) mine.profile_data[u.id] = { value: typeof u.value === "string" ? u.value : JSON.stringify(u.value) };
      for (const id of changes.clear) delete mine.profile_data[id];
      done.textContent = "Saved";
    } catch (err) {
      alert.textContent = `Could not save: ${err.message}`;
    } finally {
      button.disabled = false;
    }
  });
  return form;
}
