-- Upgrade 18 -> 19: lookups on every authenticated request.

-- HTTP Basic credentials name a user by API key: without this, each request scanned `users`.
CREATE INDEX users_api_key ON users (api_key);
