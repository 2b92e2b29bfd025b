-- Upgrade 16 -> 17: Dependency-Track project details: the descriptive fields DT 4.13 added to
-- projects (authors, manufacturer, supplier, external references: JSON text as the storage layer
-- writes it), the collection tag of AGGREGATE_DIRECT_CHILDREN_WITH_TAG projects, and project
-- properties.
ALTER TABLE dt_projects ADD COLUMN authors TEXT;
ALTER TABLE dt_projects ADD COLUMN manufacturer TEXT;
ALTER TABLE dt_projects ADD COLUMN supplier TEXT;
ALTER TABLE dt_projects ADD COLUMN external_references TEXT;
ALTER TABLE dt_projects ADD COLUMN collection_tag TEXT;
-- One value per (project, group, name); ENCRYPTEDSTRING values are sealed with the
-- installation's key before they are written.
CREATE TABLE dt_project_properties (
    id             INTEGER PRIMARY KEY,
    project_id     INTEGER NOT NULL REFERENCES dt_projects (id) ON DELETE CASCADE,
    group_name     TEXT NOT NULL,
    property_name  TEXT NOT NULL,
    property_value TEXT,
    property_type  TEXT NOT NULL,
    description    TEXT,
    UNIQUE (project_id, group_name, property_name)
);
