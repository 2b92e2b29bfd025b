//! The Dependency-Track API (part of OWASP Dependency-Track 4.14's REST API under `/api`) on
//! its own listener: route table, authentication, dispatch.
//!
//! [`route`] is the one table from paths to endpoints; `endpoints!` gives each endpoint one
//! row (permission, consumed and produced media types, handler); handlers live in
//! one file per area and stay thin (parse, call a domain function in
//! `domain::dtrack`, render with [`wire`]). Shares nothing of its wire format or auth with the
//! chat API. Must not contain SQL.

pub mod acl;
pub mod auth;
pub mod badges;
pub mod bom;
pub mod exchange;
pub mod findings;
pub mod identity;
pub mod params;
pub mod policies;
pub mod portfolio;
pub mod projects;
pub mod respond;
pub mod svg;
pub mod wire;

use std::borrow::Cow;
use std::net::IpAddr;
use std::sync::Arc;

use hyper::http::request::Parts;
use hyper::{Method, StatusCode};

use crate::app::AppState;
use crate::error::{Error, ErrorKind};
use crate::http::rate_limit::{self, Limited, RateKey, RateState};
use crate::http::route::ListOptions;
use crate::http::server::{Admission, Api, BoxFuture};
use crate::http::{self, Request, Response};
use crate::model::dtrack::permissions::Permission;
use crate::model::dtrack::{Principal, PrincipalKind};

use params::Query;
use respond::{Out, decorate, fail_response};

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

/// Declares [`Endpoint`] and everything known about each endpoint from one row:
/// `Variant(path params) : access, consumes, produces => handler call;`. The handler call
/// names the request context through the identifiers given after `with`.
macro_rules! endpoints {
    (@string $a:ident) => { String };
    (
        with ($state:ident, $me:ident, $q:ident, $body:ident, $req:ident);
        $( $v:ident $( ( $($a:ident),* ) )? :
            $access:expr, $consumes:expr, $produces:expr => $call:expr; )*
    ) => {
        /// Every Dependency-Track endpoint, with its raw path parameters.
        #[derive(Clone, Debug, PartialEq)]
        pub enum Endpoint {
            $( $v $( ( $( endpoints!(@string $a) ),* ) )?, )*
        }

        impl Endpoint {
            /// Who may call it.
            pub fn access(&self) -> Access {
                match self {
                    $( Endpoint::$v { .. } => $access, )*
                }
            }

            /// The request media type upstream declares (`@Consumes`), if any.
            pub fn consumes(&self) -> Option<&'static str> {
                match self {
                    $( Endpoint::$v { .. } => $consumes, )*
                }
            }

            /// The media type upstream declares (`@Produces`); plain-text errors are sent
            /// under it.
            pub fn produces(&self) -> &'static str {
                match self {
                    $( Endpoint::$v { .. } => $produces, )*
                }
            }

            /// This endpoint's position in [`ROUTE_NAMES`].
            pub fn route_index(&self) -> usize {
                #[allow(clippy::enum_variant_names)]
                enum Index { $( $v, )* }
                match self {
                    $( Endpoint::$v { .. } => Index::$v as usize, )*
                }
            }
        }

        /// Every endpoint's name, indexed by [`Endpoint::route_index`]: the bounded `route`
        /// label of the request metrics.
        pub const ROUTE_NAMES: &[&str] = &[ $( stringify!($v), )* ];

        /// Runs the endpoint's handler.
        async fn call(
            state: &AppState,
            endpoint: Endpoint,
            who: Option<&Principal>,
            q: &Query,
            req: &Request,
        ) -> Out {
            let $state = state;
            let $me = || {
                who.ok_or_else(|| Error::internal("no principal on an authenticated route"))
            };
            let $q = q;
            let $body = &req.body[..];
            let $req = req;
            match endpoint {
                $( Endpoint::$v $( ( $($a),* ) )? => $call, )*
            }
        }
    };
}

use Access::{Authenticated, Badge, Needs, Public};
use Permission as P;

