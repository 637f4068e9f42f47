-- E-mail notifications (0060, 0063), after a review.
--
-- * A notification still waiting to be sent is withdrawn when what it says no longer holds: its
--   comment was deleted, the request was answered or withdrawn, the link ended, the coach lost the
--   details scope or the tier's cover, or the recipient turned notifications off. The mailer calls
--   `spotter_withdraw_stale_notifications()` before it claims messages (an SMTP outage can keep
--   them waiting for hours). A comment e-mail now names its comment (`about`), not the workout.
-- * A lifter's reply e-mailed to a coach is a read of the lifter's words: it is written to the
--   lifter's access log (method ReplyEmail, the workout), as ListClientComments would be.
-- * The hourly limit on comment e-mails is per sender too (a second coach's comment was never
--   sent), taken under a lock on the recipient and workout (two comments at once sent two).
-- * A request or an invitation is e-mailed once a day for the same pair and side (asking,
--   withdrawing and asking again sent one each time); a join or an acceptance once a day too.
-- * The link trigger fires only on insert and on pending → active (it ran on every scope change).
-- * Texts: a request "offers to share"; a reply's subject says where it was written; pages are said
--   as the app's or the portal's; the coach_left notice (0052) greets by name as the others do.

-- Whether `recipient` was e-mailed by `sender` about a comment on `workout` in the last hour. Locks
-- the (recipient, workout) pair for the transaction first. (It replaces spotter_notified_lately.)
CREATE FUNCTION spotter_comment_notified_lately(recipient uuid, sender uuid, workout uuid) RETURNS boolean
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(
        hashtext('notify:' || spotter_comment_notified_lately.recipient::text || ':' || workout::text));
    RETURN EXISTS (
        SELECT 1 FROM email_outbox o
        JOIN workout_comments c ON c.comment_id = o.about AND c.tenant_id IN (o.tenant_id, o.sender_id)
        WHERE o.tenant_id = spotter_comment_notified_lately.recipient
          AND o.sender_id = spotter_comment_notified_lately.sender AND c.workout_id = workout
          AND o.kind IN ('workout_comment', 'workout_reply') AND o.created_at > now() - interval '1 hour');
END
$$;
REVOKE ALL ON FUNCTION spotter_comment_notified_lately(uuid, uuid, uuid) FROM PUBLIC;

-- Whether the same side asked the same pair within the last day before this link: a request
-- withdrawn and made again is e-mailed once (its e-mail may be withdrawn too, so the links tell).
CREATE FUNCTION spotter_asked_lately(link coach_links) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
    SELECT EXISTS (
        SELECT 1 FROM coach_links o
        WHERE o.tenant_id = (link).tenant_id AND o.coach_id = (link).coach_id AND o.link_id <> (link).link_id
          AND o.requested_by = (link).requested_by AND o.created_at > now() - interval '1 day')
$$;
REVOKE ALL ON FUNCTION spotter_asked_lately(coach_links) FROM PUBLIC;

-- Whether `recipient` was e-mailed a `kind` notification by `sender` in the last day.
CREATE FUNCTION spotter_notified_today(recipient uuid, sender uuid, kind text) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
    SELECT EXISTS (
        SELECT 1 FROM email_outbox o
        WHERE o.tenant_id = spotter_notified_today.recipient AND o.sender_id = spotter_notified_today.sender
          AND o.kind = spotter_notified_today.kind AND o.created_at > now() - interval '1 day')
$$;
REVOKE ALL ON FUNCTION spotter_notified_today(uuid, uuid, text) FROM PUBLIC;

CREATE OR REPLACE FUNCTION spotter_notify_link() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    lifter text := (SELECT display_name FROM tenants WHERE tenant_id = NEW.tenant_id);
    coach text := (SELECT display_name FROM tenants WHERE tenant_id = NEW.coach_id);
    shared text := spotter_scope_words(NEW.scopes);
BEGIN
    IF TG_OP = 'INSERT' AND NEW.status = 'pending' AND NEW.requested_by = 'lifter' THEN
        IF NOT spotter_asked_lately(NEW) THEN
            PERFORM spotter_notify(NEW.coach_id, NEW.tenant_id, 'coach_request', NEW.link_id,
                format('%s asked you to coach them', lifter),
                format(E'%s asked you to coach them on Spotter, offering to share: %s.\n\n'
                       || E'Accept or decline on the Clients page of the Spotter portal.\n', lifter, shared));
        END IF;
    ELSIF TG_OP = 'INSERT' AND NEW.status = 'pending' THEN
        IF NOT spotter_asked_lately(NEW) THEN
            PERFORM spotter_notify(NEW.tenant_id, NEW.coach_id, 'coach_invitation', NEW.link_id,
                format('%s asked to coach you', coach),
                format(E'%s, a coach on Spotter, asked to coach you.\n\n'
                       || E'Accept, choosing what they may see, or decline: in the app, or on the Coaches page\n'
                       || E'of the Spotter portal. Nothing of yours is shared until you accept.\n', coach));
        END IF;
    ELSIF TG_OP = 'INSERT' AND NEW.status = 'active' THEN
        IF NOT spotter_notified_today(NEW.coach_id, NEW.tenant_id, 'client_joined') THEN
            PERFORM spotter_notify(NEW.coach_id, NEW.tenant_id, 'client_joined', NEW.link_id,
                format('%s joined you as a client', lifter),
                format(E'%s joined you on Spotter with one of your invite codes, sharing: %s.\n\n'
                       || E'They are on the Clients page of the Spotter portal.\n', lifter, shared));
        END IF;
    ELSIF TG_OP = 'UPDATE' AND NEW.requested_by = 'lifter' THEN
        IF NOT spotter_notified_today(NEW.tenant_id, NEW.coach_id, 'coach_accepted') THEN
            PERFORM spotter_notify(NEW.tenant_id, NEW.coach_id, 'coach_accepted', NEW.link_id,
                format('%s is now your coach', coach),
                format(E'%s accepted your request and now coaches you on Spotter, seeing: %s.\n\n'
                       || E'You can change what they see, or end the coaching: in the app, or on the Coaches\n'
                       || E'page of the Spotter portal.\n', coach, shared));
        END IF;
    ELSIF TG_OP = 'UPDATE' THEN
        IF NOT spotter_notified_today(NEW.coach_id, NEW.tenant_id, 'client_accepted') THEN
            PERFORM spotter_notify(NEW.coach_id, NEW.tenant_id, 'client_accepted', NEW.link_id,
                format('%s accepted your invitation', lifter),
                format(E'%s accepted your invitation and is now your client on Spotter, sharing: %s.\n\n'
                       || E'They are on the Clients page of the Spotter portal.\n', lifter, shared));
        END IF;
    END IF;
    RETURN NULL;
