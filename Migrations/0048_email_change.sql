-- A signed-in owner changes the account's e-mail address (AuthService/ChangeEmail, the portal's
-- Password and sign-ins page). The change waits for the link e-mailed to the new address: a token of
-- purpose 'change_email' keeps the address it is for, and using it (AuthService/VerifyEmail, the
-- portal's /verify-email) makes that the account's address, verified. A password change or reset
-- ends the unused ones, so a change asked by someone who knew the old password does not outlive it.

ALTER TABLE account_tokens ADD COLUMN new_email text CHECK (length(new_email) <= 254);
ALTER TABLE account_tokens DROP CONSTRAINT account_tokens_purpose_check;
ALTER TABLE account_tokens ADD CONSTRAINT account_tokens_purpose_check
    CHECK (purpose IN ('verify_email', 'reset_password', 'change_email'));
ALTER TABLE account_tokens ADD CONSTRAINT account_tokens_new_email_for_change
    CHECK ((purpose = 'change_email') = (new_email IS NOT NULL));
