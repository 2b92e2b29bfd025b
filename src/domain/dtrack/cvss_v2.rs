//! CVSS v2 base vectors (`AV:N/AC:L/Au:N/C:P/I:P/A:P`, optionally in parentheses, temporal and
//! environmental metrics ignored): reading one and computing its base score with the
//! equations of the CVSS v2 specification. Pure; must not touch HTTP types or SQL.

/// A readable v2 vector's base score (0.0 to 10.0, one decimal); `None` when a base metric is
/// missing, repeated or has an unknown value.
pub fn base_score(vector: &str) -> Option<f64> {
    let v = vector.trim();
    let v = v
        .strip_prefix('(')
        .and_then(|v| v.strip_suffix(')'))
        .unwrap_or(v);
    if v.len() > 200 {
        return None;
    }
    let mut m: [Option<f64>; 6] = [None; 6];
    for part in v.split('/') {
        let (k, val) = part.split_once(':')?;
        let (slot, weight) = match (k, val) {
            ("AV", "L") => (0, 0.395),
            ("AV", "A") => (0, 0.646),
            ("AV", "N") => (0, 1.0),
            ("AC", "H") => (1, 0.35),
            ("AC", "M") => (1, 0.61),
            ("AC", "L") => (1, 0.71),
            ("Au", "M") => (2, 0.45),
            ("Au", "S") => (2, 0.56),
            ("Au", "N") => (2, 0.704),
            ("C" | "I" | "A", "N") => (impact_slot(k), 0.0),
            ("C" | "I" | "A", "P") => (impact_slot(k), 0.275),
            ("C" | "I" | "A", "C") => (impact_slot(k), 0.660),
            ("AV" | "AC" | "Au" | "C" | "I" | "A", _) => return None,
            // Temporal and environmental metrics do not change the base score.
            ("E" | "RL" | "RC" | "CDP" | "TD" | "CR" | "IR" | "AR", _) => continue,
            _ => return None,
        };
        if m[slot].replace(weight).is_some() {
            return None;
        }
    }
    let [av, ac, au, c, i, a] = m;
    let (av, ac, au, c, i, a) = (av?, ac?, au?, c?, i?, a?);
    let impact = 10.41 * (1.0 - (1.0 - c) * (1.0 - i) * (1.0 - a));
    let exploitability = 20.0 * av * ac * au;
    let f = if impact == 0.0 { 0.0 } else { 1.176 };
    let score = ((0.6 * impact) + (0.4 * exploitability) - 1.5) * f;
    Some(((score * 10.0).round() / 10.0).clamp(0.0, 10.0))
}

fn impact_slot(k: &str) -> usize {
    match k {
        "C" => 3,
        "I" => 4,
        _ => 5,
    }
}

/// Upstream's severity for a v2 base score (v2 has no CRITICAL).
pub fn severity(score: f64) -> &'static str {
    if score >= 7.0 {
        "HIGH"
    } else if score >= 4.0 {
        "MEDIUM"
    } else if score > 0.0 {
        "LOW"
    } else {
        "UNASSIGNED"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_match_the_specifications_examples() {
        // CVE-2002-0392's vector from the CVSS v2 guide scores 7.8.
        assert_eq!(base_score("AV:N/AC:L/Au:N/C:N/I:N/A:C"), Some(7.8));
        // CVE-2003-0818's scores 10.0.
        assert_eq!(base_score("AV:N/AC:L/Au:N/C:C/I:C/A:C"), Some(10.0));
        // CVE-2003-0062's scores 6.2.
        assert_eq!(base_score("(AV:L/AC:H/Au:N/C:C/I:C/A:C)"), Some(6.2));
        assert_eq!(base_score("AV:N/AC:L/Au:N/C:P/I:P/A:P"), Some(7.5));
        assert_eq!(base_score("AV:N/AC:L/Au:N/C:N/I:N/A:N"), Some(0.0));
        assert_eq!(
            base_score("AV:N/AC:L/Au:N/C:P/I:P/A:P/E:U/RL:OF/RC:C"),
            Some(7.5)
        );
    }

    #[test]
    fn unreadable_vectors_are_refused() {
        for bad in [
            "",
            "AV:N/AC:L/Au:N/C:P/I:P",
            "AV:X/AC:L/Au:N/C:P/I:P/A:P",
            "AV:N/AV:N/AC:L/Au:N/C:P/I:P/A:P",
            "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H",
        ] {
            assert_eq!(base_score(bad), None, "{bad}");
        }
        assert_eq!(severity(7.5), "HIGH");
        assert_eq!(severity(10.0), "HIGH");
        assert_eq!(severity(4.3), "MEDIUM");
    }
}
