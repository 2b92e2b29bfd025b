// The login page's one script: a link into the client (`/#narrow/...`) that was sent to the
// login form keeps its `#...` part in the browser only, and the form would lose it. This
// copies it into the forms' `next` field, so that logging in ends at that view. The form
// works without it (and without JavaScript); the server accepts only same-origin paths.
const MAX_NEXT = 2048;

const hash = window.location.hash;
if (hash.length > 1 && hash.length < MAX_NEXT) {
  for (const form of document.querySelectorAll('form[action="/login"], form[action="/devlogin"]')) {
    let next = form.querySelector('input[name="next"]');
    if (!next) {
      next = document.createElement("input");
      next.type = "hidden";
      next.name = "next";
      next.value = "/";
      form.append(next);
    }
    // Only a bare "/" gains the hash: a `next` the server gave keeps its own place.
    if (next.value === "/" || next.value === "") next.value = `/${hash}`;
  }
}
