-- The mailer of spotterd delivers every tenant's outbox, so it works as a role of its own that
-- sees the outbox across tenants and nothing else.
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'spotter_mailer') THEN
        CREATE ROLE spotter_mailer NOLOGIN NOSUPERUSER NOBYPASSRLS;
    END IF;
END
$$;

CREATE POLICY mailer_all ON email_outbox TO spotter_mailer USING (true) WITH CHECK (true);
GRANT SELECT, UPDATE ON email_outbox TO spotter_mailer;
GRANT USAGE ON SCHEMA public TO spotter_mailer;
GRANT EXECUTE ON FUNCTION spotter_current_tenant() TO spotter_mailer;
