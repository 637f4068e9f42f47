-- 0072 after a review: a plan's e-mail was held back by an earlier one of the day that was still
-- waiting to be sent, which taking the earlier plan back then withdrew, so the lifter heard of
-- neither. As for requests (0069), only an earlier plan e-mail that went out holds the next back.
CREATE OR REPLACE FUNCTION spotter_notify_assignment() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    coach text := (SELECT display_name FROM tenants WHERE tenant_id = NEW.tenant_id);
    what text;
    plan text;
    how text;
BEGIN
    IF EXISTS (SELECT 1 FROM email_outbox o
               WHERE o.tenant_id = NEW.lifter_id AND o.sender_id = NEW.tenant_id AND o.kind = 'plan_assigned'
                 AND o.status = 'sent' AND o.created_at > now() - interval '1 day') THEN
        RETURN NULL;
    END IF;
    IF NEW.program_id IS NOT NULL THEN
        what := 'program';
        plan := (SELECT name FROM programs WHERE tenant_id = NEW.tenant_id AND program_id = NEW.program_id);
        how := 'Follow it in the app to see each day''s workout.';
    ELSE
        what := 'template';
        plan := (SELECT name FROM templates WHERE tenant_id = NEW.tenant_id AND template_id = NEW.template_id);
        how := 'Log a workout from it in the app.';
    END IF;
    PERFORM spotter_notify(NEW.lifter_id, NEW.tenant_id, 'plan_assigned', NEW.assignment_id,
        format('%s assigned you the %s “%s”', coach, what, plan),
        format(E'%s, your coach on Spotter, assigned you the %s “%s”%s\n\n%s\n',
               coach, what, plan,
               CASE WHEN NEW.note = '' THEN '.' ELSE format(E', with a note:\n\n%s', NEW.note) END, how));
    RETURN NULL;
END
$$;
