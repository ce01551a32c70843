-- Core authenticator state: the store-wide configuration, one row of lock state per user,
-- and the audit trail. Secrets never have a column here.

CREATE TABLE config (
    key   TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE users (
    name                  TEXT PRIMARY KEY NOT NULL,
    enabled               INTEGER NOT NULL DEFAULT 0 CHECK (enabled IN (0, 1)),
    enrolled              INTEGER NOT NULL DEFAULT 0 CHECK (enrolled IN (0, 1)),
    domain_state          TEXT,
    biometric_failures    INTEGER NOT NULL DEFAULT 0 CHECK (biometric_failures >= 0),
    passcode_failures     INTEGER NOT NULL DEFAULT 0 CHECK (passcode_failures >= 0),
    last_passcode_failure REAL,
    last_success          REAL
);

-- One row per attempt, written before the credential check ('pending') and completed after it,
-- so an attempt whose process died stays visible as 'pending'.
CREATE TABLE audit (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    time    REAL NOT NULL,
    user    TEXT NOT NULL,
    session TEXT,
    policy  TEXT,
    factor  TEXT NOT NULL,
    outcome TEXT NOT NULL,
    code    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX audit_by_user ON audit (user, id);
