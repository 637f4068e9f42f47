-- 0069 after a review: an earlier request or invitation holds the next one back only when its own
-- e-mail (a coach_request to the coach, a coach_invitation to the lifter) went out. 0069 counted any
-- e-mail about the earlier link, so a coach's sent "joined you" e-mail about an invite code held back
-- her later invitation, which the lifter never got; and it joined the outbox without the recipient,
-- which its index (tenant_id, about, created_at) needs, so every request read the whole outbox.
-- The body scope in words is the portal's too: "body weight and measurements".
CREATE OR REPLACE FUNCTION spotter_asked_lately(link coach_links) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
    SELECT EXISTS (
        SELECT 1 FROM coach_links o
        JOIN email_outbox e
          ON e.tenant_id = CASE (link).requested_by WHEN 'lifter' THEN (link).coach_id ELSE (link).tenant_id END
         AND e.about = o.link_id AND e.status = 'sent'
         AND e.kind = CASE (link).requested_by WHEN 'lifter' THEN 'coach_request' ELSE 'coach_invitation' END
        WHERE o.tenant_id = (link).tenant_id AND o.coach_id = (link).coach_id AND o.link_id <> (link).link_id
          AND o.requested_by = (link).requested_by AND o.created_at > now() - interval '1 day')
$$;

CREATE OR REPLACE FUNCTION spotter_scope_words(scopes text[]) RETURNS text
LANGUAGE sql IMMUTABLE
AS $$
    SELECT coalesce(string_agg(CASE s WHEN 'history' THEN 'workout names, dates and durations'
                                      WHEN 'details' THEN 'every set'
                                      WHEN 'progress' THEN 'progress and statistics'
                                      WHEN 'body' THEN 'body weight and measurements' ELSE s END,
                               ', ' ORDER BY array_position(ARRAY['history', 'details', 'progress', 'body'], s)),
                    'nothing yet')
    FROM unnest(scopes) AS s
$$;
