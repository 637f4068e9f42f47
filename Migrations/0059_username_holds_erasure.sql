-- Username holds (0053, 0055), closed at two gaps.
--
-- * An erased account's username, and every name it still held, stays held for 14 days for
--   nobody. The moment an account was deleted its name was free, so an impostor could take a
--   deleted coach's name while their clients still knew it. Such a hold keeps only the lower-cased
--   name and the hold's end (holder NULL): no one can take it back, and the retention pass deletes
--   it when it ends.
-- * An operator's rename is recognised by a row in username_operator_renames, which only
--   spotter_admin may write, in the rename's own transaction; the trigger deletes it. The setting
--   spotter.operator_rename it went by could be set by any role's SQL, so a statement injected into
--   the application's connection could have taken a held name. The setting is ignored from now on.

ALTER TABLE username_holds
    ALTER COLUMN holder DROP NOT NULL,
    DROP CONSTRAINT username_holds_holder_fkey,
    ADD CONSTRAINT username_holds_holder_fkey
        FOREIGN KEY (holder) REFERENCES tenants (tenant_id) ON DELETE SET NULL;

CREATE TABLE username_operator_renames (
    tenant_id uuid PRIMARY KEY REFERENCES tenants (tenant_id) ON DELETE CASCADE
);
ALTER TABLE username_operator_renames ENABLE ROW LEVEL SECURITY;
ALTER TABLE username_operator_renames FORCE ROW LEVEL SECURITY;
-- Who may write it is settled by the grant below (spotter_admin only; SELECT for the DELETE's
-- WHERE); the policy lets that role, and the trigger running as the owner, see every row.
CREATE POLICY operator_renames ON username_operator_renames USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, DELETE ON username_operator_renames TO spotter_admin;

CREATE OR REPLACE FUNCTION spotter_hold_usernames() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    by_operator boolean;
BEGIN
    IF TG_OP = 'DELETE' THEN
        INSERT INTO username_holds (username, holder, held_until)
        VALUES (lower(OLD.username), NULL, now() + interval '14 days')
        ON CONFLICT (username) DO UPDATE SET holder = NULL, held_until = EXCLUDED.held_until;
        RETURN NULL;
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

CREATE TRIGGER hold_usernames_erased AFTER DELETE ON accounts
    FOR EACH ROW EXECUTE FUNCTION spotter_hold_usernames();
