//! The internal analyzer: matches components (by package URL) against the stored OSV data and
//! keeps their findings (`INTERNAL_ANALYZER`) and undecidable matches in step, inside the
//! caller's write. Runs when a BOM is imported, when a component is created or changed, when
//! new OSV data arrives (only for the packages it names), and for `POST
//! /finding/project/{uuid}/analyze` (queued, followed by token).
//!
//! Attributions made by hand are never removed here. Must not touch HTTP types or SQL.

use std::collections::{HashMap, HashSet};

use rusqlite::Connection;

use super::eval::{AffectedSpec, Verdict, evaluate};
use super::purl;
use crate::db::dtrack_osv as db;
use crate::domain::core::Core;
use crate::error::Result;
use crate::ids::{ComponentId, ProjectId, VulnerabilityId};
use crate::model::dtrack::Principal;

use crate::domain::dtrack::portfolio::visible_project;
use crate::domain::dtrack::state::write;

/// Affected entries already read in this run, by (ecosystem, package).
pub type SpecCache = HashMap<(String, String), Vec<(VulnerabilityId, AffectedSpec)>>;

fn specs<'a>(
    c: &Connection,
    cache: &'a mut SpecCache,
    eco: &str,
    pkg: &str,
) -> Result<&'a [(VulnerabilityId, AffectedSpec)]> {
    let key = (eco.to_string(), pkg.to_string());
    if !cache.contains_key(&key) {
        let mut list = Vec::new();
        for (v, json) in db::affected_of_package(c, eco, pkg)? {
            match serde_json::from_str::<AffectedSpec>(&json) {
                Ok(s) => list.push((v, s)),
                Err(e) => tracing::warn!(error = %e, "an unreadable stored OSV range was skipped"),
            }
        }
        cache.insert(key.clone(), list);
    }
    Ok(cache.get(&key).map(Vec::as_slice).unwrap_or(&[]))
}

/// Whether a Debian entry's release applies to a purl's `distro` qualifier (both must be
/// given to exclude: `debian-11` or `11` for release `11`).
fn release_applies(release: Option<&str>, distro: Option<&str>) -> bool {
    match (release, distro) {
        (Some(r), Some(d)) => {
            let d = d.to_ascii_lowercase();
            d == r || d.strip_prefix("debian-") == Some(r)
        }
        _ => true,
    }
}

/// Matches one component and reconciles its analyzer findings and unknown matches; true when
/// its findings changed.
pub fn match_component(
    c: &Connection,
    comp: ComponentId,
    purl_text: Option<&str>,
    cache: &mut SpecCache,
) -> Result<bool> {
    let package = purl_text.and_then(purl::parse);
    let mut wanted: HashSet<VulnerabilityId> = HashSet::new();
    let mut unknown: Vec<(VulnerabilityId, String)> = Vec::new();
    match &package {
        None => db::set_component_package(c, comp, "", "")?,
        Some(p) => {
            let eco = p.ecosystem.purl_type();
            db::set_component_package(c, comp, eco, &p.key)?;
            for (vuln, spec) in specs(c, cache, eco, &p.key)? {
                if wanted.contains(vuln)
                    || !release_applies(spec.release.as_deref(), p.distro.as_deref())
                {
                    continue;
                }
                let verdict = match &p.version {
                    Some(v) => evaluate(p.ecosystem, spec, v),
                    None => Verdict::Unknown("the package URL has no version".into()),
                };
                match verdict {
                    Verdict::Affected => {
                        wanted.insert(*vuln);
                    }
                    Verdict::NotAffected => {}
                    Verdict::Unknown(reason) => unknown.push((*vuln, reason)),
                }
            }
        }
    }
    unknown.retain(|(v, _)| !wanted.contains(v));
    unknown.dedup_by(|a, b| a.0 == b.0);
    if !unknown.is_empty() {
        tracing::warn!(
            component = comp.0,
            count = unknown.len(),
            "versions the analyzer could not compare; recorded as unknown matches"
        );
    }
    db::set_unknown(c, comp, &unknown)?;
    let existing: HashSet<VulnerabilityId> = db::analyzer_findings(c, comp)?.into_iter().collect();
    let mut changed = false;
    let now = crate::time::now_millis();
    for v in wanted.difference(&existing) {
        changed |= db::add_finding(c, comp, *v, now)?;
    }
    for v in existing.difference(&wanted) {
        db::remove_finding(c, comp, *v)?;
        changed = true;
    }
    Ok(changed)
}

