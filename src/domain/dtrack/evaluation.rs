//! How every component ends an analysis: with findings, clean (its package was evaluated
//! against imported OSV data for its ecosystem and nothing matched), or not evaluated, with a
//! reason. Nothing is silently clean: a component the internal analyzer could not evaluate is
//! counted and listed as such (the project's current metrics, the component listing, the
//! not-evaluated listing, the Prometheus gauge and `outpost dtrack not-evaluated` all ask
//! [`classify`], so they never disagree).
//!
//! The classification follows the analyzer's own (`osv::matching`): the package URL read as it
//! reads it, the candidates it looks up (source packages included), the version it compares and
//! the distribution release it matches by. Which ecosystems and releases the imported data
//! covers comes from one grouped query, kept until this process next imports OSV data (and at
//! most a minute, so an import by another process shows too): BOM uploads and other writes do
//! not repeat it.
//!
//! A component with a CPE that parses is also matched against imported NVD data: once any
//! NVD data is imported, such a component counts as evaluated (clean when nothing matched)
//! even when its package URL could not be, unless the analyzer recorded undecidable matches.
//!
//! Reasons and their wire names (stable):
//! - `NO_IDENTITY`: neither a package URL nor a CPE.
//! - `NO_PURL`: no package URL, and a CPE that does not parse (nothing to match by).
//! - `UNSUPPORTED_ECOSYSTEM`: a package URL that does not parse, or whose type (or vendor, for
//!   `deb`, `apk`, `rpm`) names no ecosystem the analyzer has a comparator for.
//! - `NO_DATA_FOR_ECOSYSTEM`: a supported ecosystem of which no OSV data is imported, or a
//!   component matched by CPE alone while no NVD data is imported.
//! - `NO_VERSION`: neither the package URL nor the component has a version.
//! - `UNPARSABLE_VERSION`: the version does not parse under the ecosystem's order, or a
//!   record's ranges for the package could not be compared with it (the analyzer's unknown
//!   matches, listed by `outpost dtrack unknown-matches`).
//! - `RELEASE_NOT_COVERED`: a distribution package whose release (its `distro` qualifier, or
//!   the release its version names) no imported record names, or whose `distro` names no
//!   release we can read.
//!
//! Must not touch HTTP types or SQL.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use crate::db::dtrack_evaluation::{self as db, EvaluationInput};
use crate::db::dtrack_portfolio as pdb;
use crate::db::dtrack_projects as more;
use crate::domain::core::Core;
use crate::error::Result;
use crate::ids::{ComponentId, ProjectId};
use crate::model::dtrack::{Component, Principal, ProjectMetrics};

use super::osv::ecosystem::Ecosystem;
use super::osv::{distro, matching, purl};
use super::portfolio::visible_project;

/// Why a component was not evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reason {
    NoIdentity,
    NoPurl,
    UnsupportedEcosystem,
    NoDataForEcosystem,
    NoVersion,
    UnparsableVersion,
    ReleaseNotCovered,
}

impl Reason {
    /// Every reason, in the order listings and metrics give them.
    pub const ALL: [Reason; 7] = [
        Reason::NoIdentity,
        Reason::NoPurl,
        Reason::UnsupportedEcosystem,
        Reason::NoDataForEcosystem,
        Reason::NoVersion,
        Reason::UnparsableVersion,
        Reason::ReleaseNotCovered,
    ];

    /// The stable wire name.
    pub fn name(self) -> &'static str {
        match self {
            Reason::NoIdentity => "NO_IDENTITY",
            Reason::NoPurl => "NO_PURL",
            Reason::UnsupportedEcosystem => "UNSUPPORTED_ECOSYSTEM",
            Reason::NoDataForEcosystem => "NO_DATA_FOR_ECOSYSTEM",
            Reason::NoVersion => "NO_VERSION",
            Reason::UnparsableVersion => "UNPARSABLE_VERSION",
            Reason::ReleaseNotCovered => "RELEASE_NOT_COVERED",
        }
    }

    fn index(self) -> usize {
        Reason::ALL.iter().position(|r| *r == self).unwrap_or(0)
    }
}

