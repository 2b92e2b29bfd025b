//! The internal analyzer: matches components (by package URL, with the component's own version
//! when the purl has none, and the source package its BOM names) against the stored OSV data,
//! and (by CPE, with or without a purl) against the stored NVD CPEs (`super::super::cpe`'s
//! rules), and keeps their findings (`INTERNAL_ANALYZER`, one per vulnerability whichever path
//! found it) and undecidable matches in step, inside the caller's write. Runs when a BOM is
//! imported, when a component is created or changed, when new OSV or NVD data arrives (only
//! for the packages or CPEs it names), and for `POST /finding/project/{uuid}/analyze` (queued,
//! followed by token).
//!
//! Attributions made by hand are never removed here. Must not touch HTTP types or SQL.

use std::collections::{HashMap, HashSet};

use rusqlite::Connection;

use super::eval::{AffectedSpec, Verdict, evaluate};
use super::{distro, purl};
use crate::db::dtrack_nvd as ndb;
use crate::db::dtrack_osv as db;
use crate::domain::core::Core;
use crate::domain::dtrack::cpe::{self, Bounds, Cpe};
use crate::error::Result;
use crate::ids::{ComponentId, ProjectId, VulnerabilityId};
use crate::model::dtrack::Principal;

use crate::domain::dtrack::portfolio::visible_project;
use crate::domain::dtrack::state::write;

/// A stored NVD CPE read back: the vulnerability, the record's CPE and its range.
type CpeEntry = (VulnerabilityId, Cpe, Bounds);

/// Stored data already read in this run: OSV affected entries by (ecosystem, package), NVD
/// CPEs by the component's (part, vendor, product).
#[derive(Default)]
pub struct SpecCache {
    osv: HashMap<(String, String), Vec<(VulnerabilityId, AffectedSpec)>>,
    nvd: HashMap<(String, String, String), Vec<CpeEntry>>,
}

impl SpecCache {
    pub fn new() -> SpecCache {
        SpecCache::default()
    }
}

fn cpe_candidates<'a>(
    c: &Connection,
    cache: &'a mut SpecCache,
    target: &Cpe,
) -> Result<&'a [CpeEntry]> {
    let key = (
        target.part.as_str().to_string(),
        target.vendor().to_string(),
        target.product().to_string(),
    );
    if !cache.nvd.contains_key(&key) {
        let mut list = Vec::new();
        for (v, row) in ndb::candidates(c, &key.0, &key.1, &key.2)? {
            let Some(rec) = Cpe::from_stored(&row.part, row.attrs) else {
                tracing::warn!("an unreadable stored NVD CPE was skipped");
                continue;
            };
            let [si, se, ei, ee] = row.bounds;
            let bounds = Bounds {
                start_including: si,
                start_excluding: se,
                end_including: ei,
                end_excluding: ee,
            };
            list.push((v, rec, bounds));
        }
        cache.nvd.insert(key.clone(), list);
    }
    Ok(cache.nvd.get(&key).map(Vec::as_slice).unwrap_or(&[]))
}

/// The component's CPE, when it has one that parses.
pub fn component_cpe(subject: &db::Subject) -> Option<Cpe> {
    subject
        .cpe
        .as_deref()
        .filter(|s| !s.trim().is_empty())
        .and_then(|s| Cpe::parse(s).ok())
}

fn specs<'a>(
    c: &Connection,
    cache: &'a mut SpecCache,
    eco: &str,
    pkg: &str,
) -> Result<&'a [(VulnerabilityId, AffectedSpec)]> {
    let cache = &mut cache.osv;
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

/// One package a component is looked up as: its key, and the version compared.
pub struct Candidate {
    pub key: String,
    pub version: Option<String>,
}

/// The keys a component is looked up under. Distribution records name source packages, so
/// a known source (Trivy's properties first, then syft's `upstream=`) is looked up with its
/// version; RPM records may also name binary packages, which are looked up as well.
pub fn candidates(p: &purl::Package, subject: &db::Subject) -> Vec<Candidate> {
    let eco = p.ecosystem;
    // A purl without a version takes the component's version.
    let own = p
        .version
        .clone()
        .or_else(|| subject.version.clone().filter(|v| !v.trim().is_empty()));
    let source = subject
        .source
        .as_ref()
        .filter(|_| eco.is_distribution())
        .map(|s| (eco.package_key(&s.name), s.version.clone()))
        .or_else(|| p.source.clone());
    let mut out = Vec::new();
    if let Some((key, version)) = source {
        let binary_too = eco.is_rpm() && key != p.key;
        out.push(Candidate {
            key,
            version: version.or_else(|| own.clone()),
        });
        if !binary_too {
            return out;
        }
    }
    out.push(Candidate {
        key: p.key.clone(),
        version: own,
    });
    out
}

/// Matches one component (read from the database) and reconciles its findings; true when
/// they changed.
pub fn match_stored_component(
    c: &Connection,
    comp: ComponentId,
    cache: &mut SpecCache,
) -> Result<bool> {
    let subject = db::component_subject(c, comp)?.unwrap_or_default();
    match_component(c, comp, &subject, cache)
}

