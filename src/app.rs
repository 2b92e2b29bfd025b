//! The running server: shared state, startup and shutdown.
//!
//! [`AppState`] is built once per server and passed explicitly (`Arc<AppState>`) to every
//! handler; there are no globals, so a test process can run many servers side by side.
//! [`start`] opens the database, binds the listeners and spawns the serving tasks; the
//! shutdown signal is an argument, so `main` passes SIGINT/SIGTERM and tests pass a channel.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use crate::config::Config;
use crate::db::Db;
use crate::domain::credentials::{LoginLimiter, UserCache};
use crate::domain::max_received::MaxReceivedCache;
use crate::error::{Error, Result};
use crate::events::EventHub;
use crate::events::queues::Queues;

/// Everything a request handler may need.
pub struct AppState {
    pub config: Config,
    pub db: Db,
    /// Authenticated users by email, refreshed when users change.
    pub users: Arc<UserCache>,
    pub hub: Arc<EventHub>,
    /// Each user's newest received message id, refreshed when messages change.
    pub max_received: Arc<MaxReceivedCache>,
    /// Failed password logins per username.
    pub logins: LoginLimiter,
    /// Client event queues (`POST /register`, `GET /events`).
    pub queues: Arc<Queues>,
    /// Who reported presence, and when (kept in memory).
    pub presence: crate::domain::presence::PresenceTable,
    /// Becomes true when the server starts shutting down (long-polls answer at once).
    pub stopping: tokio::sync::watch::Sender<bool>,
}

impl AppState {
    /// Opens the data directory and database; starts no listener.
    pub fn open(config: Config) -> Result<AppState> {
        std::fs::create_dir_all(&config.data_dir).map_err(|e| {
            Error::internal(format!(
                "cannot create data directory {}: {e}",
                config.data_dir.display()
            ))
        })?;
        let users = Arc::new(UserCache::default());
        let hub = Arc::new(EventHub::default());
        let max_received = Arc::new(MaxReceivedCache::default());
        let on_commit = {
            let users = Arc::clone(&users);
            let hub = Arc::clone(&hub);
            let max_received = Arc::clone(&max_received);
            Box::new(move |events: Vec<crate::events::Event>| {
                if events.iter().any(|e| e.touches_users()) {
                    users.invalidate();
                }
                if events.iter().any(|e| e.touches_messages()) {
                    max_received.invalidate();
                }
                hub.publish(events);
            })
        };
        let db = Db::open(&database_path(&config), &config.database, on_commit)?;
        let queues = Arc::new(Queues::new(
            config.events.max_queue_events,
            config.events.queue_timeout,
        ));
        Ok(AppState {
            queues,
            presence: crate::domain::presence::PresenceTable::default(),
            stopping: tokio::sync::watch::channel(false).0,
            config,
            db,
            users,
            hub,
            max_received,
            logins: LoginLimiter::default(),
        })
    }
}

/// Where the SQLite file lives inside the data directory.
pub fn database_path(config: &Config) -> std::path::PathBuf {
    config.data_dir.join("outpost.sqlite3")
}

/// A started server.
pub struct Server {
    pub state: Arc<AppState>,
    /// The address the chat API actually listens on (useful with port 0).
    pub chat_addr: SocketAddr,
    task: JoinHandle<()>,
}

impl Server {
    /// Waits until the server has shut down and drained its connections.
    pub async fn wait(self) {
        let _ = self.task.await;
    }
}

/// Opens the state, binds the chat listener and serves until `shutdown` resolves.
pub async fn start(
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<Server> {
    let listen = config.chat.listen;
    let state = Arc::new(AppState::open(config)?);
    let listener = TcpListener::bind(listen)
        .await
        .map_err(|e| Error::internal(format!("cannot listen on {listen}: {e}")))?;
    let chat_addr = listener
        .local_addr()
        .map_err(|e| Error::internal(format!("no local address: {e}")))?;
    // Background work: event delivery into client queues and the idle-queue sweep.
    let pipeline = state.hub.attach_pipeline();
    tokio::spawn(crate::zulip::delivery::run(Arc::clone(&state), pipeline));
    tokio::spawn(sweep_queues(Arc::clone(&state)));
    let api = Arc::new(crate::zulip::ChatApi::new(Arc::clone(&state)));
    let max_body = state.config.limits.max_body_bytes;
    let signal = {
        let state = Arc::clone(&state);
        async move {
            shutdown.await;
            let _ = state.stopping.send(true);
        }
    };
    let task = tokio::spawn(crate::http::server::serve(listener, api, max_body, signal));
    Ok(Server {
        state,
        chat_addr,
        task,
    })
}

/// Sweeps idle event queues every `gc_interval` until the server stops.
async fn sweep_queues(state: Arc<AppState>) {
    let mut stopping = state.stopping.subscribe();
    let mut tick = tokio::time::interval(state.config.events.gc_interval);
    tick.tick().await;
    loop {
        tokio::select! {
            _ = tick.tick() => {
                let n = state.queues.sweep();
                if n > 0 {
                    tracing::debug!(collected = n, "swept idle event queues");
                }
            }
            _ = stopping.wait_for(|s| *s) => return,
        }
    }
}
