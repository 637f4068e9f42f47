-- A coach's clients are told when the coach's account is erased.
--
-- Erasure (an operator's `spotterctl accounts delete`, or the owner's DeleteAccount) deletes the
-- coach's links with the tenant: each client's coach, the templates and programs the coach
-- assigned, and the program the client followed from the coach were gone without a word.
-- `spotter_tell_clients_coach_left(tenant)` writes each active client an e-mail, into the
-- client's outbox, before the erasure. It does not name the coach: erasure leaves nothing that
-- names the erased person (0041), and the outbox is the client's data until the mailer sends it.

CREATE FUNCTION spotter_tell_clients_coach_left(tenant uuid) RETURNS integer
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    told integer;
BEGIN
    INSERT INTO email_outbox (tenant_id, message_id, kind, recipient, subject, body)
    SELECT a.tenant_id, gen_random_uuid(), 'coach_left', a.email, 'Your coach has left Spotter',
           format(E'Hi %s,\n\n'
                  || E'one of your coaches on Spotter has deleted their account. They no longer see any of\n'
                  || E'your data, and the templates and programs they assigned you went with their account.\n\n'
                  || E'Your own workouts, templates and history stay yours. To work with a coach again, ask\n'
                  || E'one in the app, or on the Coaches page of the Spotter portal.\n',
                  a.username)
    FROM coach_links l
    JOIN accounts a ON a.tenant_id = l.tenant_id
    WHERE l.coach_id = tenant AND l.status = 'active';
    GET DIAGNOSTICS told = ROW_COUNT;
    RETURN told;
END
$$;

REVOKE ALL ON FUNCTION spotter_tell_clients_coach_left(uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_tell_clients_coach_left(uuid) TO spotter_admin;

-- The owner's erasure (0051) tells them too.
CREATE OR REPLACE FUNCTION spotter_erase_own_account() RETURNS text
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
    PERFORM spotter_tell_clients_coach_left(me);
    PERFORM spotter_erase_traces(me, pseudonym);
    DELETE FROM tenants WHERE tenant_id = me;
    RETURN pseudonym;
END
$$;
