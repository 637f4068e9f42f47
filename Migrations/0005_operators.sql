-- Named administrators. Once any operator is registered, spotterctl accepts changes only from a
-- registered, active operator (its name is what the audit log records next to the OS user).
CREATE TABLE admin_operators (
    name          text PRIMARY KEY CHECK (name ~ '^[a-z][a-z0-9_.-]{1,31}$'),
    display_name  text NOT NULL CHECK (length(display_name) BETWEEN 1 AND 80),
    email         text NOT NULL CHECK (email = lower(email)),
    created_at    timestamptz NOT NULL DEFAULT now(),
    created_by    text NOT NULL,
    disabled_at   timestamptz
);
GRANT SELECT, INSERT, UPDATE ON admin_operators TO spotter_admin;
