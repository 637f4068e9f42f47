-- Erasure leaves nothing that names the erased person.
--
-- Until now `spotterctl accounts delete` deleted the tenant (every table cascades from it) and
-- replaced the target and details of its audit rows with a pseudonym. Three traces were left:
-- - the comments a coach wrote on clients' workouts, which live in the clients' tenants, so the
--   cascade does not reach them;
-- - each audit row's target_tenant_id, the real id beside the pseudonym, which other records (a
--   client's access log, an earlier export) still hold, so the pseudonym could be linked back;
-- - the operators' free-text reasons ("asked by Ada Lovelace", "request from ada@example.com").
--
-- `spotter_erase_traces` runs in the erasure's transaction after its own audit row is written and
-- before the tenant is deleted (it reads the names from the tenant's rows):
-- - it deletes the comments the tenant wrote in other tenants (each client's devices get a
--   tombstone from the feed trigger);
-- - in every audit row about the tenant, it writes the pseudonym for the e-mail address, its local
--   part, the username (also earlier ones, from renames), and the display name, wherever they
--   stand as whole words in the reason (case-insensitive; names under three characters are left,
--   they would match ordinary words);
-- - it sets target to the pseudonym, details to {}, and target_tenant_id to an id made from the
--   pseudonym, so the rows still group but no longer point at the erased id.

CREATE FUNCTION spotter_erase_traces(tenant uuid, pseudonym text) RETURNS integer
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
                WHERE target_tenant_id = tenant AND action = 'account.rename'
            UNION ALL SELECT details ->> 'to' FROM audit_log
                WHERE target_tenant_id = tenant AND action = 'account.rename'
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

REVOKE ALL ON FUNCTION spotter_erase_traces(uuid, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_erase_traces(uuid, text) TO spotter_admin;
DROP FUNCTION spotter_pseudonymize_audit(uuid, text);