endpoints! {
    with (state, me, q, body, req);
    Version: Public, None, JSON => version(state);
    Login: Public, Some(FORM), TEXT => identity::login(state, body).await;
    ForceChangePassword: Public, Some(FORM), JSON =>
        identity::force_change_password(state, body).await;
    GetTeams: Needs(P::AccessManagement), None, JSON => identity::get_teams(state).await;
    CreateTeam: Needs(P::AccessManagement), Some(JSON), JSON =>
        identity::create_team(state, body).await;
    UpdateTeam: Needs(P::AccessManagement), Some(JSON), JSON =>
        identity::update_team(state, body).await;
    DeleteTeam: Needs(P::AccessManagement), Some(JSON), JSON =>
        identity::delete_team(state, body).await;
    GetTeam(u): Needs(P::AccessManagement), None, JSON => identity::get_team(state, &u).await;
    TeamSelf: Authenticated, None, JSON => identity::team_self(state, me()?).await;
    CreateKey(u): Needs(P::AccessManagement), None, JSON =>
        identity::create_key(state, &u).await;
    DeleteKey(k): Needs(P::AccessManagement), None, JSON =>
        identity::delete_key(state, &k).await;
    GetPermissions: Needs(P::AccessManagement), None, JSON => identity::get_permissions();
    GrantTeamPermission(p, u): Needs(P::AccessManagement), None, JSON =>
        identity::set_permission(state, &p, &u, true).await;
    RevokeTeamPermission(p, u): Needs(P::AccessManagement), None, JSON =>
        identity::set_permission(state, &p, &u, false).await;
    GetProjects: Needs(P::ViewPortfolio), None, JSON =>
        portfolio::get_projects(state, me()?, q).await;
    CreateProject: Needs(P::PortfolioManagement), Some(JSON), JSON =>
        portfolio::create_project(state, me()?, body).await;
    UpdateProject: Needs(P::PortfolioManagement), Some(JSON), JSON =>
        portfolio::update_project(state, me()?, body).await;
    LookupProject: Needs(P::ViewPortfolio), None, JSON =>
        portfolio::lookup_project(state, me()?, q).await;
    GetProject(u): Needs(P::ViewPortfolio), None, JSON =>
        portfolio::get_project(state, me()?, &u).await;
    DeleteProject(u): Needs(P::PortfolioManagement), None, JSON =>
        portfolio::delete_project(state, me()?, &u).await;
    PatchProject(u): Needs(P::PortfolioManagement), Some(JSON), JSON =>
        projects::patch_project(state, me()?, &u, body).await;
    CloneProject: Needs(P::PortfolioManagement), Some(JSON), JSON =>
        projects::clone_project(state, me()?, body).await;
    ProjectChildren(u): Needs(P::ViewPortfolio), None, JSON =>
        projects::children(state, me()?, &u, q).await;
    ChildrenByClassifier(u, c): Needs(P::ViewPortfolio), None, JSON =>
        projects::children_by_classifier(state, me()?, &u, &c, q).await;
    ChildrenByTag(u, t): Needs(P::ViewPortfolio), None, JSON =>
        projects::children_by_tag(state, me()?, &u, &t, q).await;
    LatestProject(n): Needs(P::ViewPortfolio), None, JSON =>
        projects::latest(state, me()?, &n).await;
    ProjectsByTag(t): Needs(P::ViewPortfolio), None, JSON =>
        projects::by_tag(state, me()?, &t, q).await;
    ProjectsByClassifier(c): Needs(P::ViewPortfolio), None, JSON =>
        projects::by_classifier(state, me()?, &c, q).await;
    GetProperties(u): Needs(P::PortfolioManagement), None, JSON =>
        projects::get_properties(state, me()?, &u).await;
    CreateProperty(u): Needs(P::PortfolioManagement), Some(JSON), JSON =>
        projects::create_property(state, me()?, &u, body).await;
    UpdateProperty(u): Needs(P::PortfolioManagement), Some(JSON), JSON =>
        projects::update_property(state, me()?, &u, body).await;
    DeleteProperty(u): Needs(P::PortfolioManagement), Some(JSON), JSON =>
        projects::delete_property(state, me()?, &u, body).await;
    GetComponents(u): Needs(P::ViewPortfolio), None, JSON =>
        portfolio::get_components(state, me()?, &u, q).await;
    CreateComponent(u): Needs(P::PortfolioManagement), Some(JSON), JSON =>
        portfolio::create_component(state, me()?, &u, body).await;
    UpdateComponent: Needs(P::PortfolioManagement), Some(JSON), JSON =>
        portfolio::update_component(state, me()?, body).await;
    GetComponent(u): Needs(P::ViewPortfolio), None, JSON =>
        portfolio::get_component(state, me()?, &u).await;
    DeleteComponent(u): Needs(P::PortfolioManagement), None, JSON =>
        portfolio::delete_component(state, me()?, &u).await;
    CreateVulnerability: Needs(P::VulnerabilityManagement), Some(JSON), JSON =>
        findings::create_vulnerability(state, body).await;
    GetVulnerability(u): Needs(P::ViewVulnerability), None, JSON =>
        findings::get_vulnerability(state, &u).await;
    AssignVulnerability(v, c): Needs(P::PortfolioManagement), None, JSON =>
        findings::set_assignment(state, me()?, &v, &c, true).await;
    UnassignVulnerability(v, c): Needs(P::PortfolioManagement), None, JSON =>
        findings::set_assignment(state, me()?, &v, &c, false).await;
    GetFindings(u): Needs(P::ViewVulnerability), None, JSON =>
        findings::get_findings(state, me()?, &u, q).await;
    GetAllFindings: Needs(P::ViewVulnerability), None, JSON =>
        findings::get_all_findings(state, me()?, q).await;
    AnalyzeProject(u): Needs(P::ViewVulnerability), None, JSON =>
        findings::analyze_project(state, me()?, &u).await;
    GetVulnerabilities: Needs(P::ViewPortfolio), None, JSON =>
        findings::get_vulnerabilities(state, q).await;
    GetVulnerabilityByKey(s, v): Needs(P::ViewPortfolio), None, JSON =>
        findings::get_vulnerability_by_key(state, &s, &v).await;
    GetVulnerabilityProjects(s, v): Needs(P::ViewPortfolio), None, JSON =>
        findings::get_vulnerability_projects(state, me()?, &s, &v, q).await;
    AddMapping: Needs(P::AccessManagement), Some(JSON), JSON => acl::add_mapping(state, body).await;
    DeleteMapping(t, p): Needs(P::AccessManagement), None, JSON =>
        acl::delete_mapping(state, &t, &p).await;
    GetTeamProjects(u): Needs(P::AccessManagement), None, JSON =>
        acl::team_projects(state, &u, q).await;
    GetAnalysis: Needs(P::ViewVulnerability), None, JSON =>
        findings::get_analysis(state, me()?, q).await;
    UpdateAnalysis: Needs(P::VulnerabilityAnalysis), Some(JSON), JSON =>
        findings::update_analysis(state, me()?, body).await;
    BadgeByUuid(u): Badge, None, SVG => badges::by_uuid(state, req, q, &u).await;
    BadgeByName(n, v): Badge, None, SVG => badges::by_name(state, req, q, &n, &v).await;
    RefreshMetrics(u): Needs(P::PortfolioManagement), None, JSON =>
        badges::refresh_metrics(state, me()?, &u).await;
    CurrentMetrics(u): Needs(P::ViewPortfolio), None, JSON =>
        badges::current_metrics(state, me()?, &u).await;
    GetPolicies: Needs(P::PolicyManagement), None, JSON => policies::get_policies(state).await;
    CreatePolicy: Needs(P::PolicyManagement), Some(JSON), JSON =>
        policies::create_policy(state, body).await;
    UpdatePolicy: Needs(P::PolicyManagement), Some(JSON), JSON =>
        policies::update_policy(state, body).await;
    GetPolicy(u): Needs(P::PolicyManagement), None, JSON => policies::get_policy(state, &u).await;
    DeletePolicy(u): Needs(P::PolicyManagement), None, JSON =>
        policies::delete_policy(state, &u).await;
    AddCondition(u): Needs(P::PolicyManagement), Some(JSON), JSON =>
        policies::add_condition(state, &u, body).await;
    UpdateCondition: Needs(P::PolicyManagement), Some(JSON), JSON =>
        policies::update_condition(state, body).await;
    DeleteCondition(u): Needs(P::PolicyManagement), None, JSON =>
        policies::delete_condition(state, &u).await;
    ProjectViolations(u): Needs(P::ViewPolicyViolation), None, JSON =>
        policies::project_violations(state, me()?, &u, q).await;
    AnalyzeViolation: Needs(P::PolicyViolationAnalysis), Some(JSON), JSON =>
        policies::analyze(state, me()?, body).await;
    PutBom: Needs(P::BomUpload), Some(JSON), JSON => bom::put_bom(state, me()?, body).await;
    PostBom: Needs(P::BomUpload), Some(MULTIPART), JSON => bom::post_bom(state, me()?, req).await;
    TokenStatus(u): Authenticated, None, JSON => bom::token_status(state, &u).await;
    BomTokenStatus(u): Needs(P::BomUpload), None, JSON => bom::token_status(state, &u).await;
    ExportBom(u): Needs(P::ViewPortfolio), None, exchange::CDX_JSON =>
        exchange::export_bom(state, me()?, &u, q).await;
    ExportVex(u): Needs(P::VulnerabilityAnalysis), None, exchange::CDX_JSON =>
        exchange::export_vex(state, me()?, &u, q).await;
    PutVex: Needs(P::VulnerabilityAnalysis), Some(JSON), JSON =>
        exchange::put_vex(state, me()?, body).await;
    PostVex: Needs(P::VulnerabilityAnalysis), Some(MULTIPART), JSON =>
        exchange::post_vex(state, me()?, req).await;
}

