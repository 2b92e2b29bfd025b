//! The policy-violations badge SVGs, byte for byte as upstream's templates render them.
//!
//! Pure text; the choice of variant follows upstream's `Badger`: no metrics → "no metrics";
//! any violations → fail/warn/info cells; else "no violations".
//!
//! Must not touch HTTP types or the database.

const HEAD_START: &str = r##"<svg width="{W}" height="20" viewBox="0 0 {W} 20" xmlns="http://www.w3.org/2000/svg">
  <linearGradient id="a" x2="0" y2="100%">
    <stop offset="0" stop-opacity=".1" stop-color="#EEE"/>
    <stop offset="1" stop-opacity=".1"/>
  </linearGradient>
  <mask id="m"><rect width="{W}" height="20" rx="3" fill="#FFF"/></mask>
  <g mask="url(#m)">
    <rect width="50" height="20" fill="#555"/>
"##;

const TEXT_START: &str = r##"  </g>
  <g fill="#fff" text-anchor="start" font-family="sans-serif" font-size="11">
    <text x="6" y="15" fill="#000" opacity="0.25">policies</text>
    <text x="5" y="14">policies</text>
"##;

const END: &str = "  </g>\n</svg>\n";

fn head(width: u32) -> String {
    HEAD_START.replace("{W}", &width.to_string())
}

fn single(width: u32, cell: u32, color: &str, label: &str) -> String {
    let mut s = head(width);
    s.push_str(&format!(
        "    <rect width=\"{cell}\" height=\"20\" fill=\"{color}\" x=\"50\"/>\n"
    ));
    s.push_str(TEXT_START);
    s.push_str(&format!(
        "    <text x=\"57\" y=\"15\" fill=\"#000\" opacity=\"0.25\">{label}</text>\n    <text x=\"56\" y=\"14\">{label}</text>\n"
    ));
    s.push_str(END);
    s
}

/// The badge for a project's latest violation counts (`None` = no metrics yet).
pub fn violations(counts: Option<(i64, i64, i64)>) -> String {
    let Some((fail, warn, info)) = counts else {
        return single(114, 64, "#fe7d37", "no metrics");
    };
    if fail + warn + info <= 0 {
        return single(124, 74, "#357abd", "no violations");
    }
    let mut s = head(140);
    s.push_str(concat!(
        "    <rect width=\"30\" height=\"20\" fill=\"#dc0000\" x=\"50\"/>\n",
        "    <rect width=\"30\" height=\"20\" fill=\"#fdc500\" x=\"80\"/>\n",
        "    <rect width=\"30\" height=\"20\" fill=\"#20a8d8\" x=\"110\"/>\n",
    ));
    s.push_str(TEXT_START);
    for (label, base, n) in [("Fail", 65, fail), ("Warn", 95, warn), ("Info", 125, info)] {
        let text = n.to_string();
        let x = base - 3 * text.len() as i64;
        s.push_str(&format!(
            "    <!-- {label} -->\n    <text x=\"{x}\" y=\"15\" fill=\"#000\" opacity=\"0.25\">{text}</text>\n    <text x=\"{}\" y=\"14\">{text}</text>\n",
            x - 1
        ));
    }
    s.push_str(END);
    s
}
