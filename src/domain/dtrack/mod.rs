//! Dependency-Track domain: identity, portfolio, findings and analyses, metrics, OSV and NVD
//! data, CPE names, and the internal analyzer.
//!
//! Owns the rules of the Dependency-Track API independent of its wire format; the HTTP side
//! lives in [`crate::dtrack`], SQL in `db::dtrack_*`, the plain records in
//! [`crate::model::dtrack`]. Must not touch HTTP types.

pub mod bom;
pub mod cpe;
pub mod cwe;
pub mod cyclonedx;
pub mod cyclonedx_xml;
pub mod epss;
pub mod epss_fetch;
pub mod evaluation;
pub mod exchange;
pub mod findings;
pub mod http_get;
pub mod identity;
pub mod jwt;
pub mod keys;
pub mod licenses;
pub mod metrics;
pub mod nvd;
pub mod osv;
pub mod policies;
pub mod policy_eval;
pub mod portfolio;
pub mod projects;
pub mod sealed;
pub mod search;
pub mod state;
pub mod tags;
pub mod versions;
pub mod vex;
pub mod watch;
pub mod xml_bounds;

// Kept at its old path so the API tests and the bench need no change; the type lives in `model`.
pub use crate::model::dtrack::permissions;
