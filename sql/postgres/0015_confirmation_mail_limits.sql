-- Confirmation codes issued for chosen notification addresses (PUT /user/notification-settings/email),
-- so that the mails per recipient and the codes per account over a window are limited across all
-- API replicas (src/notify/routes.ts says the limits). One row per code issued; `mailed` false: the
-- recipient's limit was reached and the code was kept but not sent. The recipient is a sha256 of
-- the address as the limit counts it (lower case, no +tag), so no address outlives its account
-- here; user_id is cleared when the account is deleted, and the row still counts for its
-- recipient. Rows older than the window are deleted as new ones are written.
CREATE TABLE IF NOT EXISTS notification_email_codes_sent (
  recipient_sha256 text NOT NULL,
  user_id bigint REFERENCES users (id) ON DELETE SET NULL,
  sent_at timestamptz NOT NULL,
  mailed boolean NOT NULL
);
CREATE INDEX IF NOT EXISTS notification_email_codes_sent_recipient ON notification_email_codes_sent (recipient_sha256, sent_at);
CREATE INDEX IF NOT EXISTS notification_email_codes_sent_user ON notification_email_codes_sent (user_id, sent_at);
CREATE INDEX IF NOT EXISTS notification_email_codes_sent_at ON notification_email_codes_sent (sent_at);
