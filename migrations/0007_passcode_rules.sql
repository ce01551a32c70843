-- When the passcode is required before the biometric factor (PasscodeRequirement): the last
-- passcode success and the boot it happened in (/proc/sys/kernel/random/boot_id), the last
-- biometric success, and the two locks that keep the finger off until the next passcode success:
-- the user's own `touchgate lockdown` and an administrator's `touchgate --system lockdown`.
-- An upgraded store has no passcode success yet: the next unlock asks for the passcode once.
ALTER TABLE users ADD COLUMN last_passcode_success REAL;
ALTER TABLE users ADD COLUMN last_passcode_boot TEXT;
ALTER TABLE users ADD COLUMN last_biometric_success REAL;
ALTER TABLE users ADD COLUMN lockdown INTEGER NOT NULL DEFAULT 0 CHECK (lockdown IN (0, 1));
ALTER TABLE users ADD COLUMN admin_lock INTEGER NOT NULL DEFAULT 0 CHECK (admin_lock IN (0, 1));
