-- A username given up stays its former owner's for 14 days.
--
-- A rename freed the old name at once, so anyone could take it the next moment: a lifter who asks
-- for their coach by the name they know (`RequestCoach`) would then offer their data to whoever
-- took it. Now the old name is held: nobody else can register it or rename to it until the hold
-- ends, while its former owner can take it back at any time (which ends the hold). Holds go with
-- the tenant when it is erased. An operator's rename (`spotterctl accounts rename`, which sets
-- `spotter.operator_rename` for its transaction) neither holds the name it replaces nor is stopped
-- by a hold: it is how a name is taken from an impostor and given to its rightful owner.
--
-- username_holds  one row per name given up (lower-cased), the tenant it was held by (`holder`),
--                 and until when it is held. Like the unique index on usernames it spans tenants,
--                 so it is keyed by the name. Written and read only by the trigger below (and the
--                 rename's count of holds in force, through `spotter_username_holds`): no role
--                 reads which names an account had.

CREATE TABLE username_holds (
    username   text PRIMARY KEY,
    holder     uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    held_until timestamptz NOT NULL
);
CREATE INDEX username_holds_holder ON username_holds (holder);
ALTER TABLE username_holds ENABLE ROW LEVEL SECURITY;

-- Before a username is written (a registration, a rename): the name is locked for the transaction
-- (as is the name a rename gives up, before the row changes), so a rename giving up a name and a
-- registration taking it are ordered, and the registration sees the hold. A name another tenant
-- holds is refused as taken; a hold of the tenant's own ends. After a rename, the old name is held.
CREATE FUNCTION spotter_hold_usernames() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
BEGIN
    IF current_setting('spotter.operator_rename', true) = 'on' THEN
        RETURN CASE WHEN TG_WHEN = 'BEFORE' THEN NEW END;
    END IF;
    IF TG_WHEN = 'BEFORE' THEN
        IF TG_OP = 'UPDATE' THEN
            PERFORM pg_advisory_xact_lock(hashtext('username:' || lower(OLD.username)));
        END IF;
        PERFORM pg_advisory_xact_lock(hashtext('username:' || lower(NEW.username)));
        IF EXISTS (
            SELECT 1 FROM username_holds
            WHERE username = lower(NEW.username) AND holder <> NEW.tenant_id AND held_until > now()
        ) THEN
            RAISE EXCEPTION 'username % is held for its former owner', NEW.username
                USING ERRCODE = 'unique_violation', CONSTRAINT = 'username_holds_pkey';
        END IF;
        DELETE FROM username_holds WHERE username = lower(NEW.username);
        RETURN NEW;
    END IF;
    INSERT INTO username_holds (username, holder, held_until)
    VALUES (lower(OLD.username), OLD.tenant_id, now() + interval '14 days')
    ON CONFLICT (username) DO UPDATE SET holder = EXCLUDED.holder, held_until = EXCLUDED.held_until;
    RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION spotter_hold_usernames() FROM PUBLIC;
CREATE TRIGGER hold_usernames BEFORE INSERT OR UPDATE OF username ON accounts
    FOR EACH ROW EXECUTE FUNCTION spotter_hold_usernames();
CREATE TRIGGER hold_usernames_given_up AFTER UPDATE OF username ON accounts
    FOR EACH ROW WHEN (lower(OLD.username) <> lower(NEW.username))
    EXECUTE FUNCTION spotter_hold_usernames();

-- The names the calling tenant gave up that are held for it now, the earliest hold's end first:
-- a rename is refused while three are (renaming again and again would hold name after name).
CREATE FUNCTION spotter_username_holds() RETURNS TABLE (username text, held_until timestamptz)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
    SELECT h.username, h.held_until FROM username_holds h
    WHERE h.holder = (nullif(current_setting('spotter.tenant_id', true), ''))::uuid AND h.held_until > now()
    ORDER BY h.held_until
$$;
REVOKE ALL ON FUNCTION spotter_username_holds() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_username_holds() TO spotter_app;