impl Endpoint {
    /// A BOM upload: read within `max_upload_bytes`, counted against the upload slots.
    fn is_upload(&self) -> bool {
        matches!(
            self,
            Endpoint::PutBom | Endpoint::PostBom | Endpoint::PutVex | Endpoint::PostVex
        )
    }
}

/// Why a path did not resolve.
#[derive(Debug, PartialEq)]
pub enum NoRoute {
    NotFound,
    Method(Vec<&'static str>),
}

/// THE route table: (method, decoded segments after `/api/`) → endpoint.
pub fn route(method: &Method, segs: &[String]) -> Result<Endpoint, NoRoute> {
    use Endpoint as E;
    let s: Vec<&str> = segs.iter().map(String::as_str).collect();
    let o = |x: &str| x.to_string();
    let table: Vec<(&'static str, Endpoint)> = match s.as_slice() {
        ["version"] => vec![("GET", E::Version)],
        ["v1", "user", "login"] => vec![("POST", E::Login)],
        ["v1", "user", "forceChangePassword"] => vec![("POST", E::ForceChangePassword)],
        ["v1", "team"] => vec![
            ("GET", E::GetTeams),
            ("PUT", E::CreateTeam),
            ("POST", E::UpdateTeam),
            ("DELETE", E::DeleteTeam),
        ],
        ["v1", "team", "self"] => vec![("GET", E::TeamSelf)],
        ["v1", "team", "key", id] => vec![("DELETE", E::DeleteKey(o(id)))],
        ["v1", "team", uuid] => vec![("GET", E::GetTeam(o(uuid)))],
        ["v1", "team", uuid, "key"] => vec![("PUT", E::CreateKey(o(uuid)))],
        ["v1", "permission"] => vec![("GET", E::GetPermissions)],
        ["v1", "permission", p, "team", uuid] => vec![
            ("POST", E::GrantTeamPermission(o(p), o(uuid))),
            ("DELETE", E::RevokeTeamPermission(o(p), o(uuid))),
        ],
        ["v1", "project"] => vec![
            ("GET", E::GetProjects),
            ("PUT", E::CreateProject),
            ("POST", E::UpdateProject),
        ],
        ["v1", "project", "lookup"] => vec![("GET", E::LookupProject)],
        ["v1", "project", "clone"] => vec![
            ("PUT", E::CloneProject),
            ("GET", E::GetProject(o("clone"))),
            ("DELETE", E::DeleteProject(o("clone"))),
            ("PATCH", E::PatchProject(o("clone"))),
        ],
        ["v1", "project", "latest", name] => vec![("GET", E::LatestProject(o(name)))],
        ["v1", "project", "tag", tag] => vec![("GET", E::ProjectsByTag(o(tag)))],
        ["v1", "project", "classifier", c] => vec![("GET", E::ProjectsByClassifier(o(c)))],
        ["v1", "project", uuid] => vec![
            ("GET", E::GetProject(o(uuid))),
            ("DELETE", E::DeleteProject(o(uuid))),
            ("PATCH", E::PatchProject(o(uuid))),
        ],
        ["v1", "project", uuid, "children"] => vec![("GET", E::ProjectChildren(o(uuid)))],
        ["v1", "project", uuid, "children", "classifier", c] => {
            vec![("GET", E::ChildrenByClassifier(o(uuid), o(c)))]
        }
        ["v1", "project", uuid, "children", "tag", t] => {
            vec![("GET", E::ChildrenByTag(o(uuid), o(t)))]
        }
        ["v1", "project", uuid, "property"] => vec![
            ("GET", E::GetProperties(o(uuid))),
            ("PUT", E::CreateProperty(o(uuid))),
            ("POST", E::UpdateProperty(o(uuid))),
            ("DELETE", E::DeleteProperty(o(uuid))),
        ],
        ["v1", "component"] => vec![("POST", E::UpdateComponent)],
        ["v1", "component", "project", uuid] => vec![
            ("GET", E::GetComponents(o(uuid))),
            ("PUT", E::CreateComponent(o(uuid))),
        ],
        ["v1", "component", uuid] => vec![
            ("GET", E::GetComponent(o(uuid))),
            ("DELETE", E::DeleteComponent(o(uuid))),
        ],
        ["v1", "vulnerability"] => vec![
            ("GET", E::GetVulnerabilities),
            ("PUT", E::CreateVulnerability),
        ],
        ["v1", "vulnerability", "source", src, "vuln", v] => {
            vec![("GET", E::GetVulnerabilityByKey(o(src), o(v)))]
        }
        ["v1", "vulnerability", "source", src, "vuln", v, "projects"] => {
            vec![("GET", E::GetVulnerabilityProjects(o(src), o(v)))]
        }
        ["v1", "vulnerability", uuid] => vec![("GET", E::GetVulnerability(o(uuid)))],
        ["v1", "vulnerability", v, "component", c] => vec![
            ("POST", E::AssignVulnerability(o(v), o(c))),
            ("DELETE", E::UnassignVulnerability(o(v), o(c))),
        ],
        ["v1", "finding"] => vec![("GET", E::GetAllFindings)],
        ["v1", "finding", "project", uuid] => vec![("GET", E::GetFindings(o(uuid)))],
        ["v1", "finding", "project", uuid, "analyze"] => {
            vec![("POST", E::AnalyzeProject(o(uuid)))]
        }
        ["v1", "acl", "mapping"] => vec![("PUT", E::AddMapping)],
        ["v1", "acl", "mapping", "team", t, "project", p] => {
            vec![("DELETE", E::DeleteMapping(o(t), o(p)))]
        }
        ["v1", "acl", "team", uuid] => vec![("GET", E::GetTeamProjects(o(uuid)))],
        ["v1", "analysis"] => vec![("GET", E::GetAnalysis), ("PUT", E::UpdateAnalysis)],
        ["v1", "badge", "violations", "project", uuid] => {
            vec![("GET", E::BadgeByUuid(o(uuid)))]
        }
        ["v1", "badge", "violations", "project", name, version] => {
            vec![("GET", E::BadgeByName(o(name), o(version)))]
        }
        ["v1", "metrics", "project", uuid, "refresh"] => {
            vec![("GET", E::RefreshMetrics(o(uuid)))]
        }
        ["v1", "metrics", "project", uuid, "current"] => {
            vec![("GET", E::CurrentMetrics(o(uuid)))]
        }
        ["v1", "policy"] => vec![
            ("GET", E::GetPolicies),
            ("PUT", E::CreatePolicy),
            ("POST", E::UpdatePolicy),
        ],
        ["v1", "policy", "condition"] => vec![("POST", E::UpdateCondition)],
        ["v1", "policy", "condition", uuid] => vec![("DELETE", E::DeleteCondition(o(uuid)))],
        ["v1", "policy", uuid] => vec![
            ("GET", E::GetPolicy(o(uuid))),
            ("DELETE", E::DeletePolicy(o(uuid))),
        ],
        ["v1", "policy", uuid, "condition"] => vec![("PUT", E::AddCondition(o(uuid)))],
        ["v1", "violation", "project", uuid] => {
            vec![("GET", E::ProjectViolations(o(uuid)))]
        }
        ["v1", "violation", "analysis"] => vec![("PUT", E::AnalyzeViolation)],
        ["v1", "bom"] => vec![("PUT", E::PutBom), ("POST", E::PostBom)],
        ["v1", "bom", "token", uuid] => vec![("GET", E::BomTokenStatus(o(uuid)))],
        ["v1", "bom", "cyclonedx", "project", uuid] => vec![("GET", E::ExportBom(o(uuid)))],
        ["v1", "vex", "cyclonedx", "project", uuid] => vec![("GET", E::ExportVex(o(uuid)))],
        ["v1", "vex"] => vec![("PUT", E::PutVex), ("POST", E::PostVex)],
        ["v1", "event", "token", uuid] => vec![("GET", E::TokenStatus(o(uuid)))],
        _ => return Err(NoRoute::NotFound),
    };
    http::route::pick(method, table, ListOptions::Yes).map_err(NoRoute::Method)
}

/// One request per endpoint, as (method, path after `/api/`), with `{team}`, `{key}`,
/// `{perm}`, `{project}`, `{component}`, `{vuln}`, `{source}`, `{policy}`, `{condition}`,
/// `{token}`, `{name}`, `{version}`, `{tag}` and `{classifier}` marking path parameters: for tests that walk every route (a unit
/// test keeps it complete).
pub const SAMPLE_ROUTES: &[(&str, &str)] = &[
    ("GET", "version"),
    ("POST", "v1/user/login"),
    ("POST", "v1/user/forceChangePassword"),
    ("GET", "v1/team"),
    ("PUT", "v1/team"),
    ("POST", "v1/team"),
    ("DELETE", "v1/team"),
    ("GET", "v1/team/{team}"),
    ("GET", "v1/team/self"),
    ("PUT", "v1/team/{team}/key"),
    ("DELETE", "v1/team/key/{key}"),
    ("GET", "v1/permission"),
    ("POST", "v1/permission/{perm}/team/{team}"),
    ("DELETE", "v1/permission/{perm}/team/{team}"),
    ("GET", "v1/project"),
    ("PUT", "v1/project"),
    ("POST", "v1/project"),
    ("GET", "v1/project/lookup"),
    ("GET", "v1/project/{project}"),
    ("DELETE", "v1/project/{project}"),
    ("PATCH", "v1/project/{project}"),
    ("PUT", "v1/project/clone"),
    ("GET", "v1/project/{project}/children"),
    (
        "GET",
        "v1/project/{project}/children/classifier/{classifier}",
    ),
    ("GET", "v1/project/{project}/children/tag/{tag}"),
    ("GET", "v1/project/latest/{name}"),
    ("GET", "v1/project/tag/{tag}"),
    ("GET", "v1/project/classifier/{classifier}"),
    ("GET", "v1/project/{project}/property"),
    ("PUT", "v1/project/{project}/property"),
    ("POST", "v1/project/{project}/property"),
    ("DELETE", "v1/project/{project}/property"),
    ("GET", "v1/component/project/{project}"),
    ("PUT", "v1/component/project/{project}"),
    ("POST", "v1/component"),
    ("GET", "v1/component/{component}"),
    ("DELETE", "v1/component/{component}"),
    ("PUT", "v1/vulnerability"),
    ("GET", "v1/vulnerability/{vuln}"),
    ("POST", "v1/vulnerability/{vuln}/component/{component}"),
    ("DELETE", "v1/vulnerability/{vuln}/component/{component}"),
    ("GET", "v1/finding/project/{project}"),
    ("GET", "v1/finding"),
    ("POST", "v1/finding/project/{project}/analyze"),
    ("GET", "v1/vulnerability"),
    ("GET", "v1/vulnerability/source/{source}/vuln/{vuln}"),
    (
        "GET",
        "v1/vulnerability/source/{source}/vuln/{vuln}/projects",
    ),
    ("PUT", "v1/acl/mapping"),
    ("DELETE", "v1/acl/mapping/team/{team}/project/{project}"),
    ("GET", "v1/acl/team/{team}"),
    ("GET", "v1/analysis"),
    ("PUT", "v1/analysis"),
    ("GET", "v1/badge/violations/project/{project}"),
    ("GET", "v1/badge/violations/project/{name}/{version}"),
    ("GET", "v1/metrics/project/{project}/refresh"),
    ("GET", "v1/metrics/project/{project}/current"),
    ("GET", "v1/policy"),
    ("PUT", "v1/policy"),
    ("POST", "v1/policy"),
    ("GET", "v1/policy/{policy}"),
    ("DELETE", "v1/policy/{policy}"),
    ("PUT", "v1/policy/{policy}/condition"),
    ("POST", "v1/policy/condition"),
    ("DELETE", "v1/policy/condition/{condition}"),
    ("GET", "v1/violation/project/{project}"),
    ("PUT", "v1/violation/analysis"),
    ("PUT", "v1/bom"),
    ("POST", "v1/bom"),
    ("GET", "v1/event/token/{token}"),
    ("GET", "v1/bom/token/{token}"),
    ("GET", "v1/bom/cyclonedx/project/{project}"),
    ("GET", "v1/vex/cyclonedx/project/{project}"),
    ("PUT", "v1/vex"),
    ("POST", "v1/vex"),
];

/// Splits `/api/a/b%20c` into decoded segments after `/api/`; `None` outside the API.
fn api_segments(path: &str) -> Option<Vec<String>> {
    http::route::segments(path.strip_prefix("/api/")?)
}

/// # `GET /api/version`
///
/// Unauthenticated: upstream's About (application, version, build and framework facts) with
/// this installation's stable `systemUuid`.
fn version(state: &AppState) -> Out {
    Ok(respond::json(
        StatusCode::OK,
        &wire::about(state.dtrack.system_uuid()),
    ))
}

/// The Dependency-Track API as served on its listener.
pub struct DtrackApi {
    state: Arc<AppState>,
}

/// What admission decided for a Dependency-Track request: its endpoint and principal.
pub struct DtTicket {
    endpoint: Endpoint,
    who: Option<Arc<Principal>>,
    rate: Option<RateState>,
}

/// Dependency-Track's 429 (plain text, `Retry-After`), with the rate-limit headers.
fn rate_limited(l: Limited) -> Response {
    let mut res = respond::respond(
        &Error::new(
            ErrorKind::RateLimited {
                retry_after: l.retry_after,
            },
            "Too many requests; try again later",
        ),
        "text/plain",
    );
    rate_limit::add_headers(&mut res, &l.state);
    res
}

/// Largest body of an unauthenticated request (the login forms).
const UNAUTHENTICATED_BODY: usize = 16 * 1024;

impl DtrackApi {
    pub fn new(state: Arc<AppState>) -> DtrackApi {
        DtrackApi { state }
    }