/// Matches every component of a project (inside the caller's write; policies and metrics are
/// the caller's next step).
pub fn match_project(c: &Connection, project: ProjectId, cache: &mut SpecCache) -> Result<()> {
    for (comp, purl) in db::project_components(c, project)? {
        match_component(c, comp, purl.as_deref(), cache)?;
    }
    Ok(())
}

/// Re-checks the components of the given packages (and any component never matched yet)
/// after OSV data changed, then re-evaluates policies and records metrics of every project
/// whose findings changed. Returns the number of such projects.
pub fn recheck_packages(c: &Connection, packages: &HashSet<(String, String)>) -> Result<usize> {
    let mut cache = SpecCache::new();
    let mut projects: HashSet<ProjectId> = HashSet::new();
    loop {
        let batch = db::unmatched_components(c, 1000)?;
        if batch.is_empty() {
            break;
        }
        for (comp, project, purl) in batch {
            if match_component(c, comp, purl.as_deref(), &mut cache)? {
                projects.insert(project);
            }
        }
    }
    let mut sorted: Vec<&(String, String)> = packages.iter().collect();
    sorted.sort();
    for (eco, pkg) in sorted {
        for (comp, project, purl) in db::components_of_package(c, eco, pkg)? {
            if match_component(c, comp, purl.as_deref(), &mut cache)? {
                projects.insert(project);
            }
        }
    }
    let mut projects: Vec<ProjectId> = projects.into_iter().collect();
    projects.sort_by_key(|p| p.0);
    for p in &projects {
        crate::domain::dtrack::policies::evaluate_project(c, *p)?;
    }
    Ok(projects.len())
}

/// `POST /finding/project/{uuid}/analyze`: queues a re-analysis of the project; the token is
/// followed with `GET /event/token/{token}`.
pub async fn request_analysis(state: &Core, who: &Principal, project: &str) -> Result<String> {
    let acl = state.config.dtrack.acl_enabled;
    let (who, project) = (who.clone(), project.to_string());
    let token = uuid::Uuid::new_v4().to_string();
    let tok = token.clone();
    write(state, move |tx| {
        let id = visible_project(tx, acl, &who, &project)?;
        db::insert_analysis_request(tx, &tok, id, crate::time::now_millis())
    })
    .await?;
    state.dtrack.bom_ready.notify_one();
    Ok(token)
}

/// Runs the oldest queued analysis; false when there was none. A failure is logged and the
/// request is still marked processed, so it never blocks the queue.
pub async fn process_next(state: &Core) -> Result<bool> {
    let Some((token, project)) = state.db.read(db::next_analysis_request).await? else {
        return Ok(false);
    };
    let tok = token.clone();
    let outcome = write(state, move |tx| {
        match_project(tx, project, &mut SpecCache::new())?;
        crate::domain::dtrack::policies::evaluate_project(tx, project)?;
        db::finish_analysis_request(tx, &tok, crate::time::now_millis())
    })
    .await;
    if let Err(e) = outcome {
        tracing::error!(error = %e, "a project analysis failed");
        write(state, move |tx| {
            db::finish_analysis_request(tx, &token, crate::time::now_millis())
        })
        .await?;
    }
    Ok(true)
}

/// Whether an analysis token is still pending.
pub async fn is_pending(state: &Core, token: &str) -> Result<bool> {
    let token = token.to_string();
    state
        .db
        .read(move |c| db::analysis_request_pending(c, &token))
        .await
}

/// Every match the analyzer could not decide (a version that does not parse under the
/// ecosystem's comparator, or a package URL without a version): reported by
/// `outpost dtrack unknown-matches`, never shown as clean.
pub async fn unknown_matches(state: &Core) -> Result<Vec<db::UnknownMatch>> {
    state.db.read(db::unknown_matches).await
}
