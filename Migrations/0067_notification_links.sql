-- A coaching notification links to the portal page it is about. The triggers cannot know the
-- portal's address (SPOTTER_PUBLIC_URL is spotterd's setting), so an e-mail stores the page's path
-- and the mailer puts the address in front of it when it sends (`MailDelivery`):
--
-- * a request to coach them, to a coach: the Clients page, where it is accepted or declined;
-- * a client who joined or accepted, to a coach: that client's page;
-- * a lifter's words under a workout, to a coach: that workout's page, at its comments;
-- * an invitation, or a request accepted, to a lifter: the Coaches page, where the scopes are.
--
-- A coach's comment, to a lifter, has no page in the portal (the app shows the thread): no link.

ALTER TABLE email_outbox ADD COLUMN link_path text
    CHECK (link_path IS NULL OR (link_path LIKE '/%' AND length(link_path) <= 200));

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
               WHEN 'workout_reply' THEN (
                   SELECT format('/clients/%s/workouts/%s#comments', c.tenant_id, c.workout_id)
                   FROM workout_comments c
                   WHERE c.tenant_id = spotter_notify.sender AND c.comment_id = spotter_notify.about)
               WHEN 'coach_invitation' THEN '/coaches'
               WHEN 'coach_accepted' THEN '/coaches'
           END
    FROM accounts a JOIN tenants t ON t.tenant_id = a.tenant_id
    WHERE a.tenant_id = spotter_notify.recipient AND t.email_notifications AND a.email_verified_at IS NOT NULL
      AND a.status = 'active'
$$;
