//! SQL behind the evaluation state (findings, clean, not evaluated): which ecosystems and
//! distribution releases the imported OSV data names (one grouped query), and what each
//! component is classified by (its purl, CPE, version, source package, and whether it has
//! findings or undecidable matches), per project or over the whole portfolio.
//!
//! Synchronous functions over a connection; no rules (those are `domain::dtrack::evaluation`).

use rusqlite::{Connection, Row, params};

use super::dtrack_osv::Subject;
use crate::error::Result;
use crate::ids::{ComponentId, ProjectId};
use crate::model::dtrack::SourcePackage;

/// What one component is classified by, with the identity a listing shows.
#[derive(Clone, Debug, PartialEq)]
pub struct EvaluationInput {
    pub id: ComponentId,
    pub project: ProjectId,
    /// The project's name and version (for the command line's listing).
    pub project_name: String,
    pub project_version: Option<String>,
    pub uuid: String,
    pub name: String,
    pub group: Option<String>,
    pub cpe: Option<String>,
    pub subject: Subject,
    /// At least one vulnerability is attributed to it (by the analyzer or by hand).
    pub has_findings: bool,
    /// The analyzer recorded matches it could not decide.
    pub has_unknown: bool,
}

const INPUT_COLS: &str = "c.id, c.uuid, c.name, c.grp, c.cpe, c.purl, c.version, s.name, s.version,
     c.project_id, p.name, p.version,
     EXISTS (SELECT 1 FROM dt_component_vulnerabilities v WHERE v.component_id = c.id),
     EXISTS (SELECT 1 FROM dt_unknown_matches u WHERE u.component_id = c.id)";
const INPUT_FROM: &str = "dt_components c JOIN dt_projects p ON p.id = c.project_id
     LEFT JOIN dt_component_sources s ON s.component_id = c.id";

fn input_row(r: &Row<'_>) -> rusqlite::Result<EvaluationInput> {
    let source: Option<String> = r.get(7)?;
    let source_version: Option<String> = r.get(8)?;
    Ok(EvaluationInput {
        id: ComponentId(r.get(0)?),
        uuid: r.get(1)?,
        name: r.get(2)?,
        group: r.get(3)?,
        cpe: r.get(4)?,
        subject: Subject {
            purl: r.get(5)?,
            version: r.get(6)?,
            source: source.map(|name| SourcePackage {
                name,
                version: source_version,
            }),
            cpe: r.get(4)?,
        },
        project: ProjectId(r.get(9)?),
        project_name: r.get(10)?,
        project_version: r.get(11)?,
        has_findings: r.get(12)?,
        has_unknown: r.get(13)?,
    })
}

/// The components of a project with what they are classified by, in the order of the
/// project's component listing (name, version, id).
pub fn project_inputs(c: &Connection, project: ProjectId) -> Result<Vec<EvaluationInput>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {INPUT_COLS} FROM {INPUT_FROM}
         WHERE c.project_id = ?1 ORDER BY c.name, c.version, c.id"
    ))?;
    let rows = st.query_map(params![project.0], input_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The components with these ids (a listing's page) with what they are classified by; the
/// ids are integers, so they are written into the text.
pub fn inputs_of(c: &Connection, ids: &[ComponentId]) -> Result<Vec<EvaluationInput>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let list = ids
        .iter()
        .map(|i| i.0.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let mut st = c.prepare(&format!(
        "SELECT {INPUT_COLS} FROM {INPUT_FROM} WHERE c.id IN ({list})"
    ))?;
    let rows = st.query_map([], input_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Calls `each` for every component of the portfolio (streamed, in id order).
pub fn each_input(c: &Connection, mut each: impl FnMut(EvaluationInput)) -> Result<()> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {INPUT_COLS} FROM {INPUT_FROM} ORDER BY c.id"
    ))?;
    let mut rows = st.query([])?;
    while let Some(r) = rows.next()? {
        each(input_row(r)?);
    }
    Ok(())
}

/// The (ecosystem, release suffix) pairs the imported OSV data names, with how many affected
/// entries each has; the suffix is `None` for entries without a release.
pub fn covered(c: &Connection) -> Result<Vec<(String, Option<String>, i64)>> {
    let mut st = c.prepare_cached(
        "SELECT ecosystem, json_extract(spec, '$.release') AS rel, count(*)
         FROM dt_osv_affected GROUP BY ecosystem, rel ORDER BY ecosystem, rel",
    )?;
    let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
