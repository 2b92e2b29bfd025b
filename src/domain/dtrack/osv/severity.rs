//! An OSV record's severity as upstream ranks it (`OsvDownloadTask.calculateOSVSeverity`): a
//! CVSS v4 vector that parses, else v3, else v2 (the last vector of each type counts), else the
//! database's own rating (`database_specific.severity`, GitHub's `MODERATE` being `MEDIUM`),
//! else the highest rating of an affected entry (its `database_specific.cvss` vector or its
//! textual `severity`), else `UNASSIGNED`. Scores map to ratings as upstream's: v3 and v4
//! `>= 9` CRITICAL, `>= 7` HIGH, `>= 4` MEDIUM, `> 0` LOW; v2 has no CRITICAL.
//!
//! Pure; CVSS scores come from the `cvss` crate (v2, v3.x, and v4's base score from its
//! macro-vector tables).

/// The CVSS vectors and scores of a record, and its rating.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rating {
    pub v2: Option<(String, f64)>,
    pub v3: Option<(String, f64)>,
    pub v4: Option<(String, f64)>,
    pub severity: &'static str,
    /// Vectors that did not parse.
    pub problems: Vec<String>,
}

/// Upstream's rating of a CVSS v3 or v4 score.
pub fn of_score(score: f64) -> &'static str {
    if score >= 9.0 {
        "CRITICAL"
    } else if score >= 7.0 {
        "HIGH"
    } else if score >= 4.0 {
        "MEDIUM"
    } else if score > 0.0 {
        "LOW"
    } else {
        "UNASSIGNED"
    }
}

/// Upstream's rating of a CVSS v2 score.
pub fn of_v2_score(score: f64) -> &'static str {
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

/// A textual rating (GitHub's `MODERATE` is upstream's `MEDIUM`).
pub fn of_text(s: &str) -> Option<&'static str> {
    Some(match s.trim().to_ascii_uppercase().as_str() {
        "CRITICAL" => "CRITICAL",
        "HIGH" => "HIGH",
        "MODERATE" | "MEDIUM" => "MEDIUM",
        "LOW" => "LOW",
        _ => return None,
    })
}

fn rank(s: &str) -> u8 {
    match s {
        "CRITICAL" => 5,
        "HIGH" => 4,
        "MEDIUM" => 3,
        "LOW" => 2,
        "INFO" => 1,
        _ => 0,
    }
}

fn v3_score(vector: &str) -> Option<f64> {
    vector
        .trim()
        .parse::<cvss::v3::Vector>()
        .ok()
        .map(|v| v.score().value())
}

fn v4_score(vector: &str) -> Option<f64> {
    vector
        .trim()
        .parse::<cvss::v4::Vector>()
        .ok()
        .map(|v| v.score().value())
}

fn v2_score(vector: &str) -> Option<f64> {
    let v = vector.trim();
    let v = v
        .strip_prefix("(")
        .and_then(|v| v.strip_suffix(")"))
        .unwrap_or(v);
    v.parse::<cvss::v2::Vector>()
        .ok()
        .map(|v| v.score().value())
}

/// Rates a record: `severities` are its top-level and per-package `severity[]` entries (type,
/// score text) in document order; `database` its `database_specific.severity`; `affected`
/// each affected entry's `database_specific.cvss` vector and textual severity.
pub fn rate(
    id: &str,
    severities: &[(String, String)],
    database: Option<&str>,
    affected: &[(Option<String>, Option<String>)],
) -> Rating {
    let mut r = Rating::default();
    for (kind, score) in severities {
        let slot = match kind.as_str() {
            "CVSS_V4" => v4_score(score).map(|s| (&mut r.v4, s)),
            "CVSS_V3" => v3_score(score).map(|s| (&mut r.v3, s)),
            "CVSS_V2" => v2_score(score).map(|s| (&mut r.v2, s)),
            _ => continue,
        };
        match slot {
            Some((slot, s)) => *slot = Some((score.trim().to_string(), s)),
            None => r
                .problems
                .push(format!("{id}: an unreadable {kind} vector was skipped")),
        }
    }
    let from_affected = || {
        affected
            .iter()
            .filter_map(|(vector, text)| {
                vector
                    .as_deref()
                    .and_then(|v| v3_score(v).or_else(|| v4_score(v)))
                    .map(of_score)
                    .or_else(|| text.as_deref().and_then(of_text))
            })
            .max_by_key(|s| rank(s))
    };
    r.severity = if let Some((_, s)) = &r.v4 {
        of_score(*s)
    } else if let Some((_, s)) = &r.v3 {
        of_score(*s)
    } else if let Some((_, s)) = &r.v2 {
        of_v2_score(*s)
    } else if let Some(t) = database.and_then(of_text) {
        t
    } else {
        from_affected().unwrap_or("UNASSIGNED")
    };
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sev(kind: &str, v: &str) -> (String, String) {
        (kind.to_string(), v.to_string())
    }

    const V3_CRIT: &str = "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H";
    const V4_HIGH: &str = "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:N/VA:N/SC:N/SI:N/SA:N";

    #[test]
    fn v4_ranks_before_v3_before_v2_before_text() {
        let r = rate(
            "X",
            &[sev("CVSS_V3", V3_CRIT), sev("CVSS_V4", V4_HIGH)],
            Some("LOW"),
            &[],
        );
        assert_eq!(r.v4.as_ref().map(|v| v.1), Some(8.7));
        assert_eq!(r.v3.as_ref().map(|v| v.1), Some(9.8));
        assert_eq!(r.severity, "HIGH");
        let r = rate("X", &[sev("CVSS_V3", V3_CRIT)], Some("MODERATE"), &[]);
        assert_eq!(r.severity, "CRITICAL");
        let r = rate(
            "X",
            &[sev("CVSS_V2", "AV:N/AC:L/Au:N/C:C/I:C/A:C")],
            None,
            &[],
        );
        assert_eq!(
            (r.v2.as_ref().map(|v| v.1), r.severity),
            (Some(10.0), "HIGH")
        );
        let r = rate("X", &[], Some("MODERATE"), &[]);
        assert_eq!(r.severity, "MEDIUM");
        let r = rate(
            "X",
            &[],
            None,
            &[(None, Some("low".into())), (Some(V3_CRIT.into()), None)],
        );
        assert_eq!(r.severity, "CRITICAL");
        assert_eq!(rate("X", &[], None, &[]).severity, "UNASSIGNED");
    }

    #[test]
    fn published_v4_examples_score_as_the_specification() {
        for (vector, want) in [
            // Scores from the CVSS v4.0 specification's calculator.
            (
                "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N",
                9.3,
            ),
            (
                "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:H/SI:H/SA:H",
                10.0,
            ),
            (
                "CVSS:4.0/AV:L/AC:L/AT:N/PR:L/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N",
                8.5,
            ),
            (
                "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:P/VC:L/VI:L/VA:N/SC:N/SI:N/SA:N",
                5.3,
            ),
        ] {
            assert_eq!(v4_score(vector), Some(want), "{vector}");
        }
        let r = rate("X", &[sev("CVSS_V4", "CVSS:4.0/AV:X")], None, &[]);
        assert_eq!((r.v4, r.problems.len()), (None, 1));
    }
}