END
$$;
DROP TRIGGER notify_link ON coach_links;
CREATE TRIGGER notify_link AFTER INSERT ON coach_links
    FOR EACH ROW EXECUTE FUNCTION spotter_notify_link();
CREATE TRIGGER notify_link_accepted AFTER UPDATE OF status ON coach_links
    FOR EACH ROW WHEN (OLD.status = 'pending' AND NEW.status = 'active') EXECUTE FUNCTION spotter_notify_link();

CREATE OR REPLACE FUNCTION spotter_notify_comment() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    author text := (SELECT display_name FROM tenants WHERE tenant_id = NEW.author_id);
    workout text := coalesce(
        (SELECT name FROM workouts WHERE tenant_id = NEW.tenant_id AND workout_id = NEW.workout_id), 'a workout');
    coach uuid;
BEGIN
    IF NEW.author_id <> NEW.tenant_id THEN
        IF NOT spotter_comment_notified_lately(NEW.tenant_id, NEW.author_id, NEW.workout_id) THEN
            PERFORM spotter_notify(NEW.tenant_id, NEW.author_id, 'workout_comment', NEW.comment_id,
                format('%s commented on your workout “%s”', author, workout),
                format(E'%s commented on your workout “%s”:\n\n%s\n\n'
                       || E'The app shows the whole thread under the workout, where you can reply.\n',
                       author, workout, NEW.body));
        END IF;
        RETURN NULL;
    END IF;
    -- Coaches who commented on this workout, still coach the lifter with the details scope, and
    -- whose tier covers the lifter: the ones who may read the reply in the app.
    FOR coach IN
        SELECT DISTINCT c.author_id FROM workout_comments c
        JOIN coach_links l ON l.tenant_id = c.tenant_id AND l.coach_id = c.author_id AND l.status = 'active'
                          AND 'details' = ANY (l.scopes)
        WHERE c.tenant_id = NEW.tenant_id AND c.workout_id = NEW.workout_id AND c.author_id <> NEW.tenant_id
          AND spotter_link_covered(c.tenant_id, c.author_id)
    LOOP
        IF NOT spotter_comment_notified_lately(coach, NEW.tenant_id, NEW.workout_id) THEN
            PERFORM spotter_notify(coach, NEW.tenant_id, 'workout_reply', NEW.comment_id,
                format('%s wrote on their workout “%s”', author, workout),
                format(E'%s wrote on their workout “%s”, which you commented on:\n\n%s\n\n'
                       || E'The workout is on their page of the Spotter portal, with the whole thread.\n',
                       author, workout, NEW.body));
            -- The coach reads the lifter's words: the lifter's access log says so (when the e-mail
            -- was written: the coach may have turned notifications off).
            INSERT INTO coach_access_log (tenant_id, coach_id, accessed_at, data, method, workout_id)
            SELECT NEW.tenant_id, coach, now(), 'details', 'ReplyEmail', NEW.workout_id
            WHERE EXISTS (SELECT 1 FROM email_outbox o
                          WHERE o.tenant_id = coach AND o.about = NEW.comment_id AND o.kind = 'workout_reply');
        END IF;
    END LOOP;
    RETURN NULL;
END
$$;

-- Deletes the notifications waiting to be sent whose news no longer holds; returns how many.
CREATE FUNCTION spotter_withdraw_stale_notifications() RETURNS integer
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
            SELECT 1 FROM coach_links l WHERE l.link_id = o.about AND l.status = 'active')));
    GET DIAGNOSTICS withdrawn = ROW_COUNT;
    RETURN withdrawn;
END
$$;
REVOKE ALL ON FUNCTION spotter_withdraw_stale_notifications() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_withdraw_stale_notifications() TO spotter_mailer;

CREATE OR REPLACE FUNCTION spotter_tell_clients_coach_left(tenant uuid) RETURNS integer
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
                  t.display_name)
    FROM coach_links l
    JOIN accounts a ON a.tenant_id = l.tenant_id
    JOIN tenants t ON t.tenant_id = l.tenant_id
    WHERE l.coach_id = tenant AND l.status = 'active';
    GET DIAGNOSTICS told = ROW_COUNT;
    RETURN told;
END
$$;

DROP FUNCTION spotter_notified_lately(uuid, uuid);
