-- A login is an e-mail address exactly when it contains '@'.
--
-- `spotter_tenant_for_login` matched `email = login OR username = login` with LIMIT 1 and no order.
-- While a NUL byte could cut an e-mail address short when it was stored ('bob\0@evil.co' became
-- 'bob'), one account's address could equal another's username, and a sign-in by that username
-- found either account. Now a login with '@' is looked up only among e-mail addresses and one
-- without only among usernames, each through its unique index, and the constraints below keep an
-- '@' in every address and none in any username, so a login names at most one account.

ALTER TABLE accounts ADD CONSTRAINT accounts_email_has_at CHECK (strpos(email, '@') > 0) NOT VALID;
ALTER TABLE accounts ADD CONSTRAINT accounts_username_has_no_at CHECK (strpos(username, '@') = 0) NOT VALID;

-- Rows written before (only possible through that bug) keep the constraints unvalidated rather than
-- stopping the upgrade; `SELECT … WHERE strpos(email, '@') = 0` finds them for an operator.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM accounts WHERE strpos(email, '@') = 0 OR strpos(username, '@') > 0) THEN
        ALTER TABLE accounts VALIDATE CONSTRAINT accounts_email_has_at;
        ALTER TABLE accounts VALIDATE CONSTRAINT accounts_username_has_no_at;
    END IF;
END
$$;

CREATE OR REPLACE FUNCTION spotter_tenant_for_login(login text) RETURNS uuid
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
    SELECT tenant_id FROM accounts WHERE strpos(login, '@') > 0 AND email = lower(login)
    UNION ALL
    SELECT tenant_id FROM accounts WHERE strpos(login, '@') = 0 AND lower(username) = lower(login)
$$;
