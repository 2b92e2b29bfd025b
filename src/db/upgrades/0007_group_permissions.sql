-- Upgrade 6 -> 7: the user groups' own permissions, the membership index, and the generation
-- token (with its triggers) that cached membership is checked against.
ALTER TABLE user_groups ADD COLUMN can_add_members_group TEXT NOT NULL DEFAULT '1';
ALTER TABLE user_groups ADD COLUMN can_join_group TEXT NOT NULL DEFAULT '1';
ALTER TABLE user_groups ADD COLUMN can_leave_group TEXT NOT NULL DEFAULT '1';
ALTER TABLE user_groups ADD COLUMN can_manage_group TEXT NOT NULL DEFAULT '1';
ALTER TABLE user_groups ADD COLUMN can_mention_group TEXT NOT NULL DEFAULT '1';
ALTER TABLE user_groups ADD COLUMN can_remove_members_group TEXT NOT NULL DEFAULT '1';
CREATE INDEX user_group_members_user ON user_group_members (user_id);
CREATE TABLE user_groups_generation (token INTEGER NOT NULL);
INSERT INTO user_groups_generation (token) VALUES (0);
CREATE TRIGGER user_groups_ins AFTER INSERT ON user_groups
    BEGIN UPDATE user_groups_generation SET token = random(); END;
CREATE TRIGGER user_groups_upd AFTER UPDATE ON user_groups
    BEGIN UPDATE user_groups_generation SET token = random(); END;
CREATE TRIGGER user_group_members_ins AFTER INSERT ON user_group_members
    BEGIN UPDATE user_groups_generation SET token = random(); END;
CREATE TRIGGER user_group_members_del AFTER DELETE ON user_group_members
    BEGIN UPDATE user_groups_generation SET token = random(); END;
CREATE TRIGGER user_group_subgroups_ins AFTER INSERT ON user_group_subgroups
    BEGIN UPDATE user_groups_generation SET token = random(); END;
CREATE TRIGGER user_group_subgroups_del AFTER DELETE ON user_group_subgroups
    BEGIN UPDATE user_groups_generation SET token = random(); END;
