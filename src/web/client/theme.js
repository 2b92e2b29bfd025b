// The colour theme: `<html data-theme="light|dark">` from the user setting `color_scheme`
// (1 automatic: follows prefers-color-scheme, 2 dark, 3 light).

export function themeFor(colorScheme, prefersDark) {
  if (colorScheme === 2) return "dark";
  if (colorScheme === 3) return "light";
  return prefersDark ? "dark" : "light";
}
