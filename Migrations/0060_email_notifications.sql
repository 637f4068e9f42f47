-- E-mail notifications: what happens in coaching while a coach or a lifter is away from the app.
--
-- Written into the recipient's outbox (the mailer sends it) when the recipient has e-mail
-- notifications on (tenants.email_notifications: on by default; UpdateProfile and the portal's
-- profile turn them off), a verified address and an active account:
--   * a lifter asks a coach, or a coach asks a lifter (a link created pending): to the one asked;
--   * a lifter joins a coach with the coach's invite code (a link created active): to the coach;
--   * a request is accepted (pending → active): to the one who asked;
--   * a coach comments on a lifter's workout: to the lifter; the lifter comments on a workout a
--     coach commented on: to each such coach who still coaches them and sees details. At most one
--     such e-mail an hour per workout and recipient: a coach going through a session set by set
--     sends one.
-- Triggers write them in the change's own transaction: an e-mail exists exactly when its change
-- does, and no role writes into another account's outbox itself. An e-mail names its sender, so
-- sender_id deletes it with the sender's erasure (erasure leaves nothing naming the erased, 0041);
-- `about` is the link or workout it is about.

ALTER TABLE tenants ADD COLUMN email_notifications boolean NOT NULL DEFAULT true;

ALTER TABLE email_outbox
    ADD COLUMN sender_id uuid REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    ADD COLUMN about uuid;
CREATE INDEX email_outbox_sender_idx ON email_outbox (sender_id);
CREATE INDEX email_outbox_about_idx ON email_outbox (tenant_id, about, created_at) WHERE about IS NOT NULL;

-- Writes one notification to `recipient` from `sender`, if the recipient takes them.
CREATE FUNCTION spotter_notify(recipient uuid, sender uuid, kind text, about uuid, subject text, body text)
RETURNS void
LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
    -- Parameters by the function's name: `kind` and `recipient` are columns too.
    INSERT INTO email_outbox (tenant_id, message_id, kind, recipient, subject, body, sender_id, about)
    SELECT a.tenant_id, gen_random_uuid(), spotter_notify.kind, a.email, spotter_notify.subject,
           format(E'Hi %s,\n\n', a.username) || spotter_notify.body
               || E'\n--\nYou get these e-mails while e-mail notifications are on in your Spotter profile;\n'
               || E'turn them off there, in the app or on the Profile page of the portal.\n',
           spotter_notify.sender, spotter_notify.about
    FROM accounts a JOIN tenants t ON t.tenant_id = a.tenant_id
    WHERE a.tenant_id = spotter_notify.recipient AND t.email_notifications AND a.email_verified_at IS NOT NULL
      AND a.status = 'active'
$$;
REVOKE ALL ON FUNCTION spotter_notify(uuid, uuid, text, uuid, text, text) FROM PUBLIC;

-- Whether `recipient` was sent a comment e-mail about `workout` in the last hour.
CREATE FUNCTION spotter_notified_lately(recipient uuid, workout uuid) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
    SELECT EXISTS (
        SELECT 1 FROM email_outbox o
        WHERE o.tenant_id = spotter_notified_lately.recipient AND o.about = spotter_notified_lately.workout
          AND o.kind IN ('workout_comment', 'workout_reply') AND o.created_at > now() - interval '1 hour')
$$;
REVOKE ALL ON FUNCTION spotter_notified_lately(uuid, uuid) FROM PUBLIC;

CREATE FUNCTION spotter_notify_link() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    lifter text := (SELECT display_name FROM tenants WHERE tenant_id = NEW.tenant_id);
    coach text := (SELECT display_name FROM tenants WHERE tenant_id = NEW.coach_id);
    shared text := coalesce(nullif(array_to_string(NEW.scopes, ', '), ''), 'nothing yet');
