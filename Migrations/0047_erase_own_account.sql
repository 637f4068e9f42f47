-- An account deleted by its owner (AuthService/DeleteAccount, the portal's "Delete your account").
--
-- Until now only an operator could erase an account (`spotterctl accounts delete`, as the admin
-- role). `spotter_erase_own_account` does the same for the tenant the transaction acts as and no
-- other: it appends the erasure's audit row (actor kind 'tenant', named by the pseudonym), runs
-- `spotter_erase_traces` (0041: the comments it wrote in other tenants, the names in its audit
-- rows), and deletes the tenant, from which every tenant table cascades. spotterd has checked the
-- password (and the second factor) first.

CREATE FUNCTION spotter_erase_own_account(pseudonym text) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    me uuid := spotter_current_tenant();
BEGIN
    IF me IS NULL THEN
        RAISE EXCEPTION 'spotter_erase_own_account needs the tenant set' USING ERRCODE = 'insufficient_privilege';
    END IF;
    INSERT INTO audit_log (actor_kind, actor, action, target_tenant_id, target, reason)
    VALUES ('tenant', pseudonym, 'account.delete', me, pseudonym, 'deleted by its owner');
    PERFORM spotter_erase_traces(me, pseudonym);
    DELETE FROM tenants WHERE tenant_id = me;
END
$$;

REVOKE ALL ON FUNCTION spotter_erase_own_account(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_erase_own_account(text) TO spotter_app;
