-- Per terminal session lifecycle state for the resume gate.

CREATE TABLE sessions (
    id               TEXT PRIMARY KEY NOT NULL,
    user             TEXT NOT NULL,
    state            TEXT NOT NULL CHECK (state IN ('notRunning', 'inactive', 'active', 'background')),
    locked           INTEGER NOT NULL DEFAULT 0 CHECK (locked IN (0, 1)),
    background_since REAL,
    -- The process that is prompting for this session right now, so a second activation does not
    -- start a second prompt; a row whose process is gone is cleaned up by the next reader.
    prompt_pid       INTEGER,
    prompt_kind      TEXT,
    updated          REAL NOT NULL
);

-- Which session each tmux client shows, recorded on attach: tmux's client-detached hook no
-- longer knows the session the client left.
CREATE TABLE tmux_clients (
    client  TEXT PRIMARY KEY NOT NULL,
    session TEXT NOT NULL,
    updated REAL NOT NULL
) WITHOUT ROWID;
