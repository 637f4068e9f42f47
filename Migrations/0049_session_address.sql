-- Where a session signed in from: the client's network address at sign-in (behind a trusted proxy,
-- the forwarded one), so an owner can tell two sessions of the same app apart and spot one that is
-- not theirs (AuthService/ListSessions, the portal's Password and sign-ins). Sessions are deleted a
-- day after they end (0037_credential_retention.sql), and the address with them. Older sessions
-- have none.

ALTER TABLE sessions ADD COLUMN sign_in_address text CHECK (length(sign_in_address) <= 100);