    /// Counts the request against its rate limit: the principal's, or for the login forms the
    /// client address's. Badges are not counted: README renderers fetch them through a few
    /// shared proxies, and they are answered from a cache.
    fn rate_check(
        &self,
        endpoint: &Endpoint,
        who: Option<&Principal>,
        peer: IpAddr,
    ) -> Result<Option<RateState>, Limited> {
        if matches!(endpoint.access(), Access::Badge) {
            return Ok(None);
        }
        let caller = who.map(|p| {
            let key = match &p.kind {
                PrincipalKind::ApiKey { id } => format!("key:{}", id.0),
                PrincipalKind::User { username, .. } => format!("user:{username}"),
            };
            (RateKey::Principal(key), false)
        });
        self.state.rates.admit(caller, peer)
    }

    /// Route, credentials, permission, media type and rate limit, from the head alone.
    async fn admit_head(
        &self,
        head: &Parts,
        peer: IpAddr,
    ) -> Result<Admission<DtTicket>, Response> {
        let Some(segs) = api_segments(head.uri.path()) else {
            return Err(http::empty(StatusCode::NOT_FOUND));
        };
        let endpoint = match route(&head.method, &segs) {
            Ok(e) => e,
            Err(NoRoute::NotFound) => return Err(http::empty(StatusCode::NOT_FOUND)),
            Err(NoRoute::Method(allowed)) => {
                if head.method == Method::OPTIONS {
                    return Err(http::route::allow_response(StatusCode::OK, &allowed, ","));
                }
                return Err(respond::respond(
                    &Error::new(ErrorKind::MethodNotAllowed(allowed), ""),
                    "text/plain",
                ));
            }
        };
        let produces = endpoint.produces();
        let who = match endpoint.access() {
            Access::Public | Access::Badge => None,
            Access::Authenticated | Access::Needs(_) => {
                match auth::authenticate(&self.state, head, false).await {
                    Ok(p) => Some(p),
                    Err(e) => return Err(respond::respond(&e, produces)),
                }
            }
        };
        if let (Access::Needs(p), Some(who)) = (endpoint.access(), &who)
            && !who.permissions.contains(p)
        {
            return Err(http::empty(StatusCode::FORBIDDEN));
        }
        if let Some(wanted) = endpoint.consumes() {
            // The declared media type is required: a body without one is not read.
            let given = head
                .headers
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .map(|v| v.split(';').next().unwrap_or("").trim());
            if !given.is_some_and(|g| g.eq_ignore_ascii_case(wanted)) {
                return Err(http::empty(StatusCode::UNSUPPORTED_MEDIA_TYPE));
            }
        }
        let rate = self
            .rate_check(&endpoint, who.as_deref(), peer)
            .map_err(rate_limited)?;
        let limits = &self.state.config.limits;
        let upload = endpoint.is_upload();
        let body_limit = match endpoint.access() {
            _ if upload => limits.max_upload_bytes,
            Access::Public | Access::Badge => limits.max_body_bytes.min(UNAUTHENTICATED_BODY),
            _ => limits.max_body_bytes,
        };
        Ok(Admission {
            ticket: DtTicket {
                endpoint,
                who,
                rate,
            },
            body_limit,
            upload,
        })
    }

