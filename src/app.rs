//! The running server, the composition root: its states, startup and shutdown.
//!
//! [`open`] builds the chat API's [`ChatState`] once per server (passed explicitly as
//! `Arc<ChatState>` to every chat handler and background task); [`start`] builds the
//! Dependency-Track and metrics listeners' own states from it and the [`listeners`](crate::listeners)
//! over those states (the chat listener with the web client's files). There are no globals, so
//! a test process can run many servers side by side. [`start`] opens the state, binds the listeners, starts the background tasks (all
//! listed in `tasks::spawn`) and serves; the shutdown signal is an argument, so `main` passes
//! SIGINT/SIGTERM and tests pass a channel. The command line opens a [`Core`] alone.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use crate::config::{Config, TlsFiles};
use crate::domain::Core;
use crate::error::{Error, Result};
use crate::events::queues::Queues;
use crate::http::tls::ServerTls;
use crate::zulip::ChatState;

mod tasks;

/// Opens the data directory and database ([`Core::open`]) and builds the chat API's state
/// around them; starts no listener.
pub fn open(config: Config) -> Result<ChatState> {
    let core = Arc::new(Core::open(config)?);
    let config = &core.config;
    let queues = Arc::new(
        Queues::new(config.events.max_queue_events, config.events.queue_timeout).with_user_limits(
            config.limits.max_queues_per_user,
            config.limits.max_parked_polls_per_user,
        ),
    );
    let rates = Arc::new(crate::http::rate_limit::Rates::new(&config.limits));
    Ok(ChatState {
        own_user_bodies: Default::default(),
        delivered: tokio::sync::watch::channel(0).0,
        started_at: crate::time::now_secs(),
        connections: Arc::default(),
        chat_requests: Arc::new(crate::metrics::RequestMetrics::new(
            "chat",
            crate::listeners::chat::ROUTE_NAMES,
        )),
        dtrack_requests: Arc::new(crate::metrics::RequestMetrics::new(
            "dtrack",
            crate::dtrack::ROUTE_NAMES,
        )),
        rates,
        queues,
        presence: crate::domain::presence::PresenceTable::default(),
        stopping: tokio::sync::watch::channel(false).0,
        core,
    })
}

/// A started server.
pub struct Server {
    pub state: Arc<ChatState>,
    /// The address the chat API actually listens on (useful with port 0).
    pub chat_addr: SocketAddr,
    /// The address of the Dependency-Track API, when enabled.
    pub dtrack_addr: Option<SocketAddr>,
    /// The address of `/metrics` and `/health`, when enabled.
    pub metrics_addr: Option<SocketAddr>,
    /// The TLS of the listeners served over HTTPS (reloaded by [`Server::reload_tls`]).
    pub tls: TlsListeners,
    task: JoinHandle<()>,
    dtrack_task: Option<JoinHandle<()>>,
    metrics_task: Option<JoinHandle<()>>,
    /// Background tasks that write and must finish their pass before the queues are saved.
    writers: Vec<JoinHandle<()>>,
    /// The data directory's lock, released once the server has stopped (or is dropped).
    _lock: crate::data_lock::DataLock,
}

/// How long a graceful stop waits for background passes and for delivery to catch up.
const STOP_DRAIN_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// The TLS of each listener served over HTTPS; cheap to clone (for the SIGHUP task).
#[derive(Clone, Default)]
pub struct TlsListeners {
    pub chat: Option<Arc<ServerTls>>,
    pub dtrack: Option<Arc<ServerTls>>,
}

impl TlsListeners {
    /// Reads every listener's certificate and key files again (what SIGHUP does). A pair that
    /// fails to load is logged and the one in use kept; the result is the first such failure.
    pub fn reload(&self) -> std::result::Result<(), String> {
        let mut outcome = Ok(());
        for tls in [&self.chat, &self.dtrack].into_iter().flatten() {
            if let Err(e) = tls.reload() {
                outcome = outcome.and(Err(e));
            }
        }
        outcome
    }

