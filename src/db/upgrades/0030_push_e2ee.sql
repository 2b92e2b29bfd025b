-- Version 30: what Zulip's push notification service made of each end-to-end encrypted
-- registration (`POST /mobile_push/register`): the device id it gave when the registration was
-- forwarded (`bouncer_device_id`, which encrypted notify requests name), or the error code it
-- refused the registration with. A row exists from the registration's commit on; both columns
-- are empty while the forwarding call waits in the outbox.
CREATE TABLE push_e2ee_devices (
    user_id           INTEGER NOT NULL REFERENCES users (id),
    push_account_id   INTEGER NOT NULL,
    bouncer_device_id INTEGER,
    error_code        TEXT,
    updated_at        INTEGER NOT NULL,
    PRIMARY KEY (user_id, push_account_id)
) WITHOUT ROWID;
CREATE INDEX push_e2ee_devices_by_bouncer_id ON push_e2ee_devices (bouncer_device_id)
    WHERE bouncer_device_id IS NOT NULL;
