-- A coach may assign templates that use the coach's own custom exercises.
--
-- Until now an assigned template (alone or in a program) could use built-in exercises only: a
-- client's workout can name only built-in exercises and the client's own, so a coach's "Cambered
-- Bar Good Morning" could not be logged. Now assigning shares them: each custom exercise the
-- assigned templates use is copied into the client's account under the same id (name, category,
-- muscle group, equipment, instructions), so the client's devices pull it, prefill and log it, and
-- its progress is the client's. A copy is the client's from then on: it stays when the assignment
-- or the coaching ends, and a later change of the coach's exercise does not reach it. A name the
-- client already uses (their own exercise, or a built-in one) gets the coach's name after it:
-- "Good Morning (Cora Diaz)". Editing an assigned template or program shares what it adds.
--
-- `spotter_share_exercises(lifter, templates)` runs as the coach the transaction acts as, and only
-- for a client the coach coaches (an active link; for anyone else it writes nothing).

CREATE FUNCTION spotter_share_exercises(lifter uuid, templates uuid[]) RETURNS integer
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    coach uuid := spotter_current_tenant();
    coach_name text;
    x record;
    chosen text;
    shared integer := 0;
BEGIN
    IF coach IS NULL THEN
        RAISE EXCEPTION 'spotter_share_exercises needs the tenant set' USING ERRCODE = 'insufficient_privilege';
    END IF;
    -- Only a client the coach coaches now (an assignment can outlive its link): nothing otherwise.
    IF NOT EXISTS (
        SELECT 1 FROM coach_links l WHERE l.tenant_id = lifter AND l.coach_id = coach AND l.status = 'active'
    ) THEN
        RETURN 0;
    END IF;
    SELECT display_name INTO coach_name FROM tenants WHERE tenant_id = coach;
    FOR x IN
        SELECT e.exercise_id, e.name, e.category, e.muscle_group, e.equipment, e.instructions
        FROM exercises e
        WHERE e.tenant_id = coach AND e.deleted_at IS NULL
          AND e.exercise_id IN (SELECT i.exercise_id FROM template_items i
                                WHERE i.tenant_id = coach AND i.template_id = ANY (templates))
          AND NOT EXISTS (SELECT 1 FROM exercises o WHERE o.tenant_id = lifter AND o.exercise_id = e.exercise_id)
        ORDER BY e.exercise_id
    LOOP
        chosen := x.name;
        IF EXISTS (SELECT 1 FROM exercises o
                   WHERE o.tenant_id = lifter AND o.deleted_at IS NULL AND lower(o.name) = lower(chosen))
           OR EXISTS (SELECT 1 FROM catalog_exercises c WHERE lower(c.name) = lower(chosen)) THEN
            chosen := left(x.name, greatest(1, 96 - length(coach_name))) || ' (' || coach_name || ')';
        END IF;
        IF EXISTS (SELECT 1 FROM exercises o
                   WHERE o.tenant_id = lifter AND o.deleted_at IS NULL AND lower(o.name) = lower(chosen)) THEN
            chosen := left(x.name, 88) || ' (' || left(x.exercise_id::text, 8) || ')';
        END IF;
        INSERT INTO exercises (tenant_id, exercise_id, name, category, muscle_group, equipment, instructions,
                               created_at, updated_at)
        VALUES (lifter, x.exercise_id, chosen, x.category, x.muscle_group, x.equipment, x.instructions, now(), now());
        shared := shared + 1;
    END LOOP;
    RETURN shared;
END
$$;
REVOKE ALL ON FUNCTION spotter_share_exercises(uuid, uuid[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_share_exercises(uuid, uuid[]) TO spotter_app;