    pub fn is_empty(&self) -> bool {
        self.chat.is_none() && self.dtrack.is_none()
    }
}

impl Server {
    /// Waits until the server has shut down (after its shutdown signal): its connections
    /// drained, its background passes finished, every committed event delivered to the queues;
    /// then saves the event queues for the next start (`events::snapshot`).
    pub async fn wait(self) {
        let _ = self.task.await;
        if let Some(t) = self.dtrack_task {
            let _ = t.await;
        }
        if let Some(t) = self.metrics_task {
            let _ = t.await;
        }
        let writers = futures_util::future::join_all(self.writers);
        if tokio::time::timeout(STOP_DRAIN_TIMEOUT, writers)
            .await
            .is_err()
        {
            tracing::warn!("background work did not finish in time; stopping anyway");
        }
        save_queues(&self.state).await;
        self.state.hub.detach_pipeline();
    }
}

/// Waits until delivery has handled every published event, then writes the queues to the
/// data directory. No request is served any more, so the queues no longer change.
async fn save_queues(state: &ChatState) {
    let target = state.hub.current_seq();
    let mut delivered = state.delivered.subscribe();
    if tokio::time::timeout(STOP_DRAIN_TIMEOUT, delivered.wait_for(|d| *d >= target))
        .await
        .is_err()
    {
        tracing::warn!("event delivery did not catch up; event queues not saved");
        return;
    }
    let snapshot = crate::events::snapshot::Snapshot {
        saved_at: crate::events::snapshot::unix_secs(std::time::SystemTime::now()),
        queues: state.queues.export(std::time::Instant::now()),
    };
    let path = crate::events::snapshot::path_in(&state.config.data_dir);
    let count = snapshot.queues.len();
    match tokio::task::spawn_blocking(move || crate::events::snapshot::save(&path, &snapshot)).await
    {
        Ok(Ok(())) => tracing::info!(queues = count, "event queues saved for the next start"),
        Ok(Err(e)) => tracing::warn!(error = %e, "cannot save the event queues"),
        Err(e) => tracing::warn!(error = %e, "cannot save the event queues"),
    }
}

/// Puts back the queues a graceful stop saved (`events::snapshot`), dropping those idle past
/// their timeout (the time the server was down counts), and gives each a `restart` event.
fn restore_queues(state: &ChatState) {
    let path = crate::events::snapshot::path_in(&state.config.data_dir);
    let Some(snapshot) = crate::events::snapshot::take(&path) else {
        return;
    };
    let saved = snapshot.queues.len();
    let downtime = snapshot.age(std::time::SystemTime::now());
    let restored = state
        .queues
        .restore(snapshot.queues, downtime, std::time::Instant::now());
    let restart = crate::zulip::delivery::restart_event(state.started_at);
    for q in &restored {
        if q.options.wants("restart") {
            state.queues.push(q, std::sync::Arc::clone(&restart));
        }
    }
    tracing::info!(
        restored = restored.len(),
        expired = saved - restored.len(),
        "event queues restored from the last graceful stop"
    );
}

async fn bind(listen: SocketAddr) -> Result<(TcpListener, SocketAddr)> {
    let listener = TcpListener::bind(listen)
        .await
        .map_err(|e| Error::internal(format!("cannot listen on {listen}: {e}")))?;
    let addr = listener
        .local_addr()
        .map_err(|e| Error::internal(format!("no local address: {e}")))?;
    Ok((listener, addr))
}

