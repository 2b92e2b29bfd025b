-- Upgrade 22 -> 23: what the internal analyzer matches scanners' output by.
--
-- `dt_component_sources`: the source package a BOM names for an OS package (Trivy's
-- `aquasecurity:trivy:SrcName`/`SrcVersion`/`SrcRelease`/`SrcEpoch` properties), which OSV's
-- Debian, Ubuntu, Alpine and RPM records name. `dt_vulnerability_cvss`: the CVSS v2 and v4
-- vectors and scores of imported records (v3 stays on `dt_vulnerabilities`).
CREATE TABLE dt_component_sources (
    component_id INTEGER PRIMARY KEY REFERENCES dt_components (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    version      TEXT
);
CREATE TABLE dt_vulnerability_cvss (
    vulnerability_id INTEGER PRIMARY KEY REFERENCES dt_vulnerabilities (id) ON DELETE CASCADE,
    v2_vector        TEXT,
    v2_score         REAL,
    v4_vector        TEXT,
    v4_score         REAL
);
-- Go modules and npm packages are now looked up case-insensitively, crates with `_` as `-`.
UPDATE dt_osv_affected SET package = lower(package) WHERE ecosystem IN ('golang', 'npm');
UPDATE dt_osv_affected SET package = replace(lower(package), '_', '-') WHERE ecosystem = 'cargo';
-- Components matched under the old keys, or under no supported ecosystem, are matched again
-- by the next import; every record is read again by it (new ecosystems, severity order).
DELETE FROM dt_component_packages WHERE ecosystem IN ('', 'golang', 'npm', 'cargo');
UPDATE dt_osv_records SET modified = '';
