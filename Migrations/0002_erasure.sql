-- Erasure of a tenant (spotterctl accounts delete). The audit log stays append-only for every role
-- but its owner; this one function, owned by the owner, is the exception the law asks for: it
-- replaces the personal data in a deleted tenant's audit rows with a pseudonym, keeping the
-- record that each action happened.
CREATE FUNCTION spotter_pseudonymize_audit(tenant uuid, pseudonym text) RETURNS integer
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    changed integer;
BEGIN
    UPDATE audit_log SET target = pseudonym, details = '{}'
    WHERE target_tenant_id = tenant AND (target IS DISTINCT FROM pseudonym OR details <> '{}');
    GET DIAGNOSTICS changed = ROW_COUNT;
    RETURN changed;
END
$$;

REVOKE ALL ON FUNCTION spotter_pseudonymize_audit(uuid, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_pseudonymize_audit(uuid, text) TO spotter_admin;

-- spotterctl reads the migration level with its admin role.
DO $$
BEGIN
    IF to_regclass('spotter_migrations') IS NOT NULL THEN
        GRANT SELECT ON spotter_migrations TO spotter_admin;
    END IF;
END
$$;
