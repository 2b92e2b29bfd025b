//! The badge SVGs (policy violations and vulnerabilities), byte for byte as upstream's
//! templates render them.
//!
//! Pure text; the choice of variant follows upstream's `Badger`: no metrics → "no metrics";
//! any violations (vulnerabilities) → the count cells; else "no violations" ("no vulns").
//! Upstream's Pebble engine keeps the newline after each tag (`newLineTrimming(false)`), so
//! the vulnerability template's `set` and `if` lines leave their newlines and indentation in
//! the output; [`vulns`] writes them where the template has them.
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

/// The head of the vulnerability badges (`dependencies` on an 84 px label).
fn vulns_head(width: u32) -> String {
    HEAD_START.replace("{W}", &width.to_string()).replace(
        "width=\"50\" height=\"20\" fill=\"#555\"",
        "width=\"84\" height=\"20\" fill=\"#555\"",
    )
}

const VULNS_TEXT_START: &str = r##"  </g>
  <g fill="#fff" text-anchor="start" font-family="sans-serif" font-size="11">
    <text x="6" y="15" fill="#000" opacity="0.25">dependencies</text>
    <text x="5" y="14">dependencies</text>
"##;

fn vulns_single(width: u32, cell: u32, color: &str, label: &str) -> String {
    let mut s = vulns_head(width);
    s.push_str(&format!(
        "    <rect width=\"{cell}\" height=\"20\" fill=\"{color}\" x=\"84\"/>\n"
    ));
    s.push_str(VULNS_TEXT_START);
    s.push_str(&format!(
        "    <text x=\"91\" y=\"15\" fill=\"#000\" opacity=\"0.25\">{label}</text>\n    <text x=\"90\" y=\"14\">{label}</text>\n"
    ));
    s.push_str(END);
    s
}

fn count_text(s: &mut String, label: &str, base: i64, n: i64) {
    let text = n.to_string();
    let x = base - 3 * text.len() as i64;
    s.push_str(&format!(
        "    <!-- {label} -->\n    <text x=\"{x}\" y=\"15\" fill=\"#000\" opacity=\"0.25\">{text}</text>\n    <text x=\"{}\" y=\"14\">{text}</text>\n",
        x - 1
    ));
}

/// The vulnerability badge for a project's latest counts: `None` = no metrics yet, else
/// (vulnerabilities, critical, high, medium, low, unassigned). Without unassigned findings
/// the unassigned cell is left out (204 px wide instead of 234).
pub fn vulns(counts: Option<[i64; 6]>) -> String {
    let Some([total, critical, high, medium, low, unassigned]) = counts else {
        return vulns_single(148, 64, "#fe7d37", "no metrics");
    };
    if total <= 0 {
        return vulns_single(144, 60, "#357abd", "no vulns");
    }
    let wide = unassigned != 0;
    let width = if wide { 234 } else { 204 };
    // `{% set %}` and the `{% if unassigned equals "0" %}` block before `<svg>`.
    let mut s = String::from(if wide { "\n\n" } else { "\n\n    \n\n" });
    s.push_str(&vulns_head(width));
    for (color, x) in [
        ("#dc0000", 84),
        ("#fd8c00", 114),
        ("#fdc500", 144),
        ("#4cae4c", 174),
    ] {
        s.push_str(&format!(
            "    <rect width=\"30\" height=\"20\" fill=\"{color}\" x=\"{x}\"/>\n"
        ));
    }
    if wide {
        s.push_str(
            "    \n    <rect width=\"30\" height=\"20\" fill=\"#c0c0c0\" x=\"204\"/>\n    \n",
        );
    } else {
        s.push_str("    \n");
    }
    s.push_str(VULNS_TEXT_START);
    for (label, base, n) in [
        ("Critical", 99, critical),
        ("High", 129, high),
        ("Medium", 159, medium),
        ("Low", 189, low),
    ] {
        count_text(&mut s, label, base, n);
    }
    s.push_str("    \n");
    if wide {
        count_text(&mut s, "Unassigned", 219, unassigned);
        s.push_str("    \n");
    }
    s.push_str(END);
    s
}
