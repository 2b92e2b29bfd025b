//! THE Dependency-Track route table: one row per endpoint under `/api`, with its method, path,
//! policy (who may call it, the media types upstream declares, whether it is an upload or
//! counted against the rate limit) and handler call. `http::route::routes!` turns the rows
//! into [`Endpoint`], the metrics names, the matcher, the sample paths and [`call`]. Must not
//! hold handler logic: a row names one handler.

use hyper::Method;

use crate::domain::Core;
use crate::error::Result;
use crate::http::Request;
use crate::http::route::{self, FromSegment, ListOptions, NoRoute, RouteTable};
use crate::model::dtrack::Principal;
use crate::model::dtrack::permissions::Permission;

use super::params::Query;
use super::respond::Out;
use super::{
    acl, badges, bom, evaluation, exchange, findings, identity, licenses, metrics, policies,
    portfolio, projects, search, tags,
};

/// Who may call an endpoint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Access {
    /// No credentials needed.
    Public,
    /// Any authenticated principal.
    Authenticated,
    /// A principal holding this permission.
    Needs(Permission),
    /// Badge rules: credentials checked inside (query keys allowed, or none when configured).
    Badge,
}

const JSON: &str = "application/json";
const FORM: &str = "application/x-www-form-urlencoded";
const MULTIPART: &str = "multipart/form-data";
const TEXT: &str = "text/plain";
const SVG: &str = "image/svg+xml";
/// Any media type upstream's JSON reader (Jackson's JAX-RS provider) takes, for endpoints that
/// declare none: see [`media_accepted`].
const JSON_READER: &str = "*/json";

/// Whether a request's media type (without parameters) is what an endpoint consumes. Media
/// types compare case-insensitively; [`JSON_READER`] takes a `json` or `x-json` subtype, one
/// ending in `+json`, or `javascript`/`x-javascript`, under any type.
pub fn media_accepted(wanted: &str, given: &str) -> bool {
    if wanted != JSON_READER {
        return given.eq_ignore_ascii_case(wanted);
    }
    let given = given.to_ascii_lowercase();
    let Some((kind, sub)) = given.split_once('/') else {
        return false;
    };
    let token = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$&-^_.+".contains(&b))
    };
    token(kind)
        && token(sub)
        && (matches!(sub, "json" | "x-json" | "javascript" | "x-javascript")
            || (sub.len() > 5 && sub.ends_with("+json")))
}

/// What admission and dispatch need to know about an endpoint, from its row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Policy {
    pub access: Access,
    /// The request media type upstream declares (`@Consumes`), if any.
    pub consumes: Option<&'static str>,
    /// The media type upstream declares (`@Produces`); plain-text errors are sent under it.
    pub produces: &'static str,
    /// A BOM or VEX upload: read within `max_upload_bytes`, counted against the upload slots.
    pub upload: bool,
    /// Counted against the rate limit (badges are not: README renderers fetch them through a
    /// few shared proxies, and they are answered from a cache).
    pub metered: bool,
}

impl Policy {
    const fn of(access: Access) -> Policy {
        Policy {
            access,
            consumes: None,
            produces: JSON,
            upload: false,
            metered: !matches!(access, Access::Badge),
        }
    }

    const fn consumes(self, media: &'static str) -> Policy {
        Policy {
            consumes: Some(media),
            ..self
        }
    }

    const fn produces(self, media: &'static str) -> Policy {
        Policy {
            produces: media,
            ..self
        }
    }

    const fn upload(self) -> Policy {
        Policy {
            upload: true,
            ..self
        }
    }
}

const PUBLIC: Policy = Policy::of(Access::Public);
const AUTHENTICATED: Policy = Policy::of(Access::Authenticated);
const BADGE: Policy = Policy::of(Access::Badge).produces(SVG);

const fn needs(p: Permission) -> Policy {
    Policy::of(Access::Needs(p))
}

