-- Username holds (0053), mended.
--
-- * An operator's rename that takes a name another account holds ends that hold (it stayed, and
--   counted towards the other account's three).
-- * A rename locks the two names in one order (the lower first): two accounts swapping names
--   waited for each other (a deadlock, answered "try again") instead of one being refused.
-- * Holds that ended are deleted by the retention pass (`spotter_purge_username_holds`): a name an
--   account gave up is not kept past its 14 days.
-- * Registration is refused a held name before its password is hashed (`spotter_username_held`).
-- * `spotter_access_token_state` (0054) belongs to `spotter_auth`, as `spotter_authenticate` does.
-- * No role of Spotter creates temporary tables, and none may: a temporary table is searched first
--   by unqualified names, so it could stand in for a table inside a SECURITY DEFINER function.

CREATE OR REPLACE FUNCTION spotter_hold_usernames() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
BEGIN
    IF TG_WHEN = 'BEFORE' THEN
        IF TG_OP = 'UPDATE' THEN
            PERFORM pg_advisory_xact_lock(hashtext('username:' || least(lower(OLD.username), lower(NEW.username))));
            PERFORM pg_advisory_xact_lock(hashtext('username:' || greatest(lower(OLD.username), lower(NEW.username))));
        ELSE
            PERFORM pg_advisory_xact_lock(hashtext('username:' || lower(NEW.username)));
        END IF;
        IF current_setting('spotter.operator_rename', true) IS DISTINCT FROM 'on' AND EXISTS (
            SELECT 1 FROM username_holds
            WHERE username = lower(NEW.username) AND holder <> NEW.tenant_id AND held_until > now()
        ) THEN
            RAISE EXCEPTION 'username % is held for its former owner', NEW.username
                USING ERRCODE = 'unique_violation', CONSTRAINT = 'username_holds_pkey';
        END IF;
        DELETE FROM username_holds WHERE username = lower(NEW.username);
        RETURN NEW;
    END IF;
    IF current_setting('spotter.operator_rename', true) = 'on' THEN
        RETURN NULL;
    END IF;
    INSERT INTO username_holds (username, holder, held_until)
    VALUES (lower(OLD.username), OLD.tenant_id, now() + interval '14 days')
    ON CONFLICT (username) DO UPDATE SET holder = EXCLUDED.holder, held_until = EXCLUDED.held_until;
    RETURN NULL;
END
$$;

-- Whether another account may not take `name` now (held for the account that gave it up).
CREATE FUNCTION spotter_username_held(name text) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$ SELECT EXISTS (SELECT 1 FROM username_holds WHERE username = lower(name) AND held_until > now()) $$;
REVOKE ALL ON FUNCTION spotter_username_held(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_username_held(text) TO spotter_app;

-- Deletes the holds that have ended; returns how many.
CREATE FUNCTION spotter_purge_username_holds() RETURNS bigint
LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
    WITH gone AS (DELETE FROM username_holds WHERE held_until <= now() RETURNING 1)
    SELECT count(*) FROM gone
$$;
REVOKE ALL ON FUNCTION spotter_purge_username_holds() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_purge_username_holds() TO spotter_app;

ALTER FUNCTION spotter_access_token_state(bytea, timestamptz) OWNER TO spotter_auth;

-- Where the migrating role may not change the database's privileges (a managed database), it says
-- so and goes on; the database's owner can run the REVOKE.
DO $$
BEGIN
    EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC', current_database());
EXCEPTION WHEN insufficient_privilege THEN
    RAISE NOTICE 'could not revoke TEMPORARY on the database from PUBLIC; do it as its owner';
END
$$;
