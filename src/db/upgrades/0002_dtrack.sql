-- Upgrade 1 -> 2: Dependency-Track tables. Times are epoch milliseconds (`_ms`), as upstream's
-- JSON.

-- Teams hold permissions and API keys.
CREATE TABLE dt_teams (
    id   INTEGER PRIMARY KEY,
    uuid TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL
);
CREATE TABLE dt_team_permissions (
    team_id    INTEGER NOT NULL REFERENCES dt_teams (id) ON DELETE CASCADE,
    permission TEXT NOT NULL,
    PRIMARY KEY (team_id, permission)
) WITHOUT ROWID;

-- Managed (local) users; `password_hash` is an argon2 PHC string.
CREATE TABLE dt_users (
    id                    INTEGER PRIMARY KEY,
    username              TEXT NOT NULL UNIQUE,
    password_hash         TEXT NOT NULL,
    fullname              TEXT,
    email                 TEXT,
    force_password_change INTEGER NOT NULL DEFAULT 0,
    non_expiry_password   INTEGER NOT NULL DEFAULT 0,
    suspended             INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE dt_user_permissions (
    user_id    INTEGER NOT NULL REFERENCES dt_users (id) ON DELETE CASCADE,
    permission TEXT NOT NULL,
    PRIMARY KEY (user_id, permission)
) WITHOUT ROWID;
CREATE TABLE dt_user_teams (
    user_id INTEGER NOT NULL REFERENCES dt_users (id) ON DELETE CASCADE,
    team_id INTEGER NOT NULL REFERENCES dt_teams (id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, team_id)
) WITHOUT ROWID;

-- API keys: only the public id and the lower-case hex SHA3-256 of the secret are stored.
CREATE TABLE dt_api_keys (
    id           INTEGER PRIMARY KEY,
    team_id      INTEGER NOT NULL REFERENCES dt_teams (id) ON DELETE CASCADE,
    public_id    TEXT NOT NULL UNIQUE,
    secret_hash  TEXT NOT NULL,
    legacy       INTEGER NOT NULL DEFAULT 0,
    comment      TEXT,
    created_ms   INTEGER NOT NULL,
    last_used_ms INTEGER
);
CREATE INDEX dt_api_keys_team ON dt_api_keys (team_id);

CREATE TABLE dt_projects (
    id               INTEGER PRIMARY KEY,
    uuid             TEXT NOT NULL UNIQUE,
    name             TEXT NOT NULL,
    version          TEXT,
    grp              TEXT,
    description      TEXT,
    publisher        TEXT,
    classifier       TEXT,
    cpe              TEXT,
    purl             TEXT,
    swid_tag_id      TEXT,
    active           INTEGER NOT NULL DEFAULT 1,
    is_latest        INTEGER NOT NULL DEFAULT 0,
    collection_logic TEXT NOT NULL DEFAULT 'NONE',
    parent_id        INTEGER REFERENCES dt_projects (id) ON DELETE CASCADE,
    last_bom_import_ms     INTEGER,
    last_bom_import_format TEXT
);
CREATE INDEX dt_projects_name ON dt_projects (name, version);
CREATE INDEX dt_projects_parent ON dt_projects (parent_id);
CREATE TABLE dt_project_tags (
    project_id INTEGER NOT NULL REFERENCES dt_projects (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    PRIMARY KEY (project_id, name)
) WITHOUT ROWID;
-- Portfolio access control: which teams may see a project.
CREATE TABLE dt_project_access_teams (
    project_id INTEGER NOT NULL REFERENCES dt_projects (id) ON DELETE CASCADE,
    team_id    INTEGER NOT NULL REFERENCES dt_teams (id) ON DELETE CASCADE,
    PRIMARY KEY (project_id, team_id)
) WITHOUT ROWID;
CREATE INDEX dt_project_access_teams_team ON dt_project_access_teams (team_id);

CREATE TABLE dt_components (
    id          INTEGER PRIMARY KEY,
    uuid        TEXT NOT NULL UNIQUE,
    project_id  INTEGER NOT NULL REFERENCES dt_projects (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    version     TEXT,
    grp         TEXT,
    purl        TEXT,
    cpe         TEXT,
    swid_tag_id TEXT,
    classifier  TEXT,
    description TEXT,
    license     TEXT,
    md5         TEXT,
    sha1        TEXT,
    sha256      TEXT,
    sha512      TEXT,
    is_internal INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX dt_components_project ON dt_components (project_id);

CREATE TABLE dt_vulnerabilities (
    id             INTEGER PRIMARY KEY,
    uuid           TEXT NOT NULL UNIQUE,
    vuln_id        TEXT NOT NULL,
    source         TEXT NOT NULL,
    severity       TEXT,
    title          TEXT,
    description    TEXT,
    recommendation TEXT,
    cvss_v3_vector TEXT,
    created_ms     INTEGER,
    published_ms   INTEGER,
    UNIQUE (source, vuln_id)
);
CREATE TABLE dt_component_vulnerabilities (
    component_id     INTEGER NOT NULL REFERENCES dt_components (id) ON DELETE CASCADE,
    vulnerability_id INTEGER NOT NULL REFERENCES dt_vulnerabilities (id) ON DELETE CASCADE,
    attributed_on_ms INTEGER NOT NULL,
    PRIMARY KEY (component_id, vulnerability_id)
) WITHOUT ROWID;
CREATE INDEX dt_component_vulnerabilities_vuln ON dt_component_vulnerabilities (vulnerability_id);

-- Analysis decisions, one per (component, vulnerability), and their audit trail.
CREATE TABLE dt_analyses (
    id               INTEGER PRIMARY KEY,
    project_id       INTEGER NOT NULL REFERENCES dt_projects (id) ON DELETE CASCADE,
    component_id     INTEGER NOT NULL REFERENCES dt_components (id) ON DELETE CASCADE,
    vulnerability_id INTEGER NOT NULL REFERENCES dt_vulnerabilities (id) ON DELETE CASCADE,
    state            TEXT NOT NULL,
    justification    TEXT,
    response         TEXT,
    details          TEXT,
    suppressed       INTEGER NOT NULL DEFAULT 0,
    UNIQUE (component_id, vulnerability_id)
);
CREATE TABLE dt_analysis_comments (
    id           INTEGER PRIMARY KEY,
    analysis_id  INTEGER NOT NULL REFERENCES dt_analyses (id) ON DELETE CASCADE,
    timestamp_ms INTEGER NOT NULL,
    comment      TEXT NOT NULL,
    commenter    TEXT
);
CREATE INDEX dt_analysis_comments_analysis ON dt_analysis_comments (analysis_id);

-- Metrics snapshots of projects; the badge reads the latest.
CREATE TABLE dt_project_metrics (
    id                     INTEGER PRIMARY KEY,
    project_id             INTEGER NOT NULL REFERENCES dt_projects (id) ON DELETE CASCADE,
    first_occurrence_ms    INTEGER NOT NULL,
    last_occurrence_ms     INTEGER NOT NULL,
    components             INTEGER NOT NULL,
    vulnerable_components  INTEGER NOT NULL,
    vulnerabilities        INTEGER NOT NULL,
    critical               INTEGER NOT NULL,
    high                   INTEGER NOT NULL,
    medium                 INTEGER NOT NULL,
    low                    INTEGER NOT NULL,
    unassigned             INTEGER NOT NULL,
    suppressed             INTEGER NOT NULL,
    findings_total         INTEGER NOT NULL,
    findings_audited       INTEGER NOT NULL,
    policy_violations_fail INTEGER NOT NULL,
    policy_violations_warn INTEGER NOT NULL,
    policy_violations_info INTEGER NOT NULL
);
CREATE INDEX dt_project_metrics_project ON dt_project_metrics (project_id, last_occurrence_ms);

-- Policies (global: they apply to every project), their conditions, the violations they
-- produce, and analysis decisions on violations with their audit trail.
CREATE TABLE dt_policies (
    id                          INTEGER PRIMARY KEY,
    uuid                        TEXT NOT NULL UNIQUE,
    name                        TEXT NOT NULL UNIQUE,
    operator                    TEXT NOT NULL,
    violation_state             TEXT NOT NULL,
    include_children            INTEGER NOT NULL DEFAULT 0,
    only_latest_project_version INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE dt_policy_conditions (
    id        INTEGER PRIMARY KEY,
    uuid      TEXT NOT NULL UNIQUE,
    policy_id INTEGER NOT NULL REFERENCES dt_policies (id) ON DELETE CASCADE,
    subject   TEXT NOT NULL,
    operator  TEXT NOT NULL,
    value     TEXT NOT NULL
);
CREATE INDEX dt_policy_conditions_policy ON dt_policy_conditions (policy_id);
CREATE TABLE dt_policy_violations (
    id           INTEGER PRIMARY KEY,
    uuid         TEXT NOT NULL UNIQUE,
    type         TEXT NOT NULL,
    project_id   INTEGER NOT NULL REFERENCES dt_projects (id) ON DELETE CASCADE,
    component_id INTEGER NOT NULL REFERENCES dt_components (id) ON DELETE CASCADE,
    condition_id INTEGER NOT NULL REFERENCES dt_policy_conditions (id) ON DELETE CASCADE,
    timestamp_ms INTEGER NOT NULL,
    UNIQUE (component_id, condition_id)
);
CREATE INDEX dt_policy_violations_project ON dt_policy_violations (project_id);
CREATE INDEX dt_policy_violations_condition ON dt_policy_violations (condition_id);
CREATE TABLE dt_violation_analyses (
    id           INTEGER PRIMARY KEY,
    violation_id INTEGER NOT NULL UNIQUE REFERENCES dt_policy_violations (id) ON DELETE CASCADE,
    state        TEXT NOT NULL,
    suppressed   INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE dt_violation_analysis_comments (
    id           INTEGER PRIMARY KEY,
    analysis_id  INTEGER NOT NULL REFERENCES dt_violation_analyses (id) ON DELETE CASCADE,
    timestamp_ms INTEGER NOT NULL,
    comment      TEXT NOT NULL,
    commenter    TEXT
);
CREATE INDEX dt_violation_analysis_comments_analysis ON dt_violation_analysis_comments (analysis_id);

-- Accepted BOM uploads. A row is written before the token is returned, so an upload survives a
-- restart; the background worker processes pending rows oldest first and then drops the
-- document (`content` NULL) but keeps the token's state.
CREATE TABLE dt_bom_uploads (
    token        TEXT PRIMARY KEY,
    project_id   INTEGER NOT NULL REFERENCES dt_projects (id) ON DELETE CASCADE,
    content      BLOB,
    received_ms  INTEGER NOT NULL,
    processed_ms INTEGER,
    error        TEXT
) WITHOUT ROWID;
CREATE INDEX dt_bom_uploads_pending ON dt_bom_uploads (received_ms) WHERE processed_ms IS NULL;
