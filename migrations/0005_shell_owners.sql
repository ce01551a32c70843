-- The running `touchgate shell` owners: which process holds each session's terminal, by pid and
-- start time (so a pid the kernel gave to another process is never signalled), so that
-- `touchgate watch` and `touchgate event` can have every owner cover its terminal at once.
-- A row whose process is gone names nobody and is removed by the next owner that registers.
CREATE TABLE shell_owners (
    session TEXT PRIMARY KEY NOT NULL,
    user    TEXT NOT NULL,
    pid     INTEGER NOT NULL,
    start   INTEGER NOT NULL
) WITHOUT ROWID;