/// How a component ended its analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evaluation {
    /// At least one vulnerability is attributed to it.
    Findings,
    /// Evaluated against data for its ecosystem (and release); nothing matched.
    Clean,
    NotEvaluated(Reason),
}

impl Evaluation {
    /// The stable wire name of the state.
    pub fn state(self) -> &'static str {
        match self {
            Evaluation::Findings => "FINDINGS",
            Evaluation::Clean => "CLEAN",
            Evaluation::NotEvaluated(_) => "NOT_EVALUATED",
        }
    }

    pub fn reason(self) -> Option<Reason> {
        match self {
            Evaluation::NotEvaluated(r) => Some(r),
            _ => None,
        }
    }
}

/// The distributions, by the key stored rows name them by (their releases are read per
/// distribution).
const DISTRIBUTIONS: [Ecosystem; 8] = [
    Ecosystem::Debian,
    Ecosystem::Ubuntu,
    Ecosystem::Alpine,
    Ecosystem::RedHat,
    Ecosystem::AlmaLinux,
    Ecosystem::Rocky,
    Ecosystem::Suse,
    Ecosystem::OpenSuse,
];

/// The releases of one distribution the imported data names.
#[derive(Clone, Debug, Default, PartialEq)]
struct Releases {
    /// Some entry names no release (it applies to every release).
    every: bool,
    keys: HashSet<String>,
}

/// Which ecosystems (by stored key) and distribution releases the imported OSV data covers,
/// and whether NVD data (CPEs) is imported.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Coverage {
    ecosystems: HashMap<String, Releases>,
    nvd: bool,
}

impl Coverage {
    /// From the grouped (ecosystem, release suffix, entries) rows.
    pub fn from_rows(rows: &[(String, Option<String>, i64)]) -> Coverage {
        let mut out = Coverage::default();
        for (eco, suffix, n) in rows {
            if *n <= 0 {
                continue;
            }
            let entry = out.ecosystems.entry(eco.clone()).or_default();
            let distribution = DISTRIBUTIONS.iter().find(|d| d.purl_type() == eco);
            match (distribution, suffix.as_deref().map(str::trim)) {
                (Some(d), Some(s)) if !s.is_empty() => {
                    // An entry whose release cannot be read covers no known release.
                    if let Some(r) = distro::of_record(*d, s) {
                        entry.keys.insert(r.key);
                    }
                }
                _ => entry.every = true,
            }
        }
        out
    }

    /// The same coverage, with NVD data imported or not.
    pub fn with_nvd(mut self, nvd: bool) -> Coverage {
        self.nvd = nvd;
        self
    }

    fn of(&self, eco: Ecosystem) -> Option<&Releases> {
        self.ecosystems.get(eco.purl_type())
    }
}

fn blank(s: Option<&str>) -> bool {
    s.is_none_or(|s| s.trim().is_empty())
}

/// THE classification of one component.
pub fn classify(input: &EvaluationInput, coverage: &Coverage) -> Evaluation {
    use Evaluation::NotEvaluated as Not;
    if input.has_findings {
        return Evaluation::Findings;
    }
    // The CPE as the analyzer reads it (`matching::component_cpe`).
    let cpe = (!blank(input.cpe.as_deref())).then(|| {
        input
            .cpe
            .as_deref()
            .is_some_and(|c| crate::domain::dtrack::cpe::Cpe::parse(c).is_ok())
    });
    let by_cpe = cpe == Some(true) && coverage.nvd;
    if blank(input.subject.purl.as_deref()) {
        return match cpe {
            None => Not(Reason::NoIdentity),
            Some(false) => Not(Reason::NoPurl),
            Some(true) if !coverage.nvd => Not(Reason::NoDataForEcosystem),
            Some(true) if input.has_unknown => Not(Reason::UnparsableVersion),
            Some(true) => Evaluation::Clean,
        };
    }
    match classify_purl(input, coverage) {
        Not(_) if by_cpe && !input.has_unknown => Evaluation::Clean,
        e => e,
    }
}

