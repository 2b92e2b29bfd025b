-- Upgrade 17 -> 18: OSV vulnerability data and the internal analyzer's state.

-- What OSV records add to a vulnerability: its CVSS v3 base score, last modification, upstream's
-- references (Markdown list) and CWE numbers (comma-separated).
ALTER TABLE dt_vulnerabilities ADD COLUMN cvss_v3_score REAL;
ALTER TABLE dt_vulnerabilities ADD COLUMN updated_ms INTEGER;
ALTER TABLE dt_vulnerabilities ADD COLUMN refs TEXT;
ALTER TABLE dt_vulnerabilities ADD COLUMN cwes TEXT;
CREATE INDEX dt_vulnerabilities_vuln_id ON dt_vulnerabilities (vuln_id);

-- Which analyzer made a finding: NONE (attributed by hand) or INTERNAL_ANALYZER (OSV data).
ALTER TABLE dt_component_vulnerabilities ADD COLUMN analyzer TEXT NOT NULL DEFAULT 'NONE';

CREATE TABLE dt_vulnerability_aliases (
    vulnerability_id INTEGER NOT NULL REFERENCES dt_vulnerabilities (id) ON DELETE CASCADE,
    alias            TEXT NOT NULL,
    PRIMARY KEY (vulnerability_id, alias)
) WITHOUT ROWID;

-- One row per imported OSV record: its `modified` stamp and whether it was withdrawn.
CREATE TABLE dt_osv_records (
    vulnerability_id INTEGER PRIMARY KEY REFERENCES dt_vulnerabilities (id) ON DELETE CASCADE,
    osv_id           TEXT NOT NULL UNIQUE,
    modified         TEXT NOT NULL,
    withdrawn        INTEGER NOT NULL DEFAULT 0
);

-- The packages a record affects: purl type, normalized package key, and the ranges and
-- versions (JSON) the matcher evaluates.
CREATE TABLE dt_osv_affected (
    id               INTEGER PRIMARY KEY,
    vulnerability_id INTEGER NOT NULL REFERENCES dt_vulnerabilities (id) ON DELETE CASCADE,
    ecosystem        TEXT NOT NULL,
    package          TEXT NOT NULL,
    spec             TEXT NOT NULL
);
CREATE INDEX dt_osv_affected_package ON dt_osv_affected (ecosystem, package);
CREATE INDEX dt_osv_affected_vuln ON dt_osv_affected (vulnerability_id);

-- The package each component is matched as (from its purl), so new data re-checks only the
-- components of the packages it names.
CREATE TABLE dt_component_packages (
    component_id INTEGER PRIMARY KEY REFERENCES dt_components (id) ON DELETE CASCADE,
    ecosystem    TEXT NOT NULL,
    package      TEXT NOT NULL
);
CREATE INDEX dt_component_packages_package ON dt_component_packages (ecosystem, package);

-- Matches the analyzer could not decide because a version did not parse: reported, never
-- silently treated as not affected.
CREATE TABLE dt_unknown_matches (
    component_id     INTEGER NOT NULL REFERENCES dt_components (id) ON DELETE CASCADE,
    vulnerability_id INTEGER NOT NULL REFERENCES dt_vulnerabilities (id) ON DELETE CASCADE,
    reason           TEXT NOT NULL,
    PRIMARY KEY (component_id, vulnerability_id)
) WITHOUT ROWID;
CREATE INDEX dt_unknown_matches_vuln ON dt_unknown_matches (vulnerability_id);

-- `POST /finding/project/{uuid}/analyze` requests, followed by `GET /event/token/{token}`.
CREATE TABLE dt_analysis_requests (
    token        TEXT PRIMARY KEY,
    project_id   INTEGER NOT NULL REFERENCES dt_projects (id) ON DELETE CASCADE,
    received_ms  INTEGER NOT NULL,
    processed_ms INTEGER
) WITHOUT ROWID;
CREATE INDEX dt_analysis_requests_pending ON dt_analysis_requests (received_ms)
    WHERE processed_ms IS NULL;
