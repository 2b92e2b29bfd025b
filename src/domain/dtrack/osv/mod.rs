//! Vulnerability data from OSV and the internal analyzer that matches components against it:
//! reading records ([`record`]) with their severity as upstream ranks it ([`severity`]), the
//! supported ecosystems ([`ecosystem`]), package URLs ([`purl`]), distribution releases
//! ([`distro`]), OSV's evaluation algorithm over the per-ecosystem comparators ([`eval`],
//! `super::versions`), importing exports ([`import`]), fetching them on a schedule ([`fetch`])
//! and keeping findings in step ([`matching`]).
//!
//! Must not touch HTTP types or SQL.

pub mod distro;
pub mod ecosystem;
pub mod eval;
pub mod fetch;
pub mod import;
pub mod matching;
pub mod purl;
pub mod record;
pub mod severity;