/// Opens the state, binds the chat listener (and the Dependency-Track listener when enabled)
/// and serves until `shutdown` resolves.
pub async fn start(
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<Server> {
    let listen = config.chat.listen;
    check_development(&config)?;
    crate::private_files::private_dir(&config.data_dir).map_err(|e| {
        Error::internal(format!(
            "cannot create data directory {}: {e}",
            config.data_dir.display()
        ))
    })?;
    // Held until the server has stopped: no second server, and no restore, meanwhile.
    let lock = crate::data_lock::DataLock::try_acquire(&config.data_dir)
        .map_err(|e| Error::bad_request(e.to_string()))?;
    crate::acme::adopt_old_dir(&config.data_dir).map_err(Error::internal)?;
    let tls = TlsListeners {
        chat: server_tls("chat", config.chat.tls(), &config.chat.acme)?,
        dtrack: match config.dtrack.enabled {
            true => server_tls("dtrack", config.dtrack.tls(), &config.dtrack.acme)?,
            false => None,
        },
    };
    let state = Arc::new(open(config)?);
    let (listener, chat_addr) = bind(listen).await?;
    let dt_listener = if state.config.dtrack.enabled {
        crate::domain::dtrack::identity::bootstrap(&state).await?;
        crate::domain::dtrack::projects::reseal_legacy_properties(&state).await?;
        Some(bind(state.config.dtrack.listen).await?)
    } else {
        None
    };
    restore_queues(&state);
    let limits = serve_limits(&state.config, Arc::clone(&state.connections));
    let metrics_listener = if state.config.metrics.enabled {
        let bound = bind(state.config.metrics.listen).await?;
        if !bound.1.ip().is_loopback() {
            tracing::warn!(listen = %bound.1, "/metrics and /health are served on a non-loopback address");
        }
        Some(bound)
    } else {
        None
    };
    let metrics_addr = metrics_listener.as_ref().map(|(_, a)| *a);
    // One shutdown signal, `state.stopping`, fanned out to every listener, every background
    // task and every waiting long-poll.
    {
        let state = Arc::clone(&state);
        tokio::spawn(async move {
            shutdown.await;
            let _ = state.stopping.send(true);
            // After the signal is set, so every poll that wakes sees it.
            state.queues.wake_all();
        });
    }
    let stop_rx = state.stopping.subscribe();
    let stopped = |mut rx: tokio::sync::watch::Receiver<bool>| async move {
        let _ = rx.wait_for(|v| *v).await;
    };
    // Every background task, before any listener serves (delivery must be attached first).
    let writers = tasks::spawn(&state, &tls);
    let api = Arc::new(crate::listeners::chat::ChatListener::new(
        Arc::clone(&state),
        crate::web::assets::Assets::load(),
    ));
    let task = tokio::spawn(serve_listener(
        listener,
        api,
        limits.clone(),
        tls.chat.clone(),
        stopped(stop_rx.clone()),
    ));
    let metrics_task = match metrics_listener {
        Some((listener, _)) => {
            let api = Arc::new(crate::listeners::metrics::MetricsListener::new(
                crate::listeners::metrics::MetricsState {
                    db: Arc::clone(&state.core) as _,
                    hub: Arc::clone(&state.hub),
                    queues: Arc::clone(&state.queues),
                    dtrack_enabled: state.config.dtrack.enabled,
                    dtrack: state.config.dtrack.enabled.then(|| Arc::clone(&state.core)),
                    push: state.config.push.enabled.then(|| Arc::clone(&state.core)),
                    stopping: state.stopping.subscribe(),
                    delivered: state.delivered.subscribe(),
                    connections: Arc::clone(&state.connections),
                    mail: Arc::clone(&state.mailer.counters),
                    started_at: state.started_at,
                    requests: vec![
                        Arc::clone(&state.chat_requests),
                        Arc::clone(&state.dtrack_requests),
                    ],
                },
            ));
            Some(tokio::spawn(crate::http::server::serve(
                listener,
                api,
                limits.clone(),
                stopped(stop_rx.clone()),
            )))
        }
        None => None,
    };
    let (dtrack_addr, dtrack_task) = match dt_listener {
        Some((listener, addr)) => {
            let api = Arc::new(crate::listeners::dtrack::DtrackListener::new(
                crate::dtrack::DtrackState {
                    core: Arc::clone(&state.core),
                    rates: Arc::clone(&state.rates),
                    requests: Arc::clone(&state.dtrack_requests),
                },
            ));
            let t = tokio::spawn(serve_listener(
                listener,
                api,
                limits,
                tls.dtrack.clone(),
                stopped(stop_rx),
            ));
            (Some(addr), Some(t))
        }
        None => (None, None),
    };
    Ok(Server {
        state,
        chat_addr,
        dtrack_addr,
        metrics_addr,
        tls,
        task,
        dtrack_task,
        metrics_task,
        writers,
        _lock: lock,
    })
}

/// A listener's TLS, when its certificate and key files or ACME are configured (an ACME
/// listener's certificate is installed by its `acme::run` task).
fn server_tls(
    name: &'static str,
    files: Option<TlsFiles<'_>>,
    acme: &crate::config::AcmeConfig,
) -> Result<Option<Arc<ServerTls>>> {
    if acme.enabled() {
        return ServerTls::for_acme(name)
            .map(|t| Some(Arc::new(t)))
            .map_err(|e| Error::bad_request(format!("{name} listener TLS: {e}")));
    }
    let Some(files) = files else {
        return Ok(None);
    };
    ServerTls::new(name, files.cert, files.key)
        .map(|t| Some(Arc::new(t)))
        .map_err(|e| Error::bad_request(format!("{name} listener TLS: {e}")))
}

/// Serves `api` on `listener`, over TLS when `tls` is given.
async fn serve_listener<A: crate::http::server::Api>(
    listener: TcpListener,
    api: Arc<A>,
    limits: crate::http::server::ServeLimits,
    tls: Option<Arc<ServerTls>>,
    shutdown: impl Future<Output = ()>,
) {
    match tls {
        Some(tls) => crate::http::server::serve_tls(listener, api, limits, tls, shutdown).await,
        None => crate::http::server::serve(listener, api, limits, shutdown).await,
    }
}

/// Development mode hands anyone any user's API key: it is announced loudly, and refused on
/// a non-loopback address unless `allow_remote_development` says so.
fn check_development(config: &Config) -> Result<()> {
    if !config.chat.development {
        return Ok(());
    }
    let listen = config.chat.listen;
    if !listen.ip().is_loopback() && !config.chat.allow_remote_development {
        return Err(Error::bad_request(format!(
            "development mode lets anyone log in as any user; refusing to serve it on \
             {listen}, which is not a loopback address (set [chat] allow_remote_development \
             = true to do so anyway)"
        )));
    }
    tracing::warn!(
        %listen,
        "development mode is on: POST /api/v1/dev_fetch_api_key hands any caller any user's API key"
    );
    Ok(())
}

/// File descriptors kept free for the database, logs and backups when capping connections.
const FD_HEADROOM: u64 = 128;

/// The listeners' limits; the connection cap stays below the process's descriptor limit.
fn serve_limits(
    config: &Config,
    active: Arc<std::sync::atomic::AtomicUsize>,
) -> crate::http::server::ServeLimits {
    let l = &config.limits;
    let mut max_connections = l.max_connections;
    if let Some(fds) = crate::http::limits::open_files_limit() {
        let room = fds.saturating_sub(FD_HEADROOM).max(fds / 2) as usize;
        if room < max_connections {
            tracing::warn!(
                configured = max_connections,
                open_files_limit = fds,
                effective = room,
                "limits.max_connections lowered to stay below the open-files limit"
            );
            max_connections = room;
        }
    }
    crate::http::server::ServeLimits {
        max_connections,
        header_timeout: l.header_timeout,
        body_timeout: l.body_timeout,
        active,
        uploads: Arc::new(tokio::sync::Semaphore::new(l.max_concurrent_uploads)),
        trusted_proxies: Arc::from(l.trusted_proxies.clone()),
    }
}
