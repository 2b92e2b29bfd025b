-- Upgrade 24 -> 25: NVD CVE records imported offline (`outpost dtrack import-nvd`) and the CPE
-- each component is matched as.

-- One row per imported NVD CVE record: its `lastModified` stamp (a copy replaces the stored
-- record only when newer).
CREATE TABLE dt_nvd_records (
    vulnerability_id INTEGER PRIMARY KEY REFERENCES dt_vulnerabilities (id) ON DELETE CASCADE,
    cve_id           TEXT NOT NULL UNIQUE,
    last_modified_ms INTEGER NOT NULL
);

-- The vulnerable CPEs of a record's configurations: part, vendor and product canonical and
-- lowercased (the candidate lookup), the other attributes, and the four range bounds.
CREATE TABLE dt_nvd_cpes (
    id                      INTEGER PRIMARY KEY,
    vulnerability_id        INTEGER NOT NULL REFERENCES dt_vulnerabilities (id) ON DELETE CASCADE,
    part                    TEXT NOT NULL,
    vendor                  TEXT NOT NULL,
    product                 TEXT NOT NULL,
    version                 TEXT NOT NULL,
    upd                     TEXT NOT NULL,
    edition                 TEXT NOT NULL,
    language                TEXT NOT NULL,
    sw_edition              TEXT NOT NULL,
    target_sw               TEXT NOT NULL,
    target_hw               TEXT NOT NULL,
    other                   TEXT NOT NULL,
    version_start_including TEXT,
    version_start_excluding TEXT,
    version_end_including   TEXT,
    version_end_excluding   TEXT
);
CREATE INDEX dt_nvd_cpes_key ON dt_nvd_cpes (part, vendor, product);
CREATE INDEX dt_nvd_cpes_vuln ON dt_nvd_cpes (vulnerability_id);

-- The CPE each component is matched as (part, vendor, product), so new NVD data re-checks
-- only the components it may match.
CREATE TABLE dt_component_cpes (
    component_id INTEGER PRIMARY KEY REFERENCES dt_components (id) ON DELETE CASCADE,
    part         TEXT NOT NULL,
    vendor       TEXT NOT NULL,
    product      TEXT NOT NULL
);
CREATE INDEX dt_component_cpes_key ON dt_component_cpes (part, vendor, product);
