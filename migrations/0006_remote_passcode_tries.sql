-- The passcode tries of remote hosts (PAM_RHOST, or a login from a remote host on the terminal),
-- counted apart from the local keyboard's `users.passcode_failures`: a remote host's wrong
-- guesses throttle remote hosts only, never the local user's sudo and su (pam_faillock's denial
-- of service; docs/security.md, "Remote and local tries"). Same lockout arithmetic, same
-- write-ahead admission (the try is counted here before PAM sees it).
CREATE TABLE remote_passcode_tries (
    name         TEXT PRIMARY KEY NOT NULL,
    failures     INTEGER NOT NULL DEFAULT 0 CHECK (failures >= 0),
    last_failure REAL
) WITHOUT ROWID;
