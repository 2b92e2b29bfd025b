// STAND-IN (web-client): a tiny emoji picker with the contract's interface, until the
// web-features helper's emoji_picker.js replaces this file at merge.
const COMMON = [["+1", "1f44d"], ["smile", "1f604"], ["heart", "2764"], ["tada", "1f389"], ["check", "2714"], ["eyes", "1f440"]];

export function openEmojiPicker({ anchor, onPick }) {
  const dlg = document.createElement("dialog");
  dlg.className = "dialog emoji-picker-standin";
  dlg.setAttribute("aria-label", "Emoji picker");
  const search = document.createElement("input");
  search.type = "search";
  search.setAttribute("aria-label", "Search emoji");
  dlg.append(search);
  const grid = document.createElement("div");
  for (const [name, code] of COMMON) {
    const b = document.createElement("button");
    b.type = "button";
    b.setAttribute("aria-label", name);
    b.textContent = String.fromCodePoint(...code.split("-").map((c) => parseInt(c, 16)));
    b.addEventListener("click", () => {
      dlg.close();
      onPick({ emoji_name: name, emoji_code: code, reaction_type: "unicode_emoji" });
    });
    grid.append(b);
  }
  search.addEventListener("input", () => {
    for (const b of grid.children) b.hidden = !b.getAttribute("aria-label").includes(search.value.trim());
  });
  dlg.append(grid);
  dlg.addEventListener("close", () => {
    dlg.remove();
    if (anchor) anchor.focus();
  });
  document.body.append(dlg);
  dlg.showModal();
}