/// The classification by package URL alone (the component has one).
fn classify_purl(input: &EvaluationInput, coverage: &Coverage) -> Evaluation {
    use Evaluation::NotEvaluated as Not;
    let purl_text = input.subject.purl.as_deref();
    let Some(p) = purl_text.and_then(purl::parse) else {
        return Not(Reason::UnsupportedEcosystem);
    };
    let eco = p.ecosystem;
    let Some(releases) = coverage.of(eco) else {
        return Not(Reason::NoDataForEcosystem);
    };
    let mut versions = Vec::new();
    for cand in matching::candidates(&p, &input.subject) {
        let Some(v) = cand.version.as_deref() else {
            return Not(Reason::NoVersion);
        };
        let v = purl::comparable_version(eco, &cand.key, v, p.epoch.as_deref());
        if eco.scheme().parse(&v).is_none() {
            return Not(Reason::UnparsableVersion);
        }
        versions.push(v);
    }
    if eco.is_distribution() {
        let covers = |r: &distro::Release| releases.every || releases.keys.contains(&r.key);
        match p.distro.as_deref().map(|d| distro::of_distro(eco, d)) {
            Some(None) => return Not(Reason::ReleaseNotCovered),
            Some(Some(r)) if !covers(&r) => return Not(Reason::ReleaseNotCovered),
            Some(Some(_)) => {}
            None => {
                if versions
                    .iter()
                    .filter_map(|v| distro::of_version(eco, v))
                    .any(|r| !covers(&r))
                {
                    return Not(Reason::ReleaseNotCovered);
                }
            }
        }
    }
    if input.has_unknown {
        return Not(Reason::UnparsableVersion);
    }
    Evaluation::Clean
}

/// How long a coverage read is used at most without an import by this process (an import by
/// another, `outpost dtrack import-osv` beside a running server, does not bump this one's
/// generations).
const COVERAGE_MAX_AGE_MS: i64 = 60_000;

/// The Prometheus summary is computed at most this often (scrapes between writes cost nothing;
/// a burst of writes costs at most one portfolio pass per interval).
const SUMMARY_MIN_INTERVAL_MS: i64 = 10_000;

/// A value with the write generation it was read under and when.
type Stamped<T> = Mutex<Option<(u64, i64, Arc<T>)>>;

/// The coverage and portfolio summary, per write generation.
#[derive(Default)]
pub struct EvaluationCache {
    coverage: Stamped<Coverage>,
    summary: Stamped<Summary>,
    /// Not-evaluated counts of the projects listings asked for, under one generation.
    counts: Stamped<Mutex<HashMap<ProjectId, i64>>>,
}

fn stamped<T>(slot: &Stamped<T>) -> Option<(u64, i64, Arc<T>)> {
    slot.lock()
        .ok()?
        .as_ref()
        .map(|(g, at, v)| (*g, *at, Arc::clone(v)))
}

fn store<T>(slot: &Stamped<T>, read_at: u64, at: i64, value: &Arc<T>) {
    if let Ok(mut g) = slot.lock()
        && g.as_ref().is_none_or(|(old, _, _)| *old <= read_at)
    {
        *g = Some((read_at, at, Arc::clone(value)));
    }
}

/// What the imported OSV data covers: one grouped query (over every affected entry) after
/// each OSV import by this process, and at most once a minute for imports by another.
pub async fn coverage(state: &Core) -> Result<Arc<Coverage>> {
    let dt = &state.dtrack;
    let read_at = dt.osv_generation();
    let now = crate::time::now_millis();
    if let Some((g, at, c)) = stamped(&dt.evaluation.coverage)
        && g == read_at
        && now - at < COVERAGE_MAX_AGE_MS
    {
        return Ok(c);
    }
    let (rows, nvd) = state
        .db
        .read(|c| Ok((db::covered(c)?, crate::db::dtrack_nvd::has_cpes(c)?)))
        .await?;
    let c = Arc::new(Coverage::from_rows(&rows).with_nvd(nvd));
    store(&dt.evaluation.coverage, read_at, now, &c);
    Ok(c)
}

