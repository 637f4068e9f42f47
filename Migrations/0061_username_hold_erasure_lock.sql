-- Username holds (0059), mended: an erasure's hold takes the name's lock.
--
-- The hold written when an account is deleted took no lock on the name. A registration of that
-- name could check for holds (finding none), then wait on the unique index for the erasing
-- transaction, and go through when it committed, beside the hold committed with it. Now the
-- deletion locks the name as a rename does, before the row goes (a BEFORE trigger: taken after the
-- row is gone, the lock could wait on a registration that waits on the row, a deadlock), so a
-- registration either meets the account still there or checks after the erasure.
-- (The names the erased account still held keep their own ends: 0059's comment and commit said
-- 14 days for those too, which the README no longer claims.)

CREATE OR REPLACE FUNCTION spotter_hold_usernames() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    by_operator boolean;
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM pg_advisory_xact_lock(hashtext('username:' || lower(OLD.username)));
        INSERT INTO username_holds (username, holder, held_until)
        VALUES (lower(OLD.username), NULL, now() + interval '14 days')
        ON CONFLICT (username) DO UPDATE SET holder = NULL, held_until = EXCLUDED.held_until;
        RETURN OLD;
    END IF;
    by_operator := TG_OP = 'UPDATE'
        AND EXISTS (SELECT 1 FROM username_operator_renames WHERE tenant_id = NEW.tenant_id);
    IF TG_WHEN = 'BEFORE' THEN
        IF TG_OP = 'UPDATE' THEN
            PERFORM pg_advisory_xact_lock(hashtext('username:' || least(lower(OLD.username), lower(NEW.username))));
            PERFORM pg_advisory_xact_lock(hashtext('username:' || greatest(lower(OLD.username), lower(NEW.username))));
        ELSE
            PERFORM pg_advisory_xact_lock(hashtext('username:' || lower(NEW.username)));
        END IF;
        IF NOT by_operator AND EXISTS (
            SELECT 1 FROM username_holds
            WHERE username = lower(NEW.username) AND holder IS DISTINCT FROM NEW.tenant_id AND held_until > now()
        ) THEN
            RAISE EXCEPTION 'username % is held for its former owner', NEW.username
                USING ERRCODE = 'unique_violation', CONSTRAINT = 'username_holds_pkey';
        END IF;
        DELETE FROM username_holds WHERE username = lower(NEW.username);
        RETURN NEW;
    END IF;
    IF by_operator THEN
        DELETE FROM username_operator_renames WHERE tenant_id = NEW.tenant_id;
        RETURN NULL;
    END IF;
    INSERT INTO username_holds (username, holder, held_until)
    VALUES (lower(OLD.username), OLD.tenant_id, now() + interval '14 days')
    ON CONFLICT (username) DO UPDATE SET holder = EXCLUDED.holder, held_until = EXCLUDED.held_until;
    RETURN NULL;
END
$$;

DROP TRIGGER hold_usernames_erased ON accounts;
CREATE TRIGGER hold_usernames_erased BEFORE DELETE ON accounts
    FOR EACH ROW EXECUTE FUNCTION spotter_hold_usernames();
