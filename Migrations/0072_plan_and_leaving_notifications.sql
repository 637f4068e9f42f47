-- Two more coaching e-mails, under the same rules as the others (notifications on, address
-- confirmed, at most one a day of a kind from one member to another, withdrawn while waiting when
-- their news no longer holds):
--
-- * plan_assigned, to a lifter: a coach assigned them a template or a program (with the coach's
--   note). Withdrawn when the assignment is taken back, or the coaching ends, before it is sent.
--   The app shows the plan; the link is the lifter's Coaches page.
-- * client_left, to a coach: a client ended the coaching. Withdrawn when the two are linked again
--   before it is sent. The link is the coach's Clients page.

-- 0067's function with the two kinds' pages.
CREATE OR REPLACE FUNCTION spotter_notify(recipient uuid, sender uuid, kind text, about uuid, subject text, body text)
RETURNS void
LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
    -- Parameters by the function's name: `kind` and `recipient` are columns too.
    INSERT INTO email_outbox (tenant_id, message_id, kind, recipient, subject, body, sender_id, about, link_path)
    SELECT a.tenant_id, gen_random_uuid(), spotter_notify.kind, a.email, spotter_notify.subject,
           format(E'Hi %s,\n\n', t.display_name) || spotter_notify.body
               || E'\n--\nYou get this e-mail because e-mail notifications are on in your Spotter profile.\n'
               || E'To stop them, untick "E-mail me coaching news" on the Profile page of the portal, or\n'
               || E'turn them off in the app.\n',
           spotter_notify.sender, spotter_notify.about,
           CASE spotter_notify.kind
               WHEN 'coach_request' THEN '/clients'
               WHEN 'client_joined' THEN format('/clients/%s', spotter_notify.sender)
               WHEN 'client_accepted' THEN format('/clients/%s', spotter_notify.sender)
               WHEN 'client_left' THEN '/clients'
               WHEN 'workout_reply' THEN (
                   SELECT format('/clients/%s/workouts/%s#comments', c.tenant_id, c.workout_id)
                   FROM workout_comments c
                   WHERE c.tenant_id = spotter_notify.sender AND c.comment_id = spotter_notify.about)
               WHEN 'coach_invitation' THEN '/coaches'
               WHEN 'coach_accepted' THEN '/coaches'
               WHEN 'plan_assigned' THEN '/coaches'
           END
    FROM accounts a JOIN tenants t ON t.tenant_id = a.tenant_id
    WHERE a.tenant_id = spotter_notify.recipient AND t.email_notifications AND a.email_verified_at IS NOT NULL
      AND a.status = 'active'
$$;

CREATE FUNCTION spotter_notify_assignment() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    coach text := (SELECT display_name FROM tenants WHERE tenant_id = NEW.tenant_id);
    what text;
    plan text;
    how text;
BEGIN
    IF NEW.program_id IS NOT NULL THEN
        what := 'program';
        plan := (SELECT name FROM programs WHERE tenant_id = NEW.tenant_id AND program_id = NEW.program_id);
        how := 'Follow it in the app to see each day''s workout.';
    ELSE
        what := 'template';
        plan := (SELECT name FROM templates WHERE tenant_id = NEW.tenant_id AND template_id = NEW.template_id);
        how := 'Log a workout from it in the app.';
    END IF;
    IF NOT spotter_notified_today(NEW.lifter_id, NEW.tenant_id, 'plan_assigned') THEN
        PERFORM spotter_notify(NEW.lifter_id, NEW.tenant_id, 'plan_assigned', NEW.assignment_id,
            format('%s assigned you the %s “%s”', coach, what, plan),
            format(E'%s, your coach on Spotter, assigned you the %s “%s”%s\n\n%s\n',
                   coach, what, plan,
                   CASE WHEN NEW.note = '' THEN '.' ELSE format(E', with a note:\n\n%s', NEW.note) END, how));
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER notify_assignment AFTER INSERT ON assignments
    FOR EACH ROW EXECUTE FUNCTION spotter_notify_assignment();

CREATE FUNCTION spotter_notify_client_left() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    lifter text := (SELECT display_name FROM tenants WHERE tenant_id = NEW.tenant_id);
BEGIN
    IF NOT spotter_notified_today(NEW.coach_id, NEW.tenant_id, 'client_left') THEN
        PERFORM spotter_notify(NEW.coach_id, NEW.tenant_id, 'client_left', NEW.link_id,
            format('%s ended coaching with you', lifter),
            format(E'%s ended your coaching on Spotter: you no longer see anything of theirs, and what you\n'
                   || E'assigned them is closed. Their place on your Clients page is free.\n', lifter));
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER notify_client_left AFTER UPDATE OF status ON coach_links
    FOR EACH ROW WHEN (OLD.status = 'active' AND NEW.status = 'ended' AND NEW.ended_by = 'lifter')
    EXECUTE FUNCTION spotter_notify_client_left();

-- 0065's withdrawal with the two kinds.
CREATE OR REPLACE FUNCTION spotter_withdraw_stale_notifications() RETURNS integer
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    withdrawn integer;
BEGIN
    DELETE FROM email_outbox o
    WHERE o.status = 'pending' AND o.sender_id IS NOT NULL AND (
        NOT (SELECT t.email_notifications FROM tenants t WHERE t.tenant_id = o.tenant_id)
        OR (o.kind IN ('workout_comment', 'workout_reply') AND NOT EXISTS (
            SELECT 1 FROM workout_comments c
            WHERE c.comment_id = o.about AND c.tenant_id IN (o.tenant_id, o.sender_id)))
        OR (o.kind = 'workout_reply' AND NOT EXISTS (
            SELECT 1 FROM coach_links l
            WHERE l.tenant_id = o.sender_id AND l.coach_id = o.tenant_id AND l.status = 'active'
              AND 'details' = ANY (l.scopes) AND spotter_link_covered(l.tenant_id, l.coach_id)))
        OR (o.kind IN ('coach_request', 'coach_invitation') AND NOT EXISTS (
            SELECT 1 FROM coach_links l WHERE l.link_id = o.about AND l.status = 'pending'))
        OR (o.kind IN ('client_joined', 'coach_accepted', 'client_accepted') AND NOT EXISTS (
            SELECT 1 FROM coach_links l WHERE l.link_id = o.about AND l.status = 'active'))
        OR (o.kind = 'plan_assigned' AND NOT EXISTS (
            SELECT 1 FROM assignments a
            JOIN coach_links l ON l.tenant_id = a.lifter_id AND l.coach_id = a.tenant_id AND l.status = 'active'
            WHERE a.tenant_id = o.sender_id AND a.assignment_id = o.about AND a.removed_at IS NULL))
        OR (o.kind = 'client_left' AND EXISTS (
            SELECT 1 FROM coach_links l
            WHERE l.tenant_id = o.sender_id AND l.coach_id = o.tenant_id AND l.status = 'active')));
    GET DIAGNOSTICS withdrawn = ROW_COUNT;
    RETURN withdrawn;
END
$$;
