-- Upgrade 22 -> 23: portfolio and component metrics history, project metrics split by
-- violation type and audit state, and license groups.

ALTER TABLE dt_project_metrics ADD COLUMN policy_violations_audited INTEGER NOT NULL DEFAULT 0;
ALTER TABLE dt_project_metrics ADD COLUMN policy_violations_security_total INTEGER NOT NULL DEFAULT 0;
ALTER TABLE dt_project_metrics ADD COLUMN policy_violations_security_audited INTEGER NOT NULL DEFAULT 0;
ALTER TABLE dt_project_metrics ADD COLUMN policy_violations_license_total INTEGER NOT NULL DEFAULT 0;
ALTER TABLE dt_project_metrics ADD COLUMN policy_violations_license_audited INTEGER NOT NULL DEFAULT 0;
ALTER TABLE dt_project_metrics ADD COLUMN policy_violations_operational_total INTEGER NOT NULL DEFAULT 0;
ALTER TABLE dt_project_metrics ADD COLUMN policy_violations_operational_audited INTEGER NOT NULL DEFAULT 0;

-- Metrics history as upstream keeps it: a new row when a counter changes, else the latest
-- row's `last_occurrence_ms` moves on. The portfolio's rows sum the latest metrics of active
-- non-collection projects; a component's (`components` 1, `vulnerable_components` 0 or 1)
-- are recorded with its project's.
CREATE TABLE dt_portfolio_metrics (
    id                                    INTEGER PRIMARY KEY,
    projects                              INTEGER NOT NULL,
    vulnerable_projects                   INTEGER NOT NULL,
    first_occurrence_ms                   INTEGER NOT NULL,
    last_occurrence_ms                    INTEGER NOT NULL,
    components                            INTEGER NOT NULL,
    vulnerable_components                 INTEGER NOT NULL,
    vulnerabilities                       INTEGER NOT NULL,
    critical                              INTEGER NOT NULL,
    high                                  INTEGER NOT NULL,
    medium                                INTEGER NOT NULL,
    low                                   INTEGER NOT NULL,
    unassigned                            INTEGER NOT NULL,
    suppressed                            INTEGER NOT NULL,
    findings_total                        INTEGER NOT NULL,
    findings_audited                      INTEGER NOT NULL,
    policy_violations_fail                INTEGER NOT NULL,
    policy_violations_warn                INTEGER NOT NULL,
    policy_violations_info                INTEGER NOT NULL,
    policy_violations_audited             INTEGER NOT NULL,
    policy_violations_security_total      INTEGER NOT NULL,
    policy_violations_security_audited    INTEGER NOT NULL,
    policy_violations_license_total       INTEGER NOT NULL,
    policy_violations_license_audited     INTEGER NOT NULL,
    policy_violations_operational_total   INTEGER NOT NULL,
    policy_violations_operational_audited INTEGER NOT NULL
);
CREATE INDEX dt_portfolio_metrics_last ON dt_portfolio_metrics (last_occurrence_ms);
CREATE TABLE dt_component_metrics (
    id                                    INTEGER PRIMARY KEY,
    component_id                          INTEGER NOT NULL REFERENCES dt_components (id) ON DELETE CASCADE,
    first_occurrence_ms                   INTEGER NOT NULL,
    last_occurrence_ms                    INTEGER NOT NULL,
    components                            INTEGER NOT NULL,
    vulnerable_components                 INTEGER NOT NULL,
    vulnerabilities                       INTEGER NOT NULL,
    critical                              INTEGER NOT NULL,
    high                                  INTEGER NOT NULL,
    medium                                INTEGER NOT NULL,
    low                                   INTEGER NOT NULL,
    unassigned                            INTEGER NOT NULL,
    suppressed                            INTEGER NOT NULL,
    findings_total                        INTEGER NOT NULL,
    findings_audited                      INTEGER NOT NULL,
    policy_violations_fail                INTEGER NOT NULL,
    policy_violations_warn                INTEGER NOT NULL,
    policy_violations_info                INTEGER NOT NULL,
    policy_violations_audited             INTEGER NOT NULL,
    policy_violations_security_total      INTEGER NOT NULL,
    policy_violations_security_audited    INTEGER NOT NULL,
    policy_violations_license_total       INTEGER NOT NULL,
    policy_violations_license_audited     INTEGER NOT NULL,
    policy_violations_operational_total   INTEGER NOT NULL,
    policy_violations_operational_audited INTEGER NOT NULL
);
CREATE INDEX dt_component_metrics_component ON dt_component_metrics (component_id, last_occurrence_ms);

-- License groups (policies' LICENSE_GROUP conditions name them); members are SPDX license
-- ids of the built-in catalogue.
CREATE TABLE dt_license_groups (
    id          INTEGER PRIMARY KEY,
    uuid        TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL UNIQUE,
    risk_weight INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE dt_license_group_licenses (
    group_id   INTEGER NOT NULL REFERENCES dt_license_groups (id) ON DELETE CASCADE,
    license_id TEXT NOT NULL,
    PRIMARY KEY (group_id, license_id)
) WITHOUT ROWID;