/// Matches one component and reconciles its analyzer findings and unknown matches; true when
/// its findings changed.
pub fn match_component(
    c: &Connection,
    comp: ComponentId,
    subject: &db::Subject,
    cache: &mut SpecCache,
) -> Result<bool> {
    let package = subject.purl.as_deref().and_then(purl::parse);
    let mut wanted: HashSet<VulnerabilityId> = HashSet::new();
    let mut unknown: Vec<(VulnerabilityId, String)> = Vec::new();
    match &package {
        None => db::set_component_package(c, comp, "", "")?,
        Some(p) => {
            let eco = p.ecosystem;
            let list = candidates(p, subject);
            db::set_component_package(c, comp, eco.purl_type(), &list[0].key)?;
            for cand in &list {
                let version = cand
                    .version
                    .as_deref()
                    .map(|v| purl::comparable_version(eco, &cand.key, v, p.epoch.as_deref()));
                // The component's release: its `distro` qualifier, else its version's.
                let from_distro = p.distro.as_deref().map(|d| distro::of_distro(eco, d));
                let unreadable = matches!(from_distro, Some(None)) && eco.is_distribution();
                let release = from_distro.flatten().or_else(|| {
                    version
                        .as_deref()
                        .filter(|_| p.distro.is_none())
                        .and_then(|v| distro::of_version(eco, v))
                });
                for (vuln, spec) in specs(c, cache, eco.purl_type(), &cand.key)? {
                    if wanted.contains(vuln) {
                        continue;
                    }
                    if let Some(suffix) = spec.release.as_deref().filter(|_| eco.is_distribution())
                    {
                        let Some(r) = distro::of_record(eco, suffix) else {
                            // An entry whose release we cannot read applies only where the
                            // component's release is unknown too (as upstream).
                            if release.is_some() || unreadable {
                                continue;
                            }
                            if version.is_none() {
                                unknown.push((*vuln, "the package URL has no version".into()));
                            } else if let Some(v) = &version
                                && evaluate(eco, spec, v) == Verdict::Affected
                            {
                                wanted.insert(*vuln);
                            }
                            continue;
                        };
                        if unreadable {
                            unknown.push((
                                *vuln,
                                format!(
                                    "the distro qualifier {:?} names no release we know",
                                    p.distro.as_deref().unwrap_or("")
                                ),
                            ));
                            continue;
                        }
                        if !distro::applies(
                            Some(&r),
                            release.as_ref(),
                            version.as_deref().unwrap_or(""),
                        ) {
                            continue;
                        }
                    }
                    let verdict = match &version {
                        Some(v) => evaluate(eco, spec, v),
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
    }
    // The CPE path (DT analyses both; one finding per vulnerability).
    match component_cpe(subject) {
        None => {
            // A CPE that does not parse is keyed (as nothing) so it is not read again as never
            // keyed: exactly the values `unkeyed_components` selects.
            let blank = subject.cpe.as_deref().is_none_or(str::is_empty);
            ndb::set_component_cpe(c, comp, (!blank).then_some(("", "", "")))?
        }
        Some(target) => {
            ndb::set_component_cpe(
                c,
                comp,
                Some((target.part.as_str(), target.vendor(), target.product())),
            )?;
            let scheme = package.as_ref().map(|p| p.ecosystem.scheme());
            for (vuln, rec, bounds) in cpe_candidates(c, cache, &target)? {
                if !wanted.contains(vuln) && cpe::matches(rec, bounds, &target, scheme) {
                    wanted.insert(*vuln);
                }
            }
        }
    }
    unknown.retain(|(v, _)| !wanted.contains(v));
    unknown.sort_by_key(|u| u.0.0);
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
    for (comp, subject) in db::project_components(c, project)? {
        match_component(c, comp, &subject, cache)?;
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
        for (comp, project, subject) in batch {
            if match_component(c, comp, &subject, &mut cache)? {
                projects.insert(project);
            }
        }
    }
    let mut sorted: Vec<&(String, String)> = packages.iter().collect();
    sorted.sort();
    for (eco, pkg) in sorted {
        for (comp, project, subject) in db::components_of_package(c, eco, pkg)? {
            if match_component(c, comp, &subject, &mut cache)? {
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

/// Re-checks, after NVD data changed, the components whose CPE the given record keys (part,
/// vendor, product; `*` for ANY) may match, and every component with a CPE never keyed yet;
/// then re-evaluates policies and records metrics of every project whose findings changed.
/// Returns the number of such projects.
pub fn recheck_cpes(c: &Connection, keys: &HashSet<(String, String, String)>) -> Result<usize> {
    let mut cache = SpecCache::new();
    let mut projects: HashSet<ProjectId> = HashSet::new();
    loop {
        let batch = ndb::unkeyed_components(c, 1000)?;
        if batch.is_empty() {
            break;
        }
        for (comp, project, subject) in batch {
            if match_component(c, comp, &subject, &mut cache)? {
                projects.insert(project);
            }
        }
    }
    let mut sorted: Vec<&(String, String, String)> = keys.iter().collect();
    sorted.sort();
    let mut seen: HashSet<ComponentId> = HashSet::new();
    for (part, vendor, product) in sorted {
        for (comp, project, subject) in ndb::components_of_cpe(c, part, vendor, product)? {
            if !seen.insert(comp) {
                continue;
            }
            if match_component(c, comp, &subject, &mut cache)? {
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
