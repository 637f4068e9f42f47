-- `spotter_linked_parties()` was a SQL function. A SQL function that cannot be inlined (this one is
-- SECURITY DEFINER with its own search_path) plans its query again on every call, and a coach's
-- link check called it twice (both parties' names), each time working out every party of the
-- coach: 0.94 ms of a coach's read went there for a coach with 19 clients, against 0.30 ms for the
-- rest of the transaction (pgbench, 40,000 tenants).
--
-- Now it is PL/pgSQL (its plan kept for the session) and starts from the caller's links. What it
-- answers is unchanged: the caller and every tenant linked with the caller in any state, their
-- display names, and the time zone of the caller and of the caller's active clients (NULL for
-- everyone else). Lists of links, comments and assignments join it once.
--
-- Working out every party still grows with the coach's clients (the link check's transaction
-- 1.09 ms through it with 218 clients), so two functions answer the same questions for one tenant,
-- looking at that tenant alone: `spotter_linked_name(party)`, the display name of `party` when it
-- is the caller or linked with the caller in any state (for statements about one link: a coach's
-- link check before every read of a client), and `spotter_linked_time_zone(party)`, the time zone
-- of the caller or of the caller's active client (a coach's read of a client's days). Else NULL.
-- With 218 clients the link check's transaction takes 0.38 ms through the first, and reading the
-- time zone 0.38 ms through the second against 0.76 ms through the set.

CREATE OR REPLACE FUNCTION spotter_linked_parties()
RETURNS TABLE (tenant_id uuid, display_name text, time_zone text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    caller uuid := spotter_current_tenant();
BEGIN
    RETURN QUERY
    SELECT t.tenant_id, t.display_name, t.time_zone
    FROM tenants t
    WHERE t.tenant_id = caller
    UNION ALL
    SELECT t.tenant_id, t.display_name, CASE WHEN p.active_client THEN t.time_zone END
    FROM (SELECT x.party, bool_or(x.active_client) AS active_client
          FROM (SELECT l.tenant_id AS party, l.status = 'active' AS active_client
                FROM coach_links l WHERE l.coach_id = caller
                UNION ALL
                SELECT l.coach_id, false FROM coach_links l WHERE l.tenant_id = caller) x
          GROUP BY x.party) p
    JOIN tenants t ON t.tenant_id = p.party;
END
$$;

CREATE FUNCTION spotter_linked_name(party uuid)
RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    caller uuid := spotter_current_tenant();
BEGIN
    RETURN (SELECT t.display_name FROM tenants t
            WHERE t.tenant_id = party
              AND (party = caller
                   OR EXISTS (SELECT FROM coach_links l WHERE l.coach_id = caller AND l.tenant_id = party)
                   OR EXISTS (SELECT FROM coach_links l WHERE l.tenant_id = caller AND l.coach_id = party)));
END
$$;

CREATE FUNCTION spotter_linked_time_zone(party uuid)
RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    caller uuid := spotter_current_tenant();
BEGIN
    RETURN (SELECT t.time_zone FROM tenants t
            WHERE t.tenant_id = party
              AND (party = caller
                   OR EXISTS (SELECT FROM coach_links l
                              WHERE l.coach_id = caller AND l.tenant_id = party AND l.status = 'active')));
END
$$;

ALTER FUNCTION spotter_linked_name(uuid) OWNER TO spotter_auth;
ALTER FUNCTION spotter_linked_time_zone(uuid) OWNER TO spotter_auth;
REVOKE ALL ON FUNCTION spotter_linked_name(uuid), spotter_linked_time_zone(uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_linked_name(uuid), spotter_linked_time_zone(uuid) TO spotter_app, spotter_admin;
