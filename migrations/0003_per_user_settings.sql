-- Settings per user, the store's identity, prompt owners named by pid and start time, and
-- configuration changes in the audit log.

-- One user's settings: a key never set for a user has its default. The store-wide values of
-- older stores are copied to every user the store knew, so nobody's lock changes on upgrade;
-- a user the store meets later starts from the defaults.
CREATE TABLE user_config (
    user  TEXT NOT NULL,
    key   TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (user, key)
) WITHOUT ROWID;
INSERT INTO user_config (user, key, value) SELECT users.name, config.key, config.value FROM users, config;
DROP TABLE config;

-- A random id made once, when the store is made (or upgraded to this version). The generated
-- shell and tmux snippets carry it, so a store that was deleted, moved or replaced is seen as
-- damage instead of as a new store with the lock off.
CREATE TABLE store_identity (
    singleton INTEGER PRIMARY KEY NOT NULL CHECK (singleton = 1),
    id        TEXT NOT NULL
);
INSERT INTO store_identity (singleton, id) VALUES (1, lower(hex(randomblob(16))));

-- The prompt owner's start time (field 22 of /proc/PID/stat): a pid alone may name an unrelated
-- process once the owner is gone. A claim without it (made before this version) is not trusted.
ALTER TABLE sessions ADD COLUMN prompt_start INTEGER;

-- A configuration change: which setting, its old and new value, and who made it (the invoking
-- user; `user` is whose setting it is). NULL for every other entry.
ALTER TABLE audit ADD COLUMN setting TEXT;
ALTER TABLE audit ADD COLUMN old_value TEXT;
ALTER TABLE audit ADD COLUMN new_value TEXT;
ALTER TABLE audit ADD COLUMN actor TEXT;
