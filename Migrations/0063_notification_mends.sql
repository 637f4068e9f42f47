-- E-mail notifications (0060), mended after a walk-through.
--
-- * A coach whose tier no longer covers a client (the client is "paused": CoachEntitlements.covers,
--   clients counted in the order they joined) was still e-mailed the client's replies, words the
--   coach may not read in the app. `spotter_link_covered` tells, as spotterd does, and the reply
--   goes only to coaches who cover the client. The limits per tier are CoachEntitlements'
--   (`clientLimit`); a test holds the two alike.
-- * An e-mail greets its recipient by their name (as it names its sender), says what is shared in
--   words ("every set", not "details"), and says plainly how to stop them.

CREATE FUNCTION spotter_coach_client_limit(tier text, expires timestamptz) RETURNS integer
LANGUAGE sql STABLE
AS $$
    SELECT CASE WHEN expires IS NOT NULL AND expires <= now() THEN 1
                WHEN tier = 'coach_pro' THEN 200 WHEN tier = 'coach' THEN 20 ELSE 1 END
$$;

-- Whether the coach's tier covers this active link (the link is not paused).
CREATE FUNCTION spotter_link_covered(lifter uuid, coach uuid) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
    SELECT (SELECT count(*) FROM coach_links o
            WHERE o.coach_id = l.coach_id AND o.status = 'active'
              AND (coalesce(o.responded_at, o.created_at), o.link_id)
                  < (coalesce(l.responded_at, l.created_at), l.link_id))
           < spotter_coach_client_limit(t.tier, t.tier_expires_at)
    FROM coach_links l JOIN tenants t ON t.tenant_id = l.coach_id
    WHERE l.tenant_id = lifter AND l.coach_id = coach AND l.status = 'active'
$$;
REVOKE ALL ON FUNCTION spotter_link_covered(uuid, uuid) FROM PUBLIC;

-- The scopes in words, as the app's sharing screen names them.
CREATE FUNCTION spotter_scope_words(scopes text[]) RETURNS text
LANGUAGE sql IMMUTABLE
AS $$
    SELECT coalesce(string_agg(CASE s WHEN 'history' THEN 'workout names and dates'
                                      WHEN 'details' THEN 'every set'
                                      WHEN 'progress' THEN 'progress and statistics'
                                      WHEN 'body' THEN 'body measurements' ELSE s END,
                               ', ' ORDER BY array_position(ARRAY['history', 'details', 'progress', 'body'], s)),
                    'nothing yet')
    FROM unnest(scopes) AS s
$$;

CREATE OR REPLACE FUNCTION spotter_notify(recipient uuid, sender uuid, kind text, about uuid, subject text, body text)
RETURNS void
LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
    -- Parameters by the function's name: `kind` and `recipient` are columns too.
    INSERT INTO email_outbox (tenant_id, message_id, kind, recipient, subject, body, sender_id, about)
    SELECT a.tenant_id, gen_random_uuid(), spotter_notify.kind, a.email, spotter_notify.subject,
           format(E'Hi %s,\n\n', t.display_name) || spotter_notify.body
               || E'\n--\nYou get this e-mail because e-mail notifications are on in your Spotter profile.\n'
               || E'To stop them, untick "E-mail me coaching news" on the Profile page of the portal, or\n'
               || E'turn them off in the app.\n',
           spotter_notify.sender, spotter_notify.about
    FROM accounts a JOIN tenants t ON t.tenant_id = a.tenant_id
    WHERE a.tenant_id = spotter_notify.recipient AND t.email_notifications AND a.email_verified_at IS NOT NULL
      AND a.status = 'active'
$$;

CREATE OR REPLACE FUNCTION spotter_notify_link() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    lifter text := (SELECT display_name FROM tenants WHERE tenant_id = NEW.tenant_id);
    coach text := (SELECT display_name FROM tenants WHERE tenant_id = NEW.coach_id);
    shared text := spotter_scope_words(NEW.scopes);
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

CREATE OR REPLACE FUNCTION spotter_notify_comment() RETURNS trigger
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
    -- Coaches who commented on this workout, still coach the lifter with the details scope, and
    -- whose tier covers the lifter: the ones who may read the reply in the app.
    FOR coach IN
        SELECT DISTINCT c.author_id FROM workout_comments c
        JOIN coach_links l ON l.tenant_id = c.tenant_id AND l.coach_id = c.author_id AND l.status = 'active'
                          AND 'details' = ANY (l.scopes)
        WHERE c.tenant_id = NEW.tenant_id AND c.workout_id = NEW.workout_id AND c.author_id <> NEW.tenant_id
          AND spotter_link_covered(c.tenant_id, c.author_id)
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
