//! The 14 Dependency-Track permissions and sets of them.
//!
//! Owns the names, descriptions and order of upstream's `Permissions` enum. Pure; no storage,
//! no HTTP.

/// One permission; the discriminant is its position in upstream's enum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Permission {
    BomUpload,
    ViewPortfolio,
    PortfolioManagement,
    ViewVulnerability,
    VulnerabilityAnalysis,
    ViewPolicyViolation,
    VulnerabilityManagement,
    PolicyViolationAnalysis,
    AccessManagement,
    SystemConfiguration,
    ProjectCreationUpload,
    PolicyManagement,
    TagManagement,
    ViewBadges,
}

impl Permission {
    pub const ALL: [Permission; 14] = [
        Permission::BomUpload,
        Permission::ViewPortfolio,
        Permission::PortfolioManagement,
        Permission::ViewVulnerability,
        Permission::VulnerabilityAnalysis,
        Permission::ViewPolicyViolation,
        Permission::VulnerabilityManagement,
        Permission::PolicyViolationAnalysis,
        Permission::AccessManagement,
        Permission::SystemConfiguration,
        Permission::ProjectCreationUpload,
        Permission::PolicyManagement,
        Permission::TagManagement,
        Permission::ViewBadges,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Permission::BomUpload => "BOM_UPLOAD",
            Permission::ViewPortfolio => "VIEW_PORTFOLIO",
            Permission::PortfolioManagement => "PORTFOLIO_MANAGEMENT",
            Permission::ViewVulnerability => "VIEW_VULNERABILITY",
            Permission::VulnerabilityAnalysis => "VULNERABILITY_ANALYSIS",
            Permission::ViewPolicyViolation => "VIEW_POLICY_VIOLATION",
            Permission::VulnerabilityManagement => "VULNERABILITY_MANAGEMENT",
            Permission::PolicyViolationAnalysis => "POLICY_VIOLATION_ANALYSIS",
            Permission::AccessManagement => "ACCESS_MANAGEMENT",
            Permission::SystemConfiguration => "SYSTEM_CONFIGURATION",
            Permission::ProjectCreationUpload => "PROJECT_CREATION_UPLOAD",
            Permission::PolicyManagement => "POLICY_MANAGEMENT",
            Permission::TagManagement => "TAG_MANAGEMENT",
            Permission::ViewBadges => "VIEW_BADGES",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            Permission::BomUpload => {
                "Allows the ability to upload CycloneDX Software Bill of Materials (SBOM)"
            }
            Permission::ViewPortfolio => {
                "Provides the ability to view the portfolio of projects, components, and licenses"
            }
            Permission::PortfolioManagement => {
                "Allows the creation, modification, and deletion of data in the portfolio"
            }
            Permission::ViewVulnerability => {
                "Provides the ability to view the vulnerabilities projects are affected by"
            }
            Permission::VulnerabilityAnalysis => {
                "Provides the ability to make analysis decisions on vulnerabilities"
            }
            Permission::ViewPolicyViolation => "Provides the ability to view policy violations",
            Permission::VulnerabilityManagement => {
                "Allows management of internally-defined vulnerabilities"
            }
            Permission::PolicyViolationAnalysis => {
                "Provides the ability to make analysis decisions on policy violations"
            }
            Permission::AccessManagement => "Allows the management of users, teams, and API keys",
            Permission::SystemConfiguration => {
                "Allows the configuration of the system including notifications, repositories, and email settings"
            }
            Permission::ProjectCreationUpload => {
                "Provides the ability to optionally create project (if non-existent) on BOM or scan upload"
            }
            Permission::PolicyManagement => {
                "Allows the creation, modification, and deletion of policy"
            }
            Permission::TagManagement => "Allows the modification and deletion of tags",
            Permission::ViewBadges => "Provides the ability to view badges",
        }
    }

    pub fn from_name(name: &str) -> Option<Permission> {
        Permission::ALL.into_iter().find(|p| p.name() == name)
    }

    fn bit(self) -> u16 {
        1 << (self as u16)
    }
}

/// A set of permissions (a bit per permission).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PermSet(u16);

impl PermSet {
    pub fn all() -> PermSet {
        PermSet::from_iter(Permission::ALL)
    }

    pub fn contains(self, p: Permission) -> bool {
        self.0 & p.bit() != 0
    }

    pub fn insert(&mut self, p: Permission) {
        self.0 |= p.bit();
    }

    /// The members in upstream's enum order.
    pub fn iter(self) -> impl Iterator<Item = Permission> {
        Permission::ALL
            .into_iter()
            .filter(move |p| self.contains(*p))
    }
}

impl FromIterator<Permission> for PermSet {
    fn from_iter<I: IntoIterator<Item = Permission>>(iter: I) -> PermSet {
        let mut s = PermSet::default();
        for p in iter {
            s.insert(p);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_sets_keep_enum_order() {
        for p in Permission::ALL {
            assert_eq!(Permission::from_name(p.name()), Some(p));
        }
        assert_eq!(Permission::from_name("view_badges"), None);
        let s: PermSet = [Permission::ViewBadges, Permission::BomUpload]
            .into_iter()
            .collect();
        assert_eq!(
            s.iter().collect::<Vec<_>>(),
            vec![Permission::BomUpload, Permission::ViewBadges]
        );
        assert_eq!(PermSet::all().iter().count(), 14);
    }
}
