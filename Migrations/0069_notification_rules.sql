-- Coaching notifications: when a request is e-mailed, and the scopes in words.
--
-- A request or an invitation is e-mailed unless an earlier one of the same side for the same pair,
-- within the last day, was e-mailed: sent. Until now any earlier link of the last day held the
-- e-mail back, so
-- * a lifter asked while her address was unconfirmed, then confirmed and asked again, never heard
--   of the standing invitation; and
-- * a request withdrawn before its e-mail went out (the e-mail withdrawn with it), then made again,
--   was never e-mailed at all.
-- Asking, withdrawing and asking again still sends at most one e-mail a day once one has gone out;
-- one still waiting belongs to a link no longer open, and the mailer withdraws it.
CREATE OR REPLACE FUNCTION spotter_asked_lately(link coach_links) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
    SELECT EXISTS (
        SELECT 1 FROM coach_links o
        JOIN email_outbox e ON e.about = o.link_id AND e.sender_id IS NOT NULL AND e.status = 'sent'
        WHERE o.tenant_id = (link).tenant_id AND o.coach_id = (link).coach_id AND o.link_id <> (link).link_id
          AND o.requested_by = (link).requested_by AND o.created_at > now() - interval '1 day')
$$;

-- The history scope in words as the portal says it (Format.scopeLabel): durations are shared too.
CREATE OR REPLACE FUNCTION spotter_scope_words(scopes text[]) RETURNS text
LANGUAGE sql IMMUTABLE
AS $$
    SELECT coalesce(string_agg(CASE s WHEN 'history' THEN 'workout names, dates and durations'
                                      WHEN 'details' THEN 'every set'
                                      WHEN 'progress' THEN 'progress and statistics'
                                      WHEN 'body' THEN 'body measurements' ELSE s END,
                               ', ' ORDER BY array_position(ARRAY['history', 'details', 'progress', 'body'], s)),
                    'nothing yet')
    FROM unnest(scopes) AS s
$$;