    async fn dispatch(&self, ticket: DtTicket, req: Request) -> Response {
        let DtTicket {
            endpoint,
            who,
            rate,
        } = ticket;
        let produces = endpoint.produces();
        let query = Query::parse(req.query());
        let mut res = match call(&self.state, endpoint, who.as_deref(), &query, &req).await {
            Ok(res) => res,
            Err(f) => fail_response(&f, produces),
        };
        if let Some(s) = &rate {
            rate_limit::add_headers(&mut res, s);
        }
        res
    }
}

impl Api for DtrackApi {
    type Ticket = DtTicket;

    async fn admit(
        &self,
        head: &Parts,
        peer: std::net::SocketAddr,
    ) -> Result<Admission<DtTicket>, Response> {
        self.admit_head(head, peer.ip()).await.map_err(|mut res| {
            decorate(&mut res);
            res
        })
    }

    fn handle(self: Arc<Self>, ticket: DtTicket, req: Request) -> BoxFuture<Response> {
        Box::pin(async move {
            let mut res = self.dispatch(ticket, req).await;
            decorate(&mut res);
            res
        })
    }

    fn payload_too_large(&self, _limit: usize) -> Response {
        let mut res = http::empty(StatusCode::PAYLOAD_TOO_LARGE);
        decorate(&mut res);
        res
    }