/// Not-evaluated components of a project, or for a collection project of the children its
/// logic selects (as its metrics aggregate them).
fn count_not_evaluated(
    c: &rusqlite::Connection,
    project: ProjectId,
    coverage: &Coverage,
    depth: usize,
) -> Result<i64> {
    if let Some((logic, tag)) = more::collection_of(c, project)?
        && logic != "NONE"
    {
        let mut n = 0;
        if depth < 64 {
            for child in more::collection_members(c, project, &logic, tag.as_deref())? {
                n += count_not_evaluated(c, child, coverage, depth + 1)?;
            }
        }
        return Ok(n);
    }
    Ok(db::project_inputs(c, project)?
        .iter()
        .filter(|i| classify(i, coverage).reason().is_some())
        .count() as i64)
}

/// The not-evaluated count of each of `projects` (as [`current_metrics`] counts it), for the
/// `metrics` object of project listings. Counts are kept per write generation (and at most as
/// long as the coverage), so listing pages again costs nothing until the next write.
pub async fn not_evaluated_counts(
    state: &Core,
    projects: &[ProjectId],
) -> Result<HashMap<ProjectId, i64>> {
    let dt = &state.dtrack;
    let read_at = dt.generation();
    let now = crate::time::now_millis();
    let cached = match stamped(&dt.evaluation.counts) {
        Some((g, at, m)) if g == read_at && now - at < COVERAGE_MAX_AGE_MS => m,
        _ => {
            let fresh = Arc::new(Mutex::new(HashMap::new()));
            store(&dt.evaluation.counts, read_at, now, &fresh);
            fresh
        }
    };
    let mut out = HashMap::new();
    let mut missing = Vec::new();
    {
        // The map holds plain numbers: a poisoned lock still holds valid ones.
        let m = cached.lock().unwrap_or_else(|e| e.into_inner());
        for id in projects {
            match m.get(id) {
                Some(n) => {
                    out.insert(*id, *n);
                }
                None => missing.push(*id),
            }
        }
    }
    if missing.is_empty() {
        return Ok(out);
    }
    let coverage = coverage(state).await?;
    let counted = state
        .db
        .read(move |c| {
            missing
                .into_iter()
                .map(|id| Ok((id, count_not_evaluated(c, id, &coverage, 0)?)))
                .collect::<Result<Vec<_>>>()
        })
        .await?;
    cached
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .extend(counted.iter().copied());
    out.extend(counted);
    Ok(out)
}

/// `GET /metrics/project/{uuid}/current`: the latest snapshot with the number of components
/// not evaluated now.
pub async fn current_metrics(
    state: &Core,
    who: &Principal,
    uuid: &str,
) -> Result<Option<(ProjectMetrics, i64)>> {
    let coverage = coverage(state).await?;
    let acl = state.config.dtrack.acl_enabled;
    let (who, uuid) = (who.clone(), uuid.to_string());
    state
        .db
        .read(move |c| {
            let id = visible_project(c, acl, &who, &uuid)?;
            let Some(m) = crate::db::dtrack_metrics::latest_metrics(c, id)? else {
                return Ok(None);
            };
            Ok(Some((m, count_not_evaluated(c, id, &coverage, 0)?)))
        })
        .await
}

/// `GET /component/project/{uuid}`: a page of the project's components with their
/// evaluation, and the total.
pub async fn components(
    state: &Core,
    who: &Principal,
    project: &str,
    offset: i64,
    limit: Option<i64>,
) -> Result<(Vec<(Component, Evaluation)>, i64)> {
    let coverage = coverage(state).await?;
    let acl = state.config.dtrack.acl_enabled;
    let (who, project) = (who.clone(), project.to_string());
    state
        .db
        .read(move |c| {
            let id = visible_project(c, acl, &who, &project)?;
            let (page, total) = pdb::components(c, id, offset, limit)?;
            // Only the page's components are classified.
            let ids: Vec<ComponentId> = page.iter().map(|comp| ComponentId(comp.id)).collect();
            let by_id: HashMap<i64, Evaluation> = db::inputs_of(c, &ids)?
                .iter()
                .map(|i| (i.id.0, classify(i, &coverage)))
                .collect();
            let out = page
                .into_iter()
                .map(|comp| {
                    let e = by_id
                        .get(&comp.id)
                        .copied()
                        .unwrap_or(Evaluation::NotEvaluated(Reason::NoIdentity));
                    (comp, e)
                })
                .collect();
            Ok((out, total))
        })
        .await
}