BEGIN
    IF TG_OP = 'INSERT' AND NEW.status = 'pending' AND NEW.requested_by = 'lifter' THEN
        PERFORM spotter_notify(NEW.coach_id, NEW.tenant_id, 'coach_request', NEW.link_id,
            format('%s asked you to coach them', lifter),
            format(E'%s asked you to coach them on Spotter, sharing: %s.\n\n'
                   || E'Accept or decline on the Clients page of the Spotter portal.\n', lifter, shared));
    ELSIF TG_OP = 'INSERT' AND NEW.status = 'pending' THEN
        PERFORM spotter_notify(NEW.tenant_id, NEW.coach_id, 'coach_invitation', NEW.link_id,
            format('%s asked to coach you', coach),
            format(E'%s, a coach on Spotter, asked to coach you.\n\n'
                   || E'Accept, choosing what they may see, or decline in the app or on the Coaches page of\n'
                   || E'the Spotter portal. Nothing of yours is shared until you accept.\n', coach));
    ELSIF TG_OP = 'INSERT' AND NEW.status = 'active' THEN
        PERFORM spotter_notify(NEW.coach_id, NEW.tenant_id, 'client_joined', NEW.link_id,
            format('%s joined you as a client', lifter),
            format(E'%s joined you on Spotter with one of your invite codes, sharing: %s.\n\n'
                   || E'They are on the Clients page of the Spotter portal.\n', lifter, shared));
    ELSIF TG_OP = 'UPDATE' AND OLD.status = 'pending' AND NEW.status = 'active' THEN
        IF NEW.requested_by = 'lifter' THEN
            PERFORM spotter_notify(NEW.tenant_id, NEW.coach_id, 'coach_accepted', NEW.link_id,
                format('%s is now your coach', coach),
                format(E'%s accepted your request and now coaches you on Spotter, seeing: %s.\n\n'
                       || E'You can change what they see, or end the coaching, on the Coaches page.\n',
                       coach, shared));
        ELSE
            PERFORM spotter_notify(NEW.coach_id, NEW.tenant_id, 'client_accepted', NEW.link_id,
                format('%s accepted your invitation', lifter),
                format(E'%s accepted your invitation and is now your client on Spotter, sharing: %s.\n\n'
                       || E'They are on the Clients page of the Spotter portal.\n', lifter, shared));
        END IF;
    END IF;
    RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION spotter_notify_link() FROM PUBLIC;
CREATE TRIGGER notify_link AFTER INSERT OR UPDATE OF status ON coach_links
    FOR EACH ROW EXECUTE FUNCTION spotter_notify_link();

CREATE FUNCTION spotter_notify_comment() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    author text := (SELECT display_name FROM tenants WHERE tenant_id = NEW.author_id);
    workout text := (SELECT name FROM workouts WHERE tenant_id = NEW.tenant_id AND workout_id = NEW.workout_id);
    coach uuid;
BEGIN
    IF NEW.author_id <> NEW.tenant_id THEN
        IF NOT spotter_notified_lately(NEW.tenant_id, NEW.workout_id) THEN
            PERFORM spotter_notify(NEW.tenant_id, NEW.author_id, 'workout_comment', NEW.workout_id,
                format('%s commented on your workout “%s”', author, workout),
                format(E'%s commented on your workout “%s”:\n\n%s\n\n'
                       || E'The app shows the whole thread under the workout, where you can reply.\n',
                       author, workout, NEW.body));
        END IF;
        RETURN NULL;
    END IF;
    FOR coach IN
        SELECT DISTINCT c.author_id FROM workout_comments c
        JOIN coach_links l ON l.tenant_id = c.tenant_id AND l.coach_id = c.author_id AND l.status = 'active'
                          AND 'details' = ANY (l.scopes)
        WHERE c.tenant_id = NEW.tenant_id AND c.workout_id = NEW.workout_id AND c.author_id <> NEW.tenant_id
    LOOP
        IF NOT spotter_notified_lately(coach, NEW.workout_id) THEN
            PERFORM spotter_notify(coach, NEW.tenant_id, 'workout_reply', NEW.workout_id,
                format('%s replied on “%s”', author, workout),
                format(E'%s wrote on their workout “%s”, which you commented on:\n\n%s\n\n'
                       || E'The workout is on their page of the Spotter portal, with the whole thread.\n',
                       author, workout, NEW.body));
        END IF;
    END LOOP;
    RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION spotter_notify_comment() FROM PUBLIC;
CREATE TRIGGER notify_comment AFTER INSERT ON workout_comments
    FOR EACH ROW EXECUTE FUNCTION spotter_notify_comment();
