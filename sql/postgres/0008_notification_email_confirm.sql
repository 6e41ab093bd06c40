-- Confirmation of the notification e-mail address: watchlist e-mails go to an address chosen with
-- PUT /user/notification-settings/email only once its owner has entered the code mailed to it.
-- The account's own sign-in address (notification_settings.email NULL) needs no confirmation.
-- Addresses chosen before this migration have email_confirmed_at NULL: they are kept, and receive
-- nothing until their owner confirms them (PUT the address again for a code).

ALTER TABLE notification_settings
  -- When `email` was confirmed; NULL: not (yet) confirmed.
  ADD COLUMN IF NOT EXISTS email_confirmed_at timestamptz,
  -- The outstanding code for `email`: sha256(salt || code), as for the e-mailed sign-in codes.
  ADD COLUMN IF NOT EXISTS email_code_hash text,
  ADD COLUMN IF NOT EXISTS email_code_salt text,
  ADD COLUMN IF NOT EXISTS email_code_sent_at timestamptz,
  ADD COLUMN IF NOT EXISTS email_code_expires_at timestamptz,
  ADD COLUMN IF NOT EXISTS email_code_attempts integer NOT NULL DEFAULT 0;
