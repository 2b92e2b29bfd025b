// The chat API as the browser client calls it: every request goes to `/json/<path>` on the
// same origin, authenticated by the session cookie, with the CSRF token from the page's
// `<meta name="csrf-token">` on every request that is not a GET or HEAD.
//
// Parameters follow the Zulip REST API: form-encoded, with arrays and objects sent as JSON
// text. A non-2xx answer or `result: "error"` rejects with an ApiError carrying the server's
// `msg` and `code`.

export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.msg) || `HTTP ${status}`);
    this.status = status;
    this.code = (body && body.code) || null;
    this.body = body;
  }
}

/** The session's CSRF token, from the page shell. */
export function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.getAttribute("content") : "";
}

/** Encodes a parameter object as the API wants it: strings as-is, everything else as JSON. */
export function encodeParams(params) {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(params || {})) {
    if (value === undefined) continue;
    form.append(key, typeof value === "string" ? value : JSON.stringify(value));
  }
  return form;
}

async function call(method, path, params, { signal } = {}) {
  let url = `/json/${path.replace(/^\//, "")}`;
  const init = { method, credentials: "same-origin", headers: {}, signal };
  if (method === "GET" || method === "HEAD") {
    const query = encodeParams(params).toString();
    if (query) url += `?${query}`;
  } else {
    init.headers["X-CSRFToken"] = csrfToken();
    if (params instanceof FormData) {
      init.body = params;
    } else {
      init.headers["Content-Type"] = "application/x-www-form-urlencoded";
      init.body = encodeParams(params).toString();
    }
  }
  const response = await fetch(url, init);
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok || !body || body.result === "error") {
    throw new ApiError(response.status, body);
  }
  return body;
}

export const api = {
  get: (path, params, opts) => call("GET", path, params, opts),
  post: (path, params, opts) => call("POST", path, params, opts),
  patch: (path, params, opts) => call("PATCH", path, params, opts),
  put: (path, params, opts) => call("PUT", path, params, opts),
  del: (path, params, opts) => call("DELETE", path, params, opts),
  /** Uploads one file (`POST /user_uploads`); resolves to `{uri, url, filename}`. */
  upload: (file, opts) => {
    const form = new FormData();
    form.append("file", file, file.name);
    return call("POST", "user_uploads", form, opts);
  },
};
