-- Feedback and bug reports filed by lifters and coaches, triaged by administrators.
CREATE TABLE feedback (
    tenant_id     uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    feedback_id   uuid NOT NULL,
    account_id    uuid NOT NULL,
    kind          text NOT NULL CHECK (kind IN ('feedback', 'bug')),
    subject       text NOT NULL CHECK (length(subject) BETWEEN 1 AND 200),
    body          text NOT NULL CHECK (length(body) BETWEEN 1 AND 10000),
    app_version   text NOT NULL DEFAULT '' CHECK (length(app_version) <= 100),
    status        text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
    created_at    timestamptz NOT NULL DEFAULT now(),
    resolved_at   timestamptz,
    resolved_by   text,
    resolution    text,
    PRIMARY KEY (tenant_id, feedback_id),
    UNIQUE (feedback_id)
);
CREATE INDEX feedback_triage_idx ON feedback (status, created_at DESC);

ALTER TABLE feedback ENABLE ROW LEVEL SECURITY;
ALTER TABLE feedback FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON feedback TO spotter_app
    USING (tenant_id = spotter_current_tenant()) WITH CHECK (tenant_id = spotter_current_tenant());
CREATE POLICY admin_all ON feedback TO spotter_admin USING (true) WITH CHECK (true);
GRANT SELECT, INSERT ON feedback TO spotter_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON feedback TO spotter_admin;