/// The literal `clone` where a project's UUID may stand: `/v1/project/clone` is both the
/// clone endpoint and, for its other methods, the project named so (as upstream routes it).
#[derive(Clone, Debug, PartialEq)]
pub struct CloneWord;

impl FromSegment for CloneWord {
    fn from_segment(seg: &str) -> Option<CloneWord> {
        (seg == "clone").then_some(CloneWord)
    }
}

use Permission as P;

route::routes! {
    /// Every Dependency-Track endpoint, with its raw path parameters.
    pub enum Endpoint;
    policy: Policy;
    dispatch:
        /// Runs the endpoint's handler; `me` is the authenticated principal.
        pub(super) async fn call<'a>(
            state: &Core,
            me: &(dyn Fn() -> Result<&'a Principal> + Sync),
            q: &Query,
            body: &[u8],
            req: &Request,
        ) -> Out;

    Version = GET ["version"], PUBLIC => super::version(state);
    Login = POST ["v1", "user", "login"], PUBLIC.consumes(FORM).produces(TEXT) =>
        identity::login(state, body).await;
    ForceChangePassword = POST ["v1", "user", "forceChangePassword"], PUBLIC.consumes(FORM) =>
        identity::force_change_password(state, body).await;
    GetTeams = GET ["v1", "team"], needs(P::AccessManagement) => identity::get_teams(state).await;
    CreateTeam = PUT ["v1", "team"], needs(P::AccessManagement).consumes(JSON) =>
        identity::create_team(state, body).await;
    UpdateTeam = POST ["v1", "team"], needs(P::AccessManagement).consumes(JSON) =>
        identity::update_team(state, body).await;
    DeleteTeam = DELETE ["v1", "team"], needs(P::AccessManagement).consumes(JSON) =>
        identity::delete_team(state, body).await;
    GetTeam(team: String) = GET ["v1", "team", team], needs(P::AccessManagement) =>
        identity::get_team(state, &team).await;
    TeamSelf = GET ["v1", "team", "self"], AUTHENTICATED => identity::team_self(state, me()?).await;
    CreateKey(team: String) = PUT ["v1", "team", team, "key"], needs(P::AccessManagement) =>
        identity::create_key(state, &team).await;
    DeleteKey(key: String) = DELETE ["v1", "team", "key", key], needs(P::AccessManagement) =>
        identity::delete_key(state, &key).await;
    GetPermissions = GET ["v1", "permission"], needs(P::AccessManagement) =>
        identity::get_permissions();
    GrantTeamPermission(perm: String, team: String) = POST ["v1", "permission", perm, "team", team],
        needs(P::AccessManagement) => identity::set_permission(state, &perm, &team, true).await;
    RevokeTeamPermission(perm: String, team: String) =
        DELETE ["v1", "permission", perm, "team", team], needs(P::AccessManagement) =>
        identity::set_permission(state, &perm, &team, false).await;
    GetProjects = GET ["v1", "project"], needs(P::ViewPortfolio) =>
        portfolio::get_projects(state, me()?, q).await;
    CreateProject = PUT ["v1", "project"], needs(P::PortfolioManagement).consumes(JSON) =>
        portfolio::create_project(state, me()?, body).await;
    UpdateProject = POST ["v1", "project"], needs(P::PortfolioManagement).consumes(JSON) =>
        portfolio::update_project(state, me()?, body).await;
    LookupProject = GET ["v1", "project", "lookup"], needs(P::ViewPortfolio) =>
        portfolio::lookup_project(state, me()?, q).await;
    GetProject(project: String) = GET ["v1", "project", project], needs(P::ViewPortfolio) =>
        portfolio::get_project(state, me()?, &project).await;
    DeleteProject(project: String) = DELETE ["v1", "project", project],
        needs(P::PortfolioManagement) => portfolio::delete_project(state, me()?, &project).await;
    PatchProject(project: String) = PATCH ["v1", "project", project],
        needs(P::PortfolioManagement).consumes(JSON) =>
        projects::patch_project(state, me()?, &project, body).await;
    CloneProject(_clone: CloneWord) = PUT ["v1", "project", _clone],
        needs(P::PortfolioManagement).consumes(JSON), sample = "v1/project/clone" =>
        projects::clone_project(state, me()?, body).await;
    ProjectChildren(project: String) = GET ["v1", "project", project, "children"],
        needs(P::ViewPortfolio) => projects::children(state, me()?, &project, q).await;
    ChildrenByClassifier(project: String, classifier: String) =
        GET ["v1", "project", project, "children", "classifier", classifier],
        needs(P::ViewPortfolio) =>
        projects::children_by_classifier(state, me()?, &project, &classifier, q).await;
    ChildrenByTag(project: String, tag: String) =
        GET ["v1", "project", project, "children", "tag", tag], needs(P::ViewPortfolio) =>
        projects::children_by_tag(state, me()?, &project, &tag, q).await;
    LatestProject(name: String) = GET ["v1", "project", "latest", name], needs(P::ViewPortfolio) =>
        projects::latest(state, me()?, &name).await;
    ProjectsByTag(tag: String) = GET ["v1", "project", "tag", tag], needs(P::ViewPortfolio) =>
        projects::by_tag(state, me()?, &tag, q).await;
    ProjectsByClassifier(classifier: String) = GET ["v1", "project", "classifier", classifier],
        needs(P::ViewPortfolio) => projects::by_classifier(state, me()?, &classifier, q).await;
    GetProperties(project: String) = GET ["v1", "project", project, "property"],
        needs(P::PortfolioManagement) => projects::get_properties(state, me()?, &project).await;
    CreateProperty(project: String) = PUT ["v1", "project", project, "property"],
        needs(P::PortfolioManagement).consumes(JSON) =>
        projects::create_property(state, me()?, &project, body).await;
    UpdateProperty(project: String) = POST ["v1", "project", project, "property"],
        needs(P::PortfolioManagement).consumes(JSON) =>
        projects::update_property(state, me()?, &project, body).await;
    DeleteProperty(project: String) = DELETE ["v1", "project", project, "property"],
        needs(P::PortfolioManagement).consumes(JSON) =>
        projects::delete_property(state, me()?, &project, body).await;
    GetComponents(project: String) = GET ["v1", "component", "project", project],
        needs(P::ViewPortfolio) => portfolio::get_components(state, me()?, &project, q).await;
    NotEvaluated(project: String) = GET ["v1", "outpost", "project", project, "notEvaluated"],
        needs(P::ViewPortfolio) => evaluation::not_evaluated(state, me()?, &project, q).await;
    CreateComponent(project: String) = PUT ["v1", "component", "project", project],
        needs(P::PortfolioManagement).consumes(JSON) =>
        portfolio::create_component(state, me()?, &project, body).await;
    UpdateComponent = POST ["v1", "component"], needs(P::PortfolioManagement).consumes(JSON) =>
        portfolio::update_component(state, me()?, body).await;
    GetComponent(component: String) = GET ["v1", "component", component],
        needs(P::ViewPortfolio) => portfolio::get_component(state, me()?, &component).await;
    DeleteComponent(component: String) = DELETE ["v1", "component", component],
        needs(P::PortfolioManagement) => portfolio::delete_component(state, me()?, &component).await;
    ComponentsByHash(hash: String) = GET ["v1", "component", "hash", hash],
        needs(P::ViewPortfolio) => search::by_hash(state, me()?, &hash, q).await;
    ComponentsByIdentity = GET ["v1", "component", "identity"], needs(P::ViewPortfolio) =>
        search::by_identity(state, me()?, q).await;
    CreateVulnerability = PUT ["v1", "vulnerability"],
        needs(P::VulnerabilityManagement).consumes(JSON) =>
        findings::create_vulnerability(state, body).await;
    GetVulnerability(vuln: String) = GET ["v1", "vulnerability", vuln],
        needs(P::ViewVulnerability) => findings::get_vulnerability(state, &vuln).await;
    AssignVulnerability(vuln: String, component: String) =
        POST ["v1", "vulnerability", vuln, "component", component], needs(P::PortfolioManagement) =>
        findings::set_assignment(state, me()?, &vuln, &component, true).await;
    UnassignVulnerability(vuln: String, component: String) =
        DELETE ["v1", "vulnerability", vuln, "component", component],
        needs(P::PortfolioManagement) =>
        findings::set_assignment(state, me()?, &vuln, &component, false).await;
    GetFindings(project: String) = GET ["v1", "finding", "project", project],
        needs(P::ViewVulnerability) =>
        findings::get_findings(state, me()?, &project, q, req).await;
    GetAllFindings = GET ["v1", "finding"], needs(P::ViewVulnerability) =>
        findings::get_all_findings(state, me()?, q).await;
    AnalyzeProject(project: String) = POST ["v1", "finding", "project", project, "analyze"],
        needs(P::ViewVulnerability) => findings::analyze_project(state, me()?, &project).await;
    GetVulnerabilities = GET ["v1", "vulnerability"], needs(P::ViewPortfolio) =>
        findings::get_vulnerabilities(state, q).await;
    GetProjectVulnerabilities(project: String) =
        GET ["v1", "vulnerability", "project", project], needs(P::ViewPortfolio) =>
        findings::get_project_vulnerabilities(state, me()?, &project, q).await;
    GetVulnerabilityByKey(source: String, vuln: String) =
        GET ["v1", "vulnerability", "source", source, "vuln", vuln], needs(P::ViewPortfolio) =>
        findings::get_vulnerability_by_key(state, &source, &vuln).await;
    GetVulnerabilityProjects(source: String, vuln: String) =
        GET ["v1", "vulnerability", "source", source, "vuln", vuln, "projects"],
        needs(P::ViewPortfolio) =>
        findings::get_vulnerability_projects(state, me()?, &source, &vuln, q).await;
    ExportFindings(project: String) = GET ["v1", "finding", "project", project, "export"],
        needs(P::ViewVulnerability) => findings::export_findings(state, me()?, &project).await;
    AddMapping = PUT ["v1", "acl", "mapping"], needs(P::AccessManagement).consumes(JSON_READER) =>
        acl::add_mapping(state, body).await;
    DeleteMapping(team: String, project: String) =
        DELETE ["v1", "acl", "mapping", "team", team, "project", project],
        needs(P::AccessManagement) => acl::delete_mapping(state, &team, &project).await;
    GetTeamProjects(team: String) = GET ["v1", "acl", "team", team], needs(P::AccessManagement) =>
        acl::team_projects(state, &team, q).await;
    GetAnalysis = GET ["v1", "analysis"], needs(P::ViewVulnerability) =>
        findings::get_analysis(state, me()?, q).await;
    UpdateAnalysis = PUT ["v1", "analysis"], needs(P::VulnerabilityAnalysis).consumes(JSON) =>
        findings::update_analysis(state, me()?, body).await;
    BadgeByUuid(project: String) = GET ["v1", "badge", "violations", "project", project], BADGE =>
        badges::by_uuid(state, req, q, &project).await;
    BadgeByName(name: String, version: String) =
        GET ["v1", "badge", "violations", "project", name, version], BADGE =>
        badges::by_name(state, req, q, &name, &version).await;
    VulnsBadgeByUuid(project: String) = GET ["v1", "badge", "vulns", "project", project], BADGE =>
        badges::vulns_by_uuid(state, req, q, &project).await;
    VulnsBadgeByName(name: String, version: String) =
        GET ["v1", "badge", "vulns", "project", name, version], BADGE =>
        badges::vulns_by_name(state, req, q, &name, &version).await;
    RefreshMetrics(project: String) = GET ["v1", "metrics", "project", project, "refresh"],
        needs(P::PortfolioManagement) => metrics::refresh_project(state, me()?, &project).await;
    CurrentMetrics(project: String) = GET ["v1", "metrics", "project", project, "current"],
        needs(P::ViewPortfolio) => metrics::current_project(state, me()?, &project).await;
    ProjectMetricsDays(project: String, days: String) =
        GET ["v1", "metrics", "project", project, "days", days], needs(P::ViewPortfolio) =>
        metrics::project_days(state, me()?, &project, &days).await;
    ProjectMetricsSince(project: String, date: String) =
        GET ["v1", "metrics", "project", project, "since", date], needs(P::ViewPortfolio) =>
        metrics::project_since(state, me()?, &project, &date).await;
    CurrentComponentMetrics(component: String) =
        GET ["v1", "metrics", "component", component, "current"], needs(P::ViewPortfolio) =>
        metrics::current_component(state, me()?, &component).await;
    ComponentMetricsDays(component: String, days: String) =
        GET ["v1", "metrics", "component", component, "days", days], needs(P::ViewPortfolio) =>
        metrics::component_days(state, me()?, &component, &days).await;
    ComponentMetricsSince(component: String, date: String) =
        GET ["v1", "metrics", "component", component, "since", date], needs(P::ViewPortfolio) =>
        metrics::component_since(state, me()?, &component, &date).await;
    RefreshComponentMetrics(component: String) =
        GET ["v1", "metrics", "component", component, "refresh"], needs(P::PortfolioManagement) =>
        metrics::refresh_component(state, me()?, &component).await;
    CurrentPortfolioMetrics = GET ["v1", "metrics", "portfolio", "current"],
        needs(P::ViewPortfolio) => metrics::current_portfolio(state).await;
    PortfolioMetricsDays(days: String) = GET ["v1", "metrics", "portfolio", days, "days"],
        needs(P::ViewPortfolio) => metrics::portfolio_days(state, &days).await;
    PortfolioMetricsSince(date: String) = GET ["v1", "metrics", "portfolio", "since", date],
        needs(P::ViewPortfolio) => metrics::portfolio_since(state, &date).await;
    RefreshPortfolioMetrics = GET ["v1", "metrics", "portfolio", "refresh"],
        needs(P::PortfolioManagement) => metrics::refresh_portfolio(state).await;
    VulnerabilityMetrics = GET ["v1", "metrics", "vulnerability"], needs(P::ViewPortfolio) =>
        metrics::vulnerability(state).await;
    GetPolicies = GET ["v1", "policy"], needs(P::PolicyManagement) =>
        policies::get_policies(state).await;
    CreatePolicy = PUT ["v1", "policy"], needs(P::PolicyManagement).consumes(JSON) =>
        policies::create_policy(state, body).await;
    UpdatePolicy = POST ["v1", "policy"], needs(P::PolicyManagement).consumes(JSON) =>
        policies::update_policy(state, body).await;
    GetPolicy(policy: String) = GET ["v1", "policy", policy], needs(P::PolicyManagement) =>
        policies::get_policy(state, &policy).await;
    DeletePolicy(policy: String) = DELETE ["v1", "policy", policy], needs(P::PolicyManagement) =>
        policies::delete_policy(state, &policy).await;
    AddCondition(policy: String) = PUT ["v1", "policy", policy, "condition"],
        needs(P::PolicyManagement).consumes(JSON) =>
        policies::add_condition(state, &policy, body).await;
    UpdateCondition = POST ["v1", "policy", "condition"],
        needs(P::PolicyManagement).consumes(JSON) => policies::update_condition(state, body).await;
    DeleteCondition(condition: String) = DELETE ["v1", "policy", "condition", condition],
        needs(P::PolicyManagement) => policies::delete_condition(state, &condition).await;
    AddPolicyProject(policy: String, project: String) =
        POST ["v1", "policy", policy, "project", project], needs(P::PolicyManagement) =>
        tags::scope_project(state, &policy, &project, true).await;
    RemovePolicyProject(policy: String, project: String) =
        DELETE ["v1", "policy", policy, "project", project], needs(P::PolicyManagement) =>
        tags::scope_project(state, &policy, &project, false).await;
    AddPolicyTag(policy: String, tag: String) =
        POST ["v1", "policy", policy, "tag", tag], needs(P::PolicyManagement) =>
        tags::scope_tag(state, &policy, &tag, true).await;
    RemovePolicyTag(policy: String, tag: String) =
        DELETE ["v1", "policy", policy, "tag", tag], needs(P::PolicyManagement) =>
        tags::scope_tag(state, &policy, &tag, false).await;
    GetTags = GET ["v1", "tag"], needs(P::ViewPortfolio) => tags::list(state, me()?, q).await;
    CreateTags = PUT ["v1", "tag"], needs(P::TagManagement).consumes(JSON) =>
        tags::create(state, body).await;
    DeleteTags = DELETE ["v1", "tag"], needs(P::TagManagement).consumes(JSON) =>
        tags::delete(state, me()?, body).await;
    TaggedProjects(tag: String) = GET ["v1", "tag", tag, "project"], needs(P::ViewPortfolio) =>
        tags::projects(state, me()?, &tag, false, q).await;
    TagProjects(tag: String) = POST ["v1", "tag", tag, "project"],
        needs(P::PortfolioManagement).consumes(JSON) =>
        tags::tag_projects(state, me()?, &tag, body, true).await;
    UntagProjects(tag: String) = DELETE ["v1", "tag", tag, "project"],
        needs(P::PortfolioManagement).consumes(JSON) =>
        tags::tag_projects(state, me()?, &tag, body, false).await;
    TaggedCollectionProjects(tag: String) = GET ["v1", "tag", tag, "collectionProject"],
        needs(P::ViewPortfolio) => tags::projects(state, me()?, &tag, true, q).await;
    TaggedPolicies(tag: String) = GET ["v1", "tag", tag, "policy"], needs(P::ViewPortfolio) =>
        tags::policies(state, &tag, q).await;
    TagPolicies(tag: String) = POST ["v1", "tag", tag, "policy"],
        needs(P::PolicyManagement).consumes(JSON) =>
        tags::tag_policies(state, &tag, body, true).await;
    UntagPolicies(tag: String) = DELETE ["v1", "tag", tag, "policy"],
        needs(P::PolicyManagement).consumes(JSON) =>
        tags::tag_policies(state, &tag, body, false).await;
    TagsOfPolicy(policy: String) = GET ["v1", "tag", "policy", policy], needs(P::ViewPortfolio) =>
        tags::of_policy(state, &policy, "getTagsForPolicy.arg0").await;
    TagsOfPolicyDeprecated(policy: String) = GET ["v1", "tag", policy],
        needs(P::ViewPortfolio) => tags::of_policy(state, &policy, "getTags.arg0").await;
    GetLicenses = GET ["v1", "license"], AUTHENTICATED => licenses::get_licenses(q).await;
    GetConciseLicenses = GET ["v1", "license", "concise"], AUTHENTICATED =>
        licenses::get_concise().await;
    GetLicense(license: String) = GET ["v1", "license", license], AUTHENTICATED =>
        licenses::get_license(&license).await;
    GetLicenseGroups = GET ["v1", "licenseGroup"], needs(P::PolicyManagement) =>
        licenses::get_groups(state, q).await;
    CreateLicenseGroup = PUT ["v1", "licenseGroup"], needs(P::PolicyManagement).consumes(JSON) =>
        licenses::create_group(state, body).await;
    UpdateLicenseGroup = POST ["v1", "licenseGroup"],
        needs(P::PolicyManagement).consumes(JSON) => licenses::update_group(state, body).await;
    GetLicenseGroup(group: String) = GET ["v1", "licenseGroup", group],
        needs(P::PolicyManagement) => licenses::get_group(state, &group).await;
    DeleteLicenseGroup(group: String) = DELETE ["v1", "licenseGroup", group],
        needs(P::PolicyManagement) => licenses::delete_group(state, &group).await;
    AddGroupLicense(group: String, license: String) =
        POST ["v1", "licenseGroup", group, "license", license], needs(P::PolicyManagement) =>
        licenses::set_member(state, &group, &license, true).await;
    RemoveGroupLicense(group: String, license: String) =
        DELETE ["v1", "licenseGroup", group, "license", license], needs(P::PolicyManagement) =>
        licenses::set_member(state, &group, &license, false).await;
    ProjectViolations(project: String) = GET ["v1", "violation", "project", project],
        needs(P::ViewPolicyViolation) =>
        policies::project_violations(state, me()?, &project, q).await;
    PortfolioViolations = GET ["v1", "violation"], needs(P::ViewPolicyViolation) =>
        policies::portfolio_violations(state, me()?, q).await;
    ComponentViolations(component: String) = GET ["v1", "violation", "component", component],
        needs(P::ViewPolicyViolation) =>
        policies::component_violations(state, me()?, &component, q).await;
    AnalyzeViolation = PUT ["v1", "violation", "analysis"],
        needs(P::PolicyViolationAnalysis).consumes(JSON) =>
        policies::analyze(state, me()?, body).await;
    PutBom = PUT ["v1", "bom"], needs(P::BomUpload).consumes(JSON).upload() =>
        bom::put_bom(state, me()?, body).await;
    PostBom = POST ["v1", "bom"], needs(P::BomUpload).consumes(MULTIPART).upload() =>
        bom::post_bom(state, me()?, req).await;
    TokenStatus(token: String) = GET ["v1", "event", "token", token], AUTHENTICATED =>
        bom::token_status(state, &token).await;
    BomTokenStatus(token: String) = GET ["v1", "bom", "token", token], needs(P::BomUpload) =>
        bom::token_status(state, &token).await;
    ExportBom(project: String) = GET ["v1", "bom", "cyclonedx", "project", project],
        needs(P::ViewPortfolio).produces(exchange::CDX_JSON) =>
        exchange::export_bom(state, me()?, &project, q).await;
    ExportVex(project: String) = GET ["v1", "vex", "cyclonedx", "project", project],
        needs(P::VulnerabilityAnalysis).produces(exchange::CDX_JSON) =>
        exchange::export_vex(state, me()?, &project, q).await;
    PutVex = PUT ["v1", "vex"], needs(P::VulnerabilityAnalysis).consumes(JSON).upload() =>
        exchange::put_vex(state, me()?, body).await;
    PostVex = POST ["v1", "vex"], needs(P::VulnerabilityAnalysis).consumes(MULTIPART).upload() =>
        exchange::post_vex(state, me()?, req).await;
}

/// (method, decoded segments after `/api/`) → endpoint.
pub fn route(method: &Method, segs: &[String]) -> std::result::Result<Endpoint, NoRoute> {
    route::resolve(method, segs, ListOptions::Yes)
}

/// One request per endpoint, as (method, path after `/api/`), with `{team}`, `{key}`,
/// `{perm}`, `{project}`, `{component}`, `{vuln}`, `{source}`, `{policy}`, `{condition}`,
/// `{token}`, `{name}`, `{version}`, `{tag}`, `{classifier}`, `{days}`, `{date}`, `{license}`, `{group}` and `{hash}` marking path parameters: for
/// tests that walk every route.
pub const SAMPLE_ROUTES: &[(&str, &str)] = Endpoint::SAMPLES;
