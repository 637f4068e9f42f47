-- What an owner changes of their own account is audited, and erasure finds it; the app role no
-- longer chooses the pseudonym of an account it erases.
--
-- - A change of e-mail address (AuthService/ChangeEmail, confirmed by its link) writes an
--   `account.change_email` row with the old and new address, as a rename writes `account.rename`.
--   `spotter_erase_traces` (0041) now takes the names to replace from both kinds of rows: earlier
--   addresses and their local parts as well as earlier usernames.
-- - `spotter_erase_own_account` (0047) took the pseudonym from its caller, spotterd as
--   `spotter_app`, which could thus write any target, and any id made from it, into the audit
--   log. It now makes the pseudonym itself, as `Erasure.pseudonym` does (`erased-` and the first
--   12 hex digits of the SHA-256 of the tenant id as text), and returns it.

CREATE OR REPLACE FUNCTION spotter_erase_traces(tenant uuid, pseudonym text) RETURNS integer
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    names text[];
    name text;
    changed integer;
BEGIN
    DELETE FROM workout_comments WHERE author_id = tenant AND tenant_id <> tenant;

    -- Longest first, so an address is replaced whole before its local part or a username in it.
    SELECT array_agg(n ORDER BY length(n) DESC, n) INTO names
    FROM (
        SELECT DISTINCT n FROM (
            SELECT email AS n FROM accounts WHERE tenant_id = tenant
            UNION ALL SELECT split_part(email, '@', 1) FROM accounts WHERE tenant_id = tenant
            UNION ALL SELECT username FROM accounts WHERE tenant_id = tenant
            UNION ALL SELECT display_name FROM tenants WHERE tenant_id = tenant
            UNION ALL SELECT details ->> 'from' FROM audit_log
                WHERE target_tenant_id = tenant AND action IN ('account.rename', 'account.change_email')
            UNION ALL SELECT details ->> 'to' FROM audit_log
                WHERE target_tenant_id = tenant AND action IN ('account.rename', 'account.change_email')
            UNION ALL SELECT split_part(details ->> 'from', '@', 1) FROM audit_log
                WHERE target_tenant_id = tenant AND action = 'account.change_email'
            UNION ALL SELECT split_part(details ->> 'to', '@', 1) FROM audit_log
                WHERE target_tenant_id = tenant AND action = 'account.change_email'
        ) given
        WHERE n IS NOT NULL AND length(n) >= 3
    ) distinct_names;

    FOREACH name IN ARRAY coalesce(names, '{}') LOOP
        -- Every character but letters, digits and spaces escaped: the name is matched literally.
        UPDATE audit_log
        SET reason = regexp_replace(reason, '\m' || regexp_replace(name, '([^[:alnum:] ])', '\\\1', 'g') || '\M',
                                    pseudonym, 'gi')
        WHERE target_tenant_id = tenant AND reason IS NOT NULL;
    END LOOP;

    UPDATE audit_log SET target = pseudonym, details = '{}', target_tenant_id = md5(pseudonym)::uuid
    WHERE target_tenant_id = tenant;
    GET DIAGNOSTICS changed = ROW_COUNT;
    RETURN changed;
END
$$;

DROP FUNCTION spotter_erase_own_account(text);

CREATE FUNCTION spotter_erase_own_account() RETURNS text
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    me uuid := spotter_current_tenant();
    pseudonym text;
BEGIN
    IF me IS NULL THEN
        RAISE EXCEPTION 'spotter_erase_own_account needs the tenant set' USING ERRCODE = 'insufficient_privilege';
    END IF;
    pseudonym := 'erased-' || left(encode(sha256(convert_to(me::text, 'UTF8')), 'hex'), 12);
    INSERT INTO audit_log (actor_kind, actor, action, target_tenant_id, target, reason)
    VALUES ('tenant', pseudonym, 'account.delete', me, pseudonym, 'deleted by its owner');
    PERFORM spotter_erase_traces(me, pseudonym);
    DELETE FROM tenants WHERE tenant_id = me;
    RETURN pseudonym;
END
$$;

REVOKE ALL ON FUNCTION spotter_erase_own_account() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_erase_own_account() TO spotter_app;
