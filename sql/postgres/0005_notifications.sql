-- Watchlist notifications (SERVICE.md, Events): account-wide delivery settings and a durable
-- outbox. Outbox rows are written in the same transaction as the indexer's checkpoint, so an
-- indexed event is never lost; (event_id, channel) is unique, so it is never enqueued twice.
-- Deleting a watchlist entry or an account deletes its rows: they are not sent.

CREATE TABLE IF NOT EXISTS notification_settings (
  user_id bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  webhook_url text,
  -- The HMAC key; shown once when set or rotated. Needed in clear to sign deliveries.
  webhook_secret text,
  webhook_set_at timestamptz,
  -- Where e-mails go; NULL = the account's own e-mail address.
  email text,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS notification_outbox (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id text NOT NULL,
  channel text NOT NULL CHECK (channel IN ('webhook', 'email')),
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- NULL for a test delivery asked for by the owner.
  watchlist_id bigint REFERENCES watchlist (id) ON DELETE CASCADE,
  kind text NOT NULL,
  direction text NOT NULL,
  block_number bigint NOT NULL,
  payload jsonb NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled')),
  attempts integer NOT NULL DEFAULT 0,
  next_at timestamptz NOT NULL DEFAULT now(),
  last_error text,
  last_status integer,
  created_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz,
  UNIQUE (event_id, channel)
);
CREATE INDEX IF NOT EXISTS notification_outbox_due ON notification_outbox (next_at) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS notification_outbox_user ON notification_outbox (user_id, created_at DESC);
CREATE INDEX IF NOT EXISTS notification_outbox_block ON notification_outbox (block_number) WHERE status = 'pending';

-- Every change of a watchlist entry reaches every process's in-memory matcher.
CREATE OR REPLACE FUNCTION notify_watchlist_change() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('watchlist_changed', json_build_object(
    'op', TG_OP,
    'id', CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END,
    'user_id', CASE WHEN TG_OP = 'DELETE' THEN OLD.user_id ELSE NEW.user_id END)::text);
  RETURN NULL;
END
$$ LANGUAGE plpgsql;

DROP TRIGGER IF EXISTS watchlist_changed ON watchlist;
CREATE TRIGGER watchlist_changed AFTER INSERT OR UPDATE OR DELETE ON watchlist
  FOR EACH ROW EXECUTE FUNCTION notify_watchlist_change();
