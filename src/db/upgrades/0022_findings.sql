-- Upgrade 21 -> 22: EPSS scores for findings (CVSS v2 and v4 are in `dt_vulnerability_cvss`).

-- EPSS scores by CVE id, from `outpost dtrack import-epss`: `score_date` is the date of the file
-- a row last came from, so rows a newer file no longer lists can be dropped.
CREATE TABLE dt_epss (
    cve_id     TEXT PRIMARY KEY,
    score      REAL NOT NULL,
    percentile REAL NOT NULL,
    score_date TEXT NOT NULL
) WITHOUT ROWID;

-- The EPSS file last imported whole: its model version and score date (one row).
CREATE TABLE dt_epss_import (
    id            INTEGER PRIMARY KEY CHECK (id = 1),
    model_version TEXT NOT NULL,
    score_date    TEXT NOT NULL,
    imported_ms   INTEGER NOT NULL
);
