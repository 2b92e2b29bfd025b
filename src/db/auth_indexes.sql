-- Lookups on every authenticated request (schema version 19). Applied after the earlier files
-- to a new database and by the upgrade from version 18.

-- HTTP Basic credentials name a user by API key: without this, each request scanned `users`.
CREATE INDEX users_api_key ON users (api_key);
