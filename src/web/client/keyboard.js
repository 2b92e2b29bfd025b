// Keyboard shortcuts of the message view: j/k move the selection, r replies to the selected
// message, c opens compose, / focuses search, End jumps to the latest message, Esc closes or
// cancels (dialogs close natively).
function typingTarget(el) {
  if (!el) return false;
  const tag = el.tagName;
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || el.isContentEditable;
}

export function installKeyboard(app) {
  document.addEventListener("keydown", (e) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
    if (document.querySelector("dialog[open]")) return;
    // Popup menus handle their own keys.
    if (e.target && e.target.closest && e.target.closest('[role="menu"]')) return;
    if (e.key === "Escape") {
      if (typingTarget(document.activeElement)) {
        document.activeElement.blur();
        app.list.section.focus();
      } else {
        app.closePanels();
      }
      return;
    }
    if (typingTarget(document.activeElement) || app.mode !== "messages") return;
    switch (e.key) {
      case "j":
      case "ArrowDown":
        if (e.key === "ArrowDown" && !app.list.section.contains(document.activeElement)) return;
        e.preventDefault();
        app.list.move(1);
        break;
      case "k":
      case "ArrowUp":
        if (e.key === "ArrowUp" && !app.list.section.contains(document.activeElement)) return;
        e.preventDefault();
        app.list.move(-1);
        break;
      case "r":
      case "Enter": {
        if (e.key === "Enter" && !(document.activeElement && document.activeElement.matches("article.message"))) return;
        const m = app.list.selectedMessage();
        if (m) {
          e.preventDefault();
          app.compose.replyTo(m);
        }
        break;
      }
      case "End":
        e.preventDefault();
        app.list.jumpToLatest();
        break;
      case "c":
        e.preventDefault();
        app.compose.focus();
        break;
      case "/":
        e.preventDefault();
        app.search.focus();
        break;
      default:
        break;
    }
  });
}
