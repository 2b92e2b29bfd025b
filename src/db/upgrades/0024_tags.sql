-- Upgrade 23 -> 24: tags as upstream keeps them (a name of their own, lower-cased and trimmed,
-- that outlives the projects carrying it), and policies scoped to projects and to tags.

CREATE TABLE dt_tags (
    name TEXT PRIMARY KEY
) WITHOUT ROWID;

-- Upstream lower-cases and trims every tag it creates: existing project tags and collection
-- tags follow (a tag that becomes a duplicate of another of the same project is dropped).
UPDATE OR IGNORE dt_project_tags SET name = lower(trim(name));
DELETE FROM dt_project_tags WHERE name <> lower(trim(name));
UPDATE dt_projects SET collection_tag = lower(trim(collection_tag))
    WHERE collection_tag IS NOT NULL;
UPDATE dt_projects SET collection_tag = NULL WHERE collection_tag = '';
INSERT OR IGNORE INTO dt_tags (name) SELECT DISTINCT name FROM dt_project_tags;
INSERT OR IGNORE INTO dt_tags (name)
    SELECT DISTINCT collection_tag FROM dt_projects WHERE collection_tag IS NOT NULL;

-- A policy with neither projects nor tags is global; otherwise it applies to its projects
-- (and their descendants when `include_children`) and to projects carrying one of its tags.
CREATE TABLE dt_policy_projects (
    policy_id  INTEGER NOT NULL REFERENCES dt_policies (id) ON DELETE CASCADE,
    project_id INTEGER NOT NULL REFERENCES dt_projects (id) ON DELETE CASCADE,
    PRIMARY KEY (policy_id, project_id)
) WITHOUT ROWID;
CREATE INDEX dt_policy_projects_project ON dt_policy_projects (project_id);
CREATE TABLE dt_policy_tags (
    policy_id INTEGER NOT NULL REFERENCES dt_policies (id) ON DELETE CASCADE,
    name      TEXT NOT NULL REFERENCES dt_tags (name) ON DELETE CASCADE,
    PRIMARY KEY (policy_id, name)
) WITHOUT ROWID;
CREATE INDEX dt_policy_tags_name ON dt_policy_tags (name);
CREATE INDEX dt_project_tags_name ON dt_project_tags (name);
