//! Outpost: a self-hosted server speaking Zulip's chat REST API and, on its own listener, part
//! of OWASP Dependency-Track's, built as one executable over one SQLite file.
//!
//! # Bird's-eye view
//!
//! A request arrives on a listener ([`http::server`]), which gives it a request id and a
//! tracing span and asks that listener's API ([`listeners`]) to admit it from the head alone:
//! the chat listener resolves the path among the web client's pages ([`web`]) and then in the
//! chat API's ([`zulip`]) one route table, and authenticates the caller as the endpoint's row
//! says, which also sets the request's body limit. Only then does the listener read the body
//! (within that limit and the body timeout) and hand the request back to the API, which parses parameters
//! and calls a domain function ([`domain`]). Domain functions read through
//! the read pool and write through the single writer thread ([`db`]); each write commits in a
//! group-commit batch, then its events go to the [`events`] hub in commit order, and only then is
//! the request answered. The wire module renders the result in Zulip's envelope.
//!
//! Real-time: the hub numbers every event and passes it, in order, to one delivery task
//! (`zulip::delivery`), which renders each event once per shape and appends it to the event
//! queues ([`events::queues`], in memory) of the users who may see it, where the queue's narrow
//! (resolved once at `POST /register`, `domain::messages::narrow_events`) accepts it. `GET /events`
//! (`zulip::realtime`) waits on a queue without consuming it; the client's next
//! `last_event_id` prunes what it has seen. A parked poll holds no timer of its own: one periodic
//! pass over the queue table (started in [`app`]) gives due polls their heartbeat, and shutdown
//! sets the stop signal, then wakes every poll through the table; once the listeners drained
//! and delivery caught up, the queues are saved for the next start (`events::snapshot`). The heartbeat pass, the idle
//! queue sweep and the rate-limit prune take `now` as a parameter; only the timer tasks in
//! [`app`] read the clock, so tests pass explicit times instead of sleeping.
//!
//! The Dependency-Track API ([`dtrack`]) follows the same path on its own listener
//! (`listeners::dtrack`): its route
//! table names each endpoint's permission, credentials are checked (API keys through a cache
//! that is invalidated by every Dependency-Track write), and handlers call the rules in
//! [`domain::dtrack`]. Accepted BOM uploads are stored first and imported by a background
//! worker started with the listener. Vulnerability data comes from OSV exports imported by
//! `outpost dtrack import-osv` and NVD CVE JSON 2.0 files imported by `outpost dtrack
//! import-nvd` (`domain::dtrack::nvd`); the internal analyzer (`domain::dtrack::osv`) matches
//! components against it (by purl, and by CPE under `domain::dtrack::cpe`'s rules) in the
//! same transaction as every change that could alter a match.
//!
//! # Code map
//!
//! - [`acme`]: certificates over ACME for a listener with `[<listener>.acme]` (through
//!   `instant-acme`): the account and certificate files under `<data_dir>/acme/<listener>/`
//!   (`acme/deptrack/` of older installs renamed to `acme/dtrack/` at start),
//!   the renewal decision (`decide`: order when missing, not for every name, or under 30 days
//!   left), the order with the TLS-ALPN-01 challenge answered by the listener's `http::tls`,
//!   and the renewal task started in [`app`] that retries with back-off and stops with the
//!   shutdown signal.
//! - [`app`]: the composition root: opens the domain's `Core` and builds each listener's state
//!   from it (`zulip::ChatState`, `dtrack::DtrackState`, `listeners::metrics::MetricsState`,
//!   sharing rate limits, counters and the shutdown signal), the [`listeners`] over them
//!   (with the web client's files, `web::assets`), startup and shutdown, and
//!   `app::tasks`, the one list of background tasks (`tasks::spawn`) with the timer tasks.
//! - [`cli`]: the `outpost` command line (`serve`, with its process signals in `cli::signals`,
//!   `push register` in `cli::push`, `check-config`, `create-user`,
//!   `dtrack create-team`, `dtrack import-osv`, `dtrack import-nvd`, `dtrack import-epss`, `backup`, `restore`); [`restore`] does the file work of
//!   `outpost restore` (checks in `db::migrate::verify_restorable`), and [`data_lock`] is the
//!   data directory's lock a running server holds.
//! - [`config`]: the typed `Config` and its defaults (`config/mod.rs`); `config::load` turns
//!   TOML into a validated `Config` with every problem reported at once (walking the document
//!   key by key in `config::walker`), reading the old `[deptrack]` as `[dtrack]` with a
//!   warning; `config::listeners` checks the listeners' TLS and ACME settings (reading the PEM
//!   files through [`pem`], so a bad certificate, key or CA file is reported at load);
//!   `config::proxy_env` holds the process environment's outgoing proxies as curl reads them
//!   (`ProxyEnv`, in `Config::proxy`: the command line does the one read of the environment);
//!   `config::render` prints the redacted dump and `config.example.toml`. Each key is one row
//!   of the catalogue in `config::keys`, which drives all of these; the rows sit in one file
//!   per table (`config::keys::storage`, `config::keys::chat`, `config::keys::dtrack`,
//!   `config::keys::metrics`, `config::keys::limits`, `config::keys::events`,
//!   `config::keys::email`, `config::keys::push`, `config::keys::bots`, `config::keys::log`),
//!   assembled in catalogue order in `config/keys/mod.rs`.
//! - [`db`]: the storage engine (writer thread with group commit, read pool, CPU pool, and the
//!   one document thread that parses uploaded BOMs and VEX) and all
//!   SQL, one submodule per area (a message's surroundings one idea each: `messages`,
//!   `conversations`, `message_flags`, `reactions`, `message_edits`, `topics`, and the narrow
//!   and access SQL in `message_narrows`). The schema is `schema.sql` (repository root, compiled
//!   in): a new database is created from it alone. `db::upgrade` holds the upgrade steps, one
//!   file per version in `src/db/upgrades/`; `db::migrate` opens a file and creates or upgrades
//!   it. DDL lives only in those files. **Invariant:** no other module opens a connection or
//!   writes SQL, and `db` never sees HTTP types, builds no JSON, nor imports `domain`: it reads
//!   and writes `model` records.
//! - [`domain`]: the rules (permissions, invariants) shared by every entry point. **Invariant:**
//!   no HTTP, no wire JSON, no SQL text, no import of `zulip`, `dtrack`, `web`, `http` or
//!   `app`. Domain functions take `&Core` ([`domain::core`]: config, database, the user,
//!   newest-message and profile caches, login limiter, Dependency-Track state, mailer, form and
//!   URL keys, image permit, scheduler and webhook wakes, event hub), which the server and the
//!   command line each open; `domain::core::OnCommit` is the commit hook, which says which
//!   event invalidates which cache before the events reach the hub.
//!   [`domain::dtrack`] holds Dependency-Track's: identity (bootstrap,
//!   logins, JWTs, `odt_` keys), portfolio and ACL, the further project rules (`projects`:
//!   PATCH, clones, latest/children listings, properties, with `sealed` for ENCRYPTEDSTRING
//!   values), findings and analyses with their audit trail, policies and their evaluation,
//!   metrics (project, component and portfolio history kept as upstream keeps it;
//!   collections aggregate their children) and badge facts, BOM acceptance and
//!   import, exports and VEX import (`exchange`, `vex`; XML within `xml_bounds`, checked in
//!   one linear pass before parsing), OSV data (`osv`: record reading and severity,
//!   ecosystems, package URLs, distribution releases, OSV's evaluation algorithm, streaming
//!   zip import, the scheduled fetch, the internal analyzer, which also matches CPEs;
//!   downloads go through `domain::dtrack::http_get`: `ureq` with the environment's proxies,
//!   redirects checked hop by hop), NVD data (`nvd`: the streamed, incremental import of CVE
//!   JSON 2.0 files) and CPE names with their matching rules (`cpe`) over
//!   per-ecosystem version comparators and a generic order (`versions`), the evaluation state of every component
//!   (`domain::dtrack::evaluation`: findings, clean, or not evaluated with a reason, over the
//!   ecosystems and releases the imported data covers), and the per-process state (signing key,
//!   system UUID, generation-checked caches).
//!   [`domain::settings`] is the catalogue of personal settings (types, defaults, allowed
//!   values) behind `PATCH /settings` and the `user_settings` register state;
//!   [`domain::realm_settings`] holds the organization settings behind `PATCH /realm` and
//!   register's `realm_*` keys: the catalogue of names, types and defaults (`catalogue`),
//!   parsing and storing values (`values`), typed reads for the rules that depend on them
//!   (`reads`) and the update rules (`update`).
//!   [`domain::channels`] holds the channel rules (`access`, `values`, `creation`,
//!   `subscriptions`, `listing`, `updates`); [`domain::user_groups`] the user groups: the one
//!   answer to whether a user holds a group-setting value (`permission`: `holds` through nested
//!   subgroups, cached per write generation, and `holds_realm` for organization permissions),
//!   the checks that refuse a request (`checks`), reads (`listing`), creating, changing and
//!   deactivating groups (`management`), members and subgroups (`membership`) and the settings
//!   that keep a group in use (`objections`). [`domain::users`] holds the user rules: what
//!   names, addresses and passwords may be (`values`), look-alike addresses (`clashes`),
//!   `creation`, `lookup`, `login`, `profile`, `roles` and `deactivation` with its bots
//!   closure; statuses are in [`domain::user_status`] and profile field values in
//!   `domain::profile_fields::values`;
//!   [`domain::email_keys`] says how addresses compare (the login key, look-alikes).
//!   [`domain::notices`] is what the system bots (Notification Bot, Welcome Bot) post when
//!   channels, topics and users change. [`domain::invites`] holds invitations, one idea a
//!   file: `invites::rules` (who may invite whom, with what), `invites::email` (email
//!   invitations and their mail), `invites::links` (signup links, reusable ones),
//!   `invites::manage` (listing and revoking the invitation rows) and `invites::signup`
//!   (joining through the signup form: its token, the new account).
//!   [`domain::records`] holds what a user keeps on the server for their clients (muted
//!   users, drafts, saved snippets) and [`domain::push`] their push-notification devices and
//!   mobile push through Zulip's push notification service: the server's registration
//!   (`push::register_server`, credentials in the data directory by `push::credentials`),
//!   calls to the service (`push::bouncer`), device-token changes forwarded through a
//!   persistent outbox and its worker (`push::outbox`, SQL in `db::push_bouncer`), the legacy
//!   payloads (`push::payloads`, a message's text by `push::content`) and sending them
//!   (`push::send`), and end-to-end encrypted push (`push::e2ee`: registrations forwarded
//!   through the same outbox, notifications sealed to each device's key; SQL in
//!   `db::push_e2ee`).
//!   [`domain::notifications`] decides who is notified of a message and why, one idea a
//!   file (over `model::Trigger`, upstream's triggers in priority order): `decide` (the per-recipient
//!   rules), `gather` (the candidates and the jobs written in the message's commit),
//!   `activity` (idle or active, from presence and event queues), `jobs` (the pass that
//!   carries jobs out, retries pushes, and retracts pushes of messages read) and `deliver`
//!   (where a due push or email goes); `email` records a missed message in the user's email
//!   batch, in the decision's commit (SQL in `db::missed_emails`).
//!   [`domain::outbox`] is the durable mail outbox (a mail is queued in its cause's commit;
//!   the worker started in [`app`] sends it with retries and backoff; SQL in `db::mail_outbox`);
//!   [`domain::account_mail`] the account mails and their single-use links (`reset`:
//!   forgot password; `email_change`: a new address by confirmation; `unsubscribe`: one-click
//!   unsubscribe), with their SQL in `db::account_links` and their pages in `web::accounts`,
//!   the missed-message emails (`missed`: `deliver_due(now)` run by its worker in [`app`]
//!   at each batch's time, one mail per conversation into the outbox), and the weekly digest
//!   (`digest`: `run_pass(now)` run hourly by its worker in [`app`] on the organization's
//!   digest day, for users away 5 days, SQL in `db::digest_emails`; their last activity is
//!   persisted at most hourly from active presence reports by `domain::presence`).
//!   [`domain::bot_storage`] holds the key-value storage of bots (`/bot_storage`);
//!   [`domain::bots`] the bots users make (`/bots`: types, owners, services) and
//!   [`domain::outgoing_webhooks`] their outgoing webhooks: which messages trigger which bot
//!   (queued in the message's own commit in a persistent job table), retries with backoff, and
//!   what an answer does (the bot's reply, upstream's failure notices, read for the bot).
//!   [`domain::scheduled`] holds scheduled messages and reminders and their delivery pass
//!   (`deliver_due(now)`, run by the scheduler task in [`app`]).
//!   [`domain::uploads`] holds uploaded files, one idea a file: `uploads::names` (stored
//!   names, content types, URL encoding), `uploads::storage` (storing them atomically under the
//!   data directory), `uploads::attachments` (uploading, listing and deleting one's own),
//!   `uploads::access` (who may download them, temporary URLs and their key),
//!   `uploads::previews` (how messages preview images, thumbnails made on first request),
//!   `uploads::links` (the messages linking them) and `uploads::sweep` (the timer-driven sweep
//!   of files nobody needs). [`domain::realm_emoji`] holds custom emoji (who may add and deactivate
//!   them, name rules, their stored pictures, the checks reactions and statuses make);
//!   [`domain::images`] is the bounded image decoding both share (headers, thumbnails, 64x64
//!   emoji pictures).
//!   [`domain::messages`] holds the message rules: `messages::send` the send path (content,
//!   mentions, the commit), `messages::recipients` who a message goes to, and
//!   `messages::topics` the topic rules (normalising a topic, a channel's topics policy, the
//!   automatic follow) beside topic listing and visibility.
//! - [`events`]: domain events, each variant carrying one payload struct (by area:
//!   `events::messages`, whose `MessageSent` carries the stored message with its recipients and
//!   their flags so delivery renders it without reading it back, `events::people` and
//!   `events::channels`), the hub they are published to after commit (`events::hub`), the client
//!   event queues (`events::queues`: the table in its `mod.rs`, one queue and its events in
//!   `queue`, waiting polls and the heartbeat pass in `polls`, idle lifetimes in `sweep`, the
//!   export and restore in `saved`, the id index in `table`) and their snapshot across a graceful restart
//!   (`events::snapshot`: written by `app::Server::wait` once delivery caught up, read back and
//!   deleted at start). **Invariant:** no database, no wire format.
//! - [`http`]: listener loop (admission before the body, timeouts, connection cap, panic
//!   containment, the client's address behind `[limits] trusted_proxies`, per-route request
//!   counts for `metrics`), the open-files limit, HTTP types, path decoding, the generic
//!   `routes!` macro both APIs declare their tables with (one row per endpoint: method, path
//!   with typed captures, policy, handler; it generates the endpoint enum, metrics names and
//!   index, matcher with method/`Allow` resolution, sample paths and dispatch: `http::route`), a `multipart/form-data` reader shared by
//!   both APIs, and a small outgoing HTTP(S) client (`http::client`: hyper + rustls, bounded
//!   time and answer size, non-public destinations refused unless allowed), and HTTPS for a
//!   listener (`http::tls`: PEM certificate and key files, read by [`pem`], served with
//!   rustls/ring, ALPN `http/1.1`, swapped on reload, which `cli` wires to SIGHUP, or pairs installed by `acme`
//!   with its TLS-ALPN-01 challenge certificates answered on ALPN `acme-tls/1`; the handshake
//!   is bounded by the header timeout in `http::server`); knows no API semantics.
//! - [`zulip`]: the chat API: route table (`zulip::routes`, under `/api/v1` with Basic auth and
//!   `/json` with a web session) with `zulip::answer` calling an admitted request's endpoint,
//!   Basic auth (and incoming webhooks' `api_key`), parameter rules, envelope, handlers
//!   (one file per area: `users`, `user_groups`, `channels`, `messages`, `topics`, `realtime`,
//!   `presence`, `realm`, `server`, `invites`, `records`, `bot_storage`, `uploads`, `emoji`), the
//!   incoming webhooks (`webhooks`: `/external/{integration}` with its `api_key` checked at
//!   admission, and one pure formatting module per integration, `slack_incoming` and `json`), the
//!   initial state of `POST /register` (`register_state`: a table of
//!   event type → small builder; `presences` shares `GET /realm/presence`'s listing), event
//!   delivery (`delivery`), the outgoing-webhook worker (`outgoing_webhooks`: claims due
//!   deliveries, posts upstream's payload, reads the answer), the notification worker
//!   (`notifications`: runs the notification pass with the listener's presence and queues as
//!   the measure of idleness), and `wire`, the only place that
//!   knows Zulip's JSON shapes (the main ones are typed `Serialize` structs: the message, the
//!   user and status in `wire::users`, the channel and subscription in `wire::channels`,
//!   presence in `wire::presence`, and the frequent events in `wire::events` with
//!   `wire::message_events` and `wire::user_events`, the heartbeat included).
//! - [`web`]: the browser client on the chat listener: its hand-written files
//!   (`src/web/client/`, compiled in by `build.rs`) served by `web::assets` at
//!   `/static/<build>/` (immutable, gzip precomputed at start, the modules also joined into
//!   one script by `web::bundle`), the server-rendered pages of `web::pages` (the shell at
//!   `/` with the client's register answer in it, `/login`, `/devlogin`, `/logout`, and the frame and
//!   security headers every HTML answer shares), `web::signup` (the invitation signup page on
//!   `/join/`), `web::accounts` (the pages account mails link to: forgot password, a reset
//!   link's form, confirming a new address, unsubscribing), and `web::sessions`,
//!   the session cookie and CSRF checks through which `/json/` uses `zulip`'s route table.
//!   Its pages read a `web::WebState` (the chat API's state and the client's files); `web`
//!   names `zulip` (the page shell embeds `zulip::realtime::register_body`), never the reverse.
//!   The session rules (hashed tokens, expiry, at most one last-use write a minute, ending a
//!   user's sessions) are [`domain::sessions`]; their SQL is `db::web_sessions`.
//! - [`dtrack`]: the Dependency-Track API under `/api`: route table (`dtrack::routes`, with
//!   each endpoint's permission, media types and upload flag) with `dtrack::answer` calling an
//!   admitted request's endpoint, the listener's state (`DtrackState`),
//!   credentials (`X-Api-Key`, bearer JWT, `?apiKey=` on badges), upstream's error forms
//!   (`respond`), input rules (`params`), handlers (one file per area), `wire` (the only place
//!   that knows its JSON shapes, and with `wire::cyclonedx` the CycloneDX JSON and XML it
//!   exports) and `svg` (the violations and vulnerability badges, byte for byte).
//! - [`model`], [`ids`]: plain records of both APIs (the chat API's, among them the parsed
//!   `Narrow` whose rules live in `domain::messages::narrow` and whose SQL in
//!   `db::message_narrows`, and the `ChannelProperty`/`SubscriptionProperty` names events carry; Dependency-Track's in `model::dtrack` with its permissions and
//!   `PermSet`) and newtype ids.
//! - [`metrics`]: lock-free request, writer and latency counters (updated by `http::server`
//!   and `db`) and their Prometheus text; names no other area (its listener is
//!   `listeners::metrics`).
//! - [`listeners`]: the top layer, one `http::server::Api` per listener composing an API's
//!   route table, pages and admission: `listeners::chat` (the chat API's table and the web
//!   client's pages on one listener: the page table `listeners::chat::pages`, one row per
//!   page; admission by each row's policy in `listeners::chat::admission`, with Basic auth,
//!   webhook keys, the web session and its CSRF token, a download's optional credentials; and
//!   the new session a browser gets when its credentials change), `listeners::dtrack`
//!   (admission by each row: credentials, permission, media type, body limit, rate limit) and
//!   `listeners::metrics` (`/metrics` and `/health` on `[metrics] listen`, reading the
//!   counters, the queues and `db::health` at scrape time).
//! - [`markdown`]: Zulip's message Markdown (mentions, channel links, code blocks, spoilers,
//!   emoji, custom emoji, upload previews) with realm lookups behind a trait; pure. The
//!   renderer (`markdown::render`) walks the blocks, with `inline` and `fenced` beside it;
//!   code blocks (`markdown::code`) read fences, with `languages`, `classes` (scopes to
//!   Pygments' classes) and `highlight` (syntect within limits) beside it.
//! - [`mail`]: one outgoing mail over SMTP (plain text, or plain text and HTML, with the
//!   extra headers its caller gives) and the counters of what was sent; mails are queued in the
//!   durable outbox (`domain::outbox`), whose worker sends them from blocking tasks; without
//!   `[email] host` the link a mail carries goes to the log.
//! - [`time`]: the clock and every date format printed or read (on the `time` crate); no
//!   other module computes calendar dates.
//! - [`password`], [`emoji`]: small pure helpers; [`private_files`]: owner-only
//!   creation of the data directory, database and backup files; [`pem`]: certificate and key
//!   files in PEM (bounded reading, parsing, checking a pair), below `config` and `http`.
//!
//! Smaller modules, each described by its own `//!` header:
//!
//! - in `db`: `alert_words`, `bots`, `channel_folders`, `digest` (a content digest of the whole
//!   database, for checks that a request changed nothing), `groups`, `message_mentions`,
//!   `profile_fields`, `read_receipts`, `realm_emoji`, `realm_settings`, `scheduled`, `settings`,
//!   `submessages`, `unreads`, `user_records`, and Dependency-Track's `dtrack_bom`,
//!   `dtrack_clone`, `dtrack_epss`, `dtrack_evaluation`, `dtrack_findings`, `dtrack_identity`, `dtrack_licenses`,
//!   `dtrack_metrics`, `dtrack_osv`, `dtrack_policies`, `dtrack_portfolio`, `dtrack_projects`,
//!   `dtrack_nvd`, `dtrack_search`, `dtrack_tags`, `notifications` (notification jobs, shown
//!   pushes, removals);
//! - in `domain`: `channel_folders`, `credentials` (the user cache and the login limiter),
//!   `emails` (which address a viewer sees), `max_received` (per-user caches for `/users/me`);
//!   in `domain::messages`: `edit`, `edit_mentions` (the mention flags and notifications an
//!   edit changes), `fetch`, `flags`, `preview`, `receipts`, `report`,
//!   `widgets`; in `domain::dtrack`: `bom`, `cwe`, `cyclonedx`, `cyclonedx_xml`,
//!   `epss` (`outpost dtrack import-epss`), `epss_fetch` (the daily fetch of `[dtrack.epss]
//!   url`), `http_get` (the downloads of both fetchers), `findings`, `identity`, `jwt`, `keys`,
//!   `licenses`
//!   (the vendored SPDX catalogue and license groups), `policies`, `policy_eval`, `portfolio`,
//!   `search` (component searches), `state`, `tags` (the tag resource), `watch` (commits by
//!   other processes renew the caches), with
//!   `osv::{record, severity, ecosystem, purl, distro, eval, matching, import, fetch}`,
//!   `nvd::{record, stream}`, and
//!   `versions::{debian, maven, rubygems, rpm, apk, packagist, semverlike, generic}`;
//! - in `dtrack`: `acl`, `auth`, `badges`, `bom`, `evaluation` (our not-evaluated listing), `findings`, `identity`, `licenses`,
//!   `metrics`, `policies`, `portfolio`, `search`, `tags`, and `wire::input`, `wire::licenses`,
//!   `wire::metrics`, `wire::policy`, `wire::findings` (findings, SARIF, FPF),
//!   `wire::evaluation`, `wire::tags`;
//! - in `zulip`: `auth` (Basic auth and the `api_key` query), `bots`, `channel_folders`,
//!   `scheduled`, `webhooks::payload`, `delivery::{folders, groups, scheduled}` and
//!   `wire::{bots, groups, initial_state, message_events, realm_state, scheduled, user_events}`;
//! - in `http`: `limits` (the open-files limit), `multipart`, `rate_limit`;
//! - in `markdown`: `html` (escaping), `links`, `lists`, `mentions`, `syntax` (the Markdown the
//!   system bots write), `timestamp`;
//! - in `model`: `channel_properties`, `groups`, `narrow`, `scheduled`, `trigger` (why a user is
//!   notified), `dtrack::permissions`.
//!
//! # Layers
//!
//! Each area names only areas listed above it; `tests/api/layering.rs` reads every `use` and
//! `crate::` path and holds the same table (`layering_graph::LAYERS`), which this list quotes.
//! The executables (`main.rs`, `bin/`) may name anything.
//!
//! - `ids`: nothing
//! - `error`: nothing
//! - `time`: nothing
//! - `emoji`: nothing
//! - `password`: nothing
//! - `private_files`: nothing
//! - `pem`: nothing
//! - `data_lock`: `private_files`
//! - `model`: `ids`
//! - `metrics`: nothing
//! - `config`: `model`, `pem`
//! - `http`: `config`, `metrics`, `pem`, `time`
//! - `mail`: `config`
//! - `markdown`: `emoji`, `time`
//! - `events`: `ids`, `model`, `private_files`
//! - `db`: `config`, `error`, `events`, `ids`, `metrics`, `model`, `private_files`, `time`
//! - `domain`: `config`, `db`, `emoji`, `error`, `events`, `ids`, `mail`, `markdown`, `model`,
//!   `password`, `private_files`, `time`
//! - `restore`: `data_lock`, `db`, `domain`, `error`, `events`, `private_files`
//! - `acme`: `config`, `http`, `pem`, `private_files`
//! - `zulip`: `db`, `domain`, `emoji`, `error`, `events`, `http`, `ids`, `markdown`, `metrics`,
//!   `model`, `password`, `time`
//! - `dtrack`: `db`, `domain`, `error`, `http`, `ids`, `metrics`, `model`, `time`
//! - `web`: `domain`, `error`, `http`, `model`, `password`, `time`, `zulip`
//! - `listeners`: `db`, `domain`, `dtrack`, `error`, `events`, `http`, `metrics`, `model`, `web`,
//!   `zulip`
//! - `app`: `acme`, `config`, `data_lock`, `domain`, `dtrack`, `error`, `events`, `http`,
//!   `listeners`, `metrics`, `private_files`, `time`, `web`, `zulip`
//! - `cli`: `app`, `config`, `domain`, `error`, `http`, `model`, `restore`
//!
//! The table has no cycle (the test's `CYCLE_EDGES` is empty and may only stay so): no API
//! names `app` (each has its own state, built by `app`); no API names the listener that serves
//! it, and the web client's pages name the chat API, not the other way round; `metrics` holds
//! only counters, which `db` and `http` update, while its scrape is a listener; and the PEM
//! files that config validation and the TLS listeners both read are `pem`'s, below both.
//! Inside `domain`, the edges between its modules that close a cycle are listed in the test
//! (`domain::core`, the handle every rule takes, stands above them); that list may only shrink.
//!
//! # Cross-cutting
//!
//! - **Errors**: one [`error::Error`] (kind, user message, log-only detail); the chat API maps it
//!   in `zulip::envelope::error_response` and the Dependency-Track API in `dtrack::respond`,
//!   each exhaustively, and each logs internal errors once there.
//! - **Threads**: tokio workers never run SQLite or argon2; those run on `db`'s dedicated threads.
//! - **State**: no globals. Domain code and the Dependency-Track handlers read a `&Core`
//!   (`domain::core`); chat handlers and background tasks an `Arc<zulip::ChatState>`
//!   that holds an `Arc<Core>` and derefs to it, and the web client's pages a `web::WebState`
//!   over it; the Dependency-Track and metrics listeners hold their own small states. `app` builds them all and passes them explicitly, so tests
//!   run many servers in one process. The command line opens a `Core` alone.
//! - **Secrets**: API keys, JWTs and password hashes are never logged (`model::Secret` redacts
//!   `Debug`; Dependency-Track keys are kept only as public id plus SHA3-256 of the secret).

#![recursion_limit = "256"]

pub mod acme;
pub mod app;
pub mod cli;
pub mod config;
pub mod data_lock;
pub mod db;
pub mod domain;
pub mod dtrack;
pub mod emoji;
pub mod error;
pub mod events;
pub mod http;
pub mod ids;
pub mod listeners;
pub mod mail;
pub mod markdown;
pub mod metrics;
pub mod model;
pub mod password;
pub mod pem;
pub mod private_files;
pub mod restore;
pub mod time;
pub mod web;
pub mod zulip;