    fn body_failed(&self, timed_out: bool) -> Response {
        let err = if timed_out {
            Error::new(
                ErrorKind::Timeout,
                "The request body did not arrive in time",
            )
        } else {
            Error::bad_request("The request body could not be read")
        };
        let mut res = respond::respond(&err, "text/plain");
        decorate(&mut res);
        res
    }

    fn overloaded(&self) -> Response {
        let mut res = respond::respond(
            &Error::new(
                ErrorKind::Unavailable,
                "The server is busy (too many connections or uploads at once); try again shortly",
            ),
            "text/plain",
        );
        decorate(&mut res);
        res
    }

    fn internal_error(&self) -> Response {
        let mut res = respond::internal_error_response();
        decorate(&mut res);
        res
    }

    fn metrics(&self) -> Option<&crate::metrics::RequestMetrics> {
        Some(&self.state.dtrack_requests)
    }

    fn route_index(&self, ticket: &DtTicket) -> Option<usize> {
        Some(ticket.endpoint.route_index())
    }

    /// API keys travel in `DELETE /api/v1/team/key/{key}`: never log them.
    fn loggable_path<'a>(&self, path: &'a str) -> Cow<'a, str> {
        match path.find("/v1/team/key/") {
            Some(i) => Cow::Owned(format!("{}/v1/team/key/***", &path[..i])),
            None => Cow::Borrowed(path),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segs(p: &str) -> Vec<String> {
        api_segments(p).unwrap()
    }

    /// Every endpoint has a place in `ROUTE_NAMES` (`route_index` matches exhaustively, so a new
    /// variant does not compile until it has one), and the test below fails until it has a
    /// sample route.
    const ENDPOINTS: usize = ROUTE_NAMES.len();

    #[test]
    fn every_endpoint_has_exactly_one_sample_route() {
        let mut seen = [0usize; ENDPOINTS];
        for (method, path) in SAMPLE_ROUTES {
            let m: Method = method.parse().unwrap();
            let mut p = format!("/api/{path}");
            for ph in [
                "team",
                "key",
                "perm",
                "project",
                "component",
                "vuln",
                "source",
                "policy",
                "condition",
                "token",
                "name",
                "version",
                "tag",
                "classifier",
            ] {
                p = p.replace(&format!("{{{ph}}}"), &format!("x{ph}"));
            }
            let e = route(&m, &segs(&p)).unwrap_or_else(|e| panic!("{method} {path}: {e:?}"));
            let i = e.route_index();
            assert!(i < ENDPOINTS, "{e:?}: raise ENDPOINTS");
            seen[i] += 1;
        }
        let missing: Vec<usize> = (0..ENDPOINTS).filter(|&i| seen[i] != 1).collect();
        assert!(
            missing.is_empty(),
            "endpoints without one sample: {missing:?}"
        );
        assert_eq!(SAMPLE_ROUTES.len(), ENDPOINTS);
    }

    #[test]
    fn routes_resolve() {
        assert_eq!(
            route(&Method::GET, &segs("/api/version")),
            Ok(Endpoint::Version)
        );
        assert_eq!(
            route(
                &Method::GET,
                &segs("/api/v1/badge/violations/project/a%2Fb/1.0")
            ),
            Ok(Endpoint::BadgeByName("a/b".into(), "1.0".into()))
        );
        assert_eq!(
            route(&Method::DELETE, &segs("/api/v1/team/key/abc")),
            Ok(Endpoint::DeleteKey("abc".into()))
        );
        assert_eq!(
            route(&Method::POST, &segs("/api/v1/analysis")),
            Err(NoRoute::Method(vec!["GET", "HEAD", "OPTIONS", "PUT"]))
        );
        assert_eq!(
            route(&Method::GET, &segs("/api/v2/x")),
            Err(NoRoute::NotFound)
        );
        assert!(api_segments("/v1/team").is_none());
    }
}