/// `GET /outpost/project/{uuid}/notEvaluated`: a page of the project's components that were
/// not evaluated (in the component listing's order), and their total.
pub async fn not_evaluated(
    state: &Core,
    who: &Principal,
    project: &str,
    offset: i64,
    limit: Option<i64>,
) -> Result<(Vec<(EvaluationInput, Reason)>, i64)> {
    let coverage = coverage(state).await?;
    let acl = state.config.dtrack.acl_enabled;
    let (who, project) = (who.clone(), project.to_string());
    state
        .db
        .read(move |c| {
            let id = visible_project(c, acl, &who, &project)?;
            let all: Vec<(EvaluationInput, Reason)> = db::project_inputs(c, id)?
                .into_iter()
                .filter_map(|i| {
                    let r = classify(&i, &coverage).reason()?;
                    Some((i, r))
                })
                .collect();
            let total = all.len() as i64;
            let skip = usize::try_from(offset.max(0)).unwrap_or(usize::MAX);
            let take = limit
                .and_then(|l| usize::try_from(l).ok())
                .unwrap_or(usize::MAX);
            Ok((all.into_iter().skip(skip).take(take).collect(), total))
        })
        .await
}

/// Components of the whole portfolio by state, for the Prometheus gauges.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    pub components: i64,
    pub findings: i64,
    pub clean: i64,
    /// Not evaluated, by [`Reason::ALL`]'s order.
    pub not_evaluated: [i64; 7],
}

impl Summary {
    pub fn add(&mut self, e: Evaluation) {
        self.components += 1;
        match e {
            Evaluation::Findings => self.findings += 1,
            Evaluation::Clean => self.clean += 1,
            Evaluation::NotEvaluated(r) => self.not_evaluated[r.index()] += 1,
        }
    }

    /// Not evaluated for a reason.
    pub fn of(&self, r: Reason) -> i64 {
        self.not_evaluated[r.index()]
    }
}

/// The portfolio's components by state: one pass over the components after a write, at most
/// once per [`SUMMARY_MIN_INTERVAL_MS`]; otherwise the last pass's answer.
pub async fn portfolio_summary(state: &Core) -> Result<Arc<Summary>> {
    let dt = &state.dtrack;
    let read_at = dt.generation();
    let now = crate::time::now_millis();
    if let Some((g, at, s)) = stamped(&dt.evaluation.summary)
        && (g == read_at || now - at < SUMMARY_MIN_INTERVAL_MS)
    {
        return Ok(s);
    }
    let coverage = coverage(state).await?;
    let summary = state
        .db
        .read(move |c| {
            let mut s = Summary::default();
            db::each_input(c, |i| s.add(classify(&i, &coverage)))?;
            Ok(s)
        })
        .await?;
    let summary = Arc::new(summary);
    store(&dt.evaluation.summary, read_at, now, &summary);
    Ok(summary)
}

/// `outpost dtrack not-evaluated`: every component of the portfolio that was not evaluated,
/// by project.
pub async fn portfolio_not_evaluated(state: &Core) -> Result<Vec<(EvaluationInput, Reason)>> {
    let coverage = coverage(state).await?;
    let mut rows = state
        .db
        .read(move |c| {
            let mut out = Vec::new();
            db::each_input(c, |i| {
                if let Some(r) = classify(&i, &coverage).reason() {
                    out.push((i, r));
                }
            })?;
            Ok(out)
        })
        .await?;
    rows.sort_by(|(a, _), (b, _)| {
        (
            &a.project_name,
            &a.project_version,
            &a.name,
            &a.subject.version,
            a.id,
        )
            .cmp(&(
                &b.project_name,
                &b.project_version,
                &b.name,
                &b.subject.version,
                b.id,
            ))
    });
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::dtrack_osv::Subject;
    use crate::ids::ComponentId;
    use crate::model::dtrack::SourcePackage;

    fn input(purl: Option<&str>, cpe: Option<&str>, version: Option<&str>) -> EvaluationInput {
        EvaluationInput {
            id: ComponentId(1),
            project: ProjectId(1),
            project_name: "p".into(),
            project_version: None,
            uuid: "u".into(),
            name: "n".into(),
            group: None,
            cpe: cpe.map(str::to_string),
            subject: Subject {
                purl: purl.map(str::to_string),
                version: version.map(str::to_string),
                source: None,
                cpe: cpe.map(str::to_string),
            },
            has_findings: false,
            has_unknown: false,
        }
    }

    fn coverage() -> Coverage {
        let row = |e: &str, r: Option<&str>| (e.to_string(), r.map(str::to_string), 3);
        Coverage::from_rows(&[
            row("npm", None),
            row("pypi", None),
            row("deb", Some("12")),
            row("deb", Some("not a release at all!")),
            row("apk", Some("v3.18")),
            row("rpm/redhat", None),
            ("maven".into(), None, 0),
        ])
    }

    fn state(i: &EvaluationInput) -> Evaluation {
        classify(i, &coverage())
    }

    use Evaluation::{Clean, Findings, NotEvaluated as Not};

    #[test]
    fn every_reason_and_the_two_evaluated_states() {
        type Case<'a> = (
            Option<&'a str>,
            Option<&'a str>,
            Option<&'a str>,
            Evaluation,
        );
        let cases: &[Case] = &[
            (None, None, Some("1.0"), Not(Reason::NoIdentity)),
            (Some("  "), Some(" "), None, Not(Reason::NoIdentity)),
            // A CPE that parses, without NVD data; one that does not parse.
            (
                None,
                Some("cpe:2.3:a:x:y:1.0:*:*:*:*:*:*:*"),
                None,
                Not(Reason::NoDataForEcosystem),
            ),
            (None, Some("cpe:2.3:a:x"), None, Not(Reason::NoPurl)),
            (
                Some("pkg:conan/zlib@1.3"),
                None,
                None,
                Not(Reason::UnsupportedEcosystem),
            ),
            (
                Some("not a purl"),
                None,
                None,
                Not(Reason::UnsupportedEcosystem),
            ),
            (
                Some("pkg:deb/fedora/x@1"),
                None,
                None,
                Not(Reason::UnsupportedEcosystem),
            ),
            (
                Some("pkg:cargo/serde@1.0.0"),
                None,
                None,
                Not(Reason::NoDataForEcosystem),
            ),
            // An ecosystem whose rows are all gone is not covered.
            (
                Some("pkg:maven/g/a@1.0"),
                None,
                None,
                Not(Reason::NoDataForEcosystem),
            ),
            (Some("pkg:npm/left-pad"), None, None, Not(Reason::NoVersion)),
            (Some("pkg:npm/left-pad"), None, Some("1.3.0"), Clean),
            (
                Some("pkg:npm/left-pad@latest"),
                None,
                None,
                Not(Reason::UnparsableVersion),
            ),
            (Some("pkg:pypi/django@4.2"), None, None, Clean),
            (
                Some("pkg:deb/debian/curl@7.88.1-10?distro=debian-12"),
                None,
                None,
                Clean,
            ),
            (
                Some("pkg:deb/debian/curl@7.88.1-10?distro=bookworm"),
                None,
                None,
                Clean,
            ),
            (
                Some("pkg:deb/debian/curl@7.74.0-1.3?distro=debian-11"),
                None,
                None,
                Not(Reason::ReleaseNotCovered),
            ),
            // The release read from the version, as the analyzer reads it.
            (
                Some("pkg:deb/debian/curl@7.74.0-1.3%2Bdeb11u7"),
                None,
                None,
                Not(Reason::ReleaseNotCovered),
            ),
            // No release anywhere: every release's entries apply, as the analyzer does.
            (Some("pkg:deb/debian/curl@7.74.0-1.3"), None, None, Clean),
            (
                Some("pkg:deb/debian/curl@1.0-1?distro=windows-95"),
                None,
                None,
                Not(Reason::ReleaseNotCovered),
            ),
            (
                Some("pkg:apk/alpine/musl@1.2.4-r0?distro=3.18.4"),
                None,
                None,
                Clean,
            ),
            (
                Some("pkg:apk/alpine/musl@1.2.4-r0?distro=3.17.2"),
                None,
                None,
                Not(Reason::ReleaseNotCovered),
            ),
            // Entries without a release cover every release.
            (
                Some("pkg:rpm/redhat/openssl@3.0.7-24.el9?distro=rhel-9.3"),
                None,
                None,
                Clean,
            ),
            (
                Some("pkg:deb/ubuntu/curl@1.0?distro=ubuntu-22.04"),
                None,
                None,
                Not(Reason::NoDataForEcosystem),
            ),
        ];
        for (purl, cpe, version, want) in cases {
            assert_eq!(
                state(&input(*purl, *cpe, *version)),
                *want,
                "{purl:?} {cpe:?}"
            );
        }
    }

    #[test]
    fn a_cpe_is_evaluated_once_nvd_data_is_imported() {
        let nvd = coverage().with_nvd(true);
        let cpe = Some("cpe:2.3:a:acme:tool:2.4:*:*:*:*:*:*:*");
        assert_eq!(classify(&input(None, cpe, None), &nvd), Clean);
        assert_eq!(
            classify(&input(None, Some("cpe:/a:acme:tool:2.4"), None), &nvd),
            Clean
        );
        assert_eq!(
            classify(&input(None, Some("not a cpe"), None), &nvd),
            Not(Reason::NoPurl)
        );
        // A purl the analyzer cannot use, with a CPE it can: evaluated by CPE.
        let both = input(Some("pkg:conan/zlib@1.3"), cpe, None);
        assert_eq!(classify(&both, &nvd), Clean);
        assert_eq!(state(&both), Not(Reason::UnsupportedEcosystem));
        // Undecidable matches still are not clean.
        let mut i = input(None, cpe, None);
        i.has_unknown = true;
        assert_eq!(classify(&i, &nvd), Not(Reason::UnparsableVersion));
        let mut i = input(Some("pkg:npm/x@1.0.0"), cpe, None);
        i.has_unknown = true;
        assert_eq!(classify(&i, &nvd), Not(Reason::UnparsableVersion));
    }

    #[test]
    fn findings_win_and_unknown_matches_are_not_clean() {
        let mut i = input(None, None, None);
        i.has_findings = true;
        assert_eq!(state(&i), Findings);
        let mut i = input(Some("pkg:npm/x@1.0.0"), None, None);
        i.has_unknown = true;
        assert_eq!(state(&i), Not(Reason::UnparsableVersion));
        i.has_findings = true;
        assert_eq!(state(&i), Findings);
    }

    #[test]
    fn source_packages_are_classified_by_the_version_compared() {
        let mut i = input(
            Some("pkg:deb/debian/libssl3@3.0.11-1?distro=debian-12"),
            None,
            None,
        );
        i.subject.source = Some(SourcePackage {
            name: "openssl".into(),
            version: Some("not@@a version".into()),
        });
        assert_eq!(state(&i), Not(Reason::UnparsableVersion));
        i.subject.source = Some(SourcePackage {
            name: "openssl".into(),
            version: None,
        });
        assert_eq!(state(&i), Clean);
    }

    #[test]
    fn wire_names_are_stable_and_distinct() {
        let names: HashSet<&str> = Reason::ALL.iter().map(|r| r.name()).collect();
        assert_eq!(names.len(), Reason::ALL.len());
        assert_eq!(Reason::ReleaseNotCovered.name(), "RELEASE_NOT_COVERED");
        for d in DISTRIBUTIONS {
            assert!(d.is_distribution());
        }
        let mut s = Summary::default();
        for e in [
            Clean,
            Findings,
            Not(Reason::NoVersion),
            Not(Reason::NoVersion),
        ] {
            s.add(e);
        }
        assert_eq!((s.components, s.clean, s.findings), (4, 1, 1));
        assert_eq!(s.of(Reason::NoVersion), 2);
        assert_eq!(Evaluation::Clean.state(), "CLEAN");
    }
}
