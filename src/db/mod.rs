//! The storage engine: one SQLite file, one writer thread with group commit, a read pool.
//!
//! Owns every thread that touches SQLite or burns CPU (password hashing); tokio worker threads
//! only await results. Writes go to a single writer thread that takes all jobs waiting in its
//! queue, runs each in its own savepoint inside one `BEGIN IMMEDIATE` transaction, commits once,
//! and only then answers each job and hands its events to the commit hook, in commit order.
//! A failing job rolls back to its savepoint and changes nothing; the others still commit.
//!
//! The SQL itself lives in the submodules as synchronous functions over `&Connection`; they never
//! see HTTP types, and nothing outside `db` opens a connection.

pub mod account_links;
pub mod alert_words;
pub mod bot_storage;
pub mod bots;
pub mod channel_folders;
pub mod channels;
pub mod conversations;
pub mod digest;
pub mod digest_emails;
pub mod dtrack_bom;
pub mod dtrack_clone;
pub mod dtrack_epss;
pub mod dtrack_evaluation;
pub mod dtrack_findings;
pub mod dtrack_identity;
pub mod dtrack_licenses;
pub mod dtrack_metrics;
pub mod dtrack_nvd;
pub mod dtrack_osv;
pub mod dtrack_policies;
pub mod dtrack_portfolio;
pub mod dtrack_projects;
pub mod dtrack_search;
pub mod dtrack_tags;
pub mod groups;
pub mod health;
pub mod invites;
pub mod mail_outbox;
pub mod message_edits;
pub mod message_flags;
pub mod message_mentions;
pub mod message_narrows;
pub mod messages;
pub mod migrate;
pub mod missed_emails;
pub mod notifications;
pub mod outgoing_webhooks;
pub mod profile_fields;
pub mod push_bouncer;
pub mod push_e2ee;
pub mod reactions;
pub mod read_receipts;
pub mod realm_emoji;
pub mod realm_settings;
pub mod scheduled;
pub mod settings;
pub mod submessages;
pub mod topics;
pub mod unreads;
pub mod upgrade;
pub mod uploads;
pub mod user_records;
pub mod users;
pub mod web_sessions;

use std::ops::Deref;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::{Connection, OpenFlags, TransactionBehavior};
use tokio::sync::oneshot;

use crate::config::DatabaseConfig;
use crate::error::{Error, Result};
use crate::events::Event;
use crate::metrics::WriterMetrics;

/// Largest number of write jobs committed in one transaction.
const MAX_BATCH: usize = 512;

/// Called on the writer thread after each commit with the events of the committed jobs, in
/// commit order, before any of those jobs is answered.
pub type CommitHook = Box<dyn Fn(Vec<Event>) + Send>;

/// The handle the rest of the program uses; cheap to share behind an `Arc`.
pub struct Db {
    path: PathBuf,
    writer: mpsc::Sender<WriteJob>,
    read_pool: r2d2::Pool<SqliteConnectionManager>,
    readers: ThreadPool,
    cpu: ThreadPool,
    /// Uploaded documents (BOM, VEX and their multipart bodies): parsed on a thread of their own,
    /// so a large document never holds the CPU threads that logins and images need.
    documents: ThreadPool,
    /// What the writer did (`/metrics`).
    writer_metrics: Arc<WriterMetrics>,
}

/// A write transaction as seen by one job: the connection plus the job's pending events and
/// search-index changes.
///
/// Search-index (FTS5) changes wait until every job of the batch has run: FTS5 writes its
/// pending terms out as a new index segment whenever a savepoint opens, so indexing inside each
/// job's savepoint cost one segment (and its merges) per message instead of one per commit.
pub struct WriteTx<'a> {
    conn: &'a Connection,
    events: Vec<Event>,
    search: Vec<messages::SearchChange>,
}

impl WriteTx<'_> {
    /// Queues an event to publish once this job's changes are committed.
    pub fn emit(&mut self, event: Event) {
        self.events.push(event);
    }
}

impl Deref for WriteTx<'_> {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        self.conn
    }
}

/// A queued write. It is called with `None` when its transaction could not be opened, so that
/// it answers with an error without running.
type WriteJob = Box<dyn FnOnce(Option<&mut WriteTx<'_>>) -> Completion + Send>;

/// What a job leaves behind until the commit decides its fate.
struct Completion {
    ok: bool,
    /// Sends the job's result, or the commit error if the commit failed.
    finish: Box<dyn FnOnce(Option<Error>) + Send>,
}

impl Db {
    /// Opens the database at `path` (creating and migrating it) and starts the threads.
    pub fn open(path: &Path, cfg: &DatabaseConfig, on_commit: CommitHook) -> Result<Db> {
        // Owner-only before SQLite opens it: SQLite gives the WAL and shared-memory files the
        // database file's permissions; older ones left wider are tightened too.
        let private = |p: &Path, made: std::io::Result<()>| {
            made.map_err(|e| Error::internal(format!("cannot secure {}: {e}", p.display())))
        };
        private(path, crate::private_files::private_file(path))?;
        for suffix in ["-wal", "-shm"] {
            let mut side = path.as_os_str().to_owned();
            side.push(suffix);
            let side = std::path::PathBuf::from(side);
            private(&side, crate::private_files::tighten_if_present(&side))?;
        }
        let conn = migrate::open_writer(path, cfg.synchronous)?;
        conn.execute_batch(&format!("PRAGMA cache_size = -{};", cfg.cache_mib * 1024))?;
        let sync = cfg.synchronous;
        let read_cache_kib = (cfg.read_cache_mib * 1024) as i64;
        let manager = SqliteConnectionManager::file(path)
            .with_flags(OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)
            .with_init(move |c| {
                migrate::configure(c, sync, read_cache_kib)?;
                c.execute_batch("PRAGMA query_only = ON;")
            });
        let read_pool = r2d2::Pool::builder()
            .max_size(cfg.read_threads as u32)
            .min_idle(Some(0))
            .build(manager)?;
        let (writer, jobs) = mpsc::channel::<WriteJob>();
        let writer_metrics = Arc::new(WriterMetrics::default());
        let stats = Arc::clone(&writer_metrics);
        std::thread::Builder::new()
            .name("outpost-writer".into())
            .spawn(move || writer_loop(conn, jobs, on_commit, &stats))
            .map_err(|e| Error::internal(format!("cannot start writer thread: {e}")))?;
        Ok(Db {
            path: path.to_path_buf(),
            writer,
            read_pool,
            readers: ThreadPool::new("outpost-read", cfg.read_threads)?,
            cpu: ThreadPool::new("outpost-cpu", 2)?,
            documents: ThreadPool::new("outpost-doc", 1)?,
            writer_metrics,
        })
    }

    /// The writer's counters: batches, jobs, queue depth, waits.
    pub fn writer_metrics(&self) -> &WriterMetrics {
        &self.writer_metrics
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `f` on a reader thread with a pooled read-only connection.
    pub async fn read<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T> + Send + 'static,
    {
        let pool = self.read_pool.clone();
        self.readers
            .run(move || {
                let conn = pool.get()?;
                f(&conn)
            })
            .await?
    }

    /// Runs `f` inside the writer's transaction; resolves after the commit that includes it.
    pub async fn write<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut WriteTx<'_>) -> Result<T> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel::<Result<T>>();
        let submitted = Instant::now();
        let stats = Arc::clone(&self.writer_metrics);
        let job: WriteJob = Box::new(move |tx| {
            let res = match tx {
                Some(tx) => f(tx),
                None => Err(Error::internal("could not open a write transaction")),
            };
            Completion {
                ok: res.is_ok(),
                finish: Box::new(move |commit_err| {
                    stats.wait.observe(submitted.elapsed());
                    let _ = reply.send(match commit_err {
                        Some(e) => Err(e),
                        None => res,
                    });
                }),
            }
        });
        self.writer_metrics.queued.fetch_add(1, Ordering::Relaxed);
        if self.writer.send(job).is_err() {
            self.writer_metrics.queued.fetch_sub(1, Ordering::Relaxed);
            return Err(Error::internal("the writer thread has stopped"));
        }
        answer
            .await
            .map_err(|_| Error::internal("a write job panicked"))?
    }

    /// Runs CPU-heavy work (password hashing) on the dedicated CPU threads.
    pub async fn cpu<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        self.cpu.run(f).await
    }

    /// Parses an uploaded document (a BOM, a VEX, their multipart bodies) on the one document
    /// thread; documents wait for each other, never for (or in front of) password hashing.
    pub async fn documents<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        self.documents.run(f).await
    }

    /// Writes a consistent copy of the database to `dest` while others keep using it.
    pub async fn backup_to(&self, dest: PathBuf) -> Result<()> {
        self.read(move |c| backup(c, &dest)).await
    }
}

/// Copies a live database into a new file with SQLite's online backup API, in one step, so the
/// copy is a consistent snapshot while writers carry on (WAL lets them).
pub fn backup(conn: &Connection, dest: &Path) -> Result<()> {
    if dest.exists() {
        return Err(Error::bad_request(format!(
            "{} already exists; choose a new file",
            dest.display()
        )));
    }
    crate::private_files::new_private_file(dest)
        .map_err(|e| Error::internal(format!("cannot create {}: {e}", dest.display())))?;
    let mut out = Connection::open(dest)
        .map_err(|e| Error::internal(format!("cannot create {}: {e}", dest.display())))?;
    {
        let copy = rusqlite::backup::Backup::new(conn, &mut out)?;
        match copy.step(-1)? {
            rusqlite::backup::StepResult::Done => {}
            other => {
                return Err(Error::internal(format!("backup did not finish: {other:?}")));
            }
        }
    }
    let check: String = out.query_row("PRAGMA quick_check", [], |r| r.get(0))?;
    if check != "ok" {
        return Err(Error::internal(format!("backup failed its check: {check}")));
    }
    Ok(())
}

fn writer_loop(
    mut conn: Connection,
    jobs: mpsc::Receiver<WriteJob>,
    on_commit: CommitHook,
    stats: &WriterMetrics,
) {
    while let Ok(first) = jobs.recv() {
        let mut batch = Vec::with_capacity(16);
        batch.push(first);
        while batch.len() < MAX_BATCH {
            match jobs.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        let started = Instant::now();
        let n = batch.len() as u64;
        stats.queued.fetch_sub(n, Ordering::Relaxed);
        let (completions, events, commit) = run_batch(&mut conn, batch);
        stats.commit.observe(started.elapsed());
        stats.batches.fetch_add(1, Ordering::Relaxed);
        stats.jobs.fetch_add(n, Ordering::Relaxed);
        if commit.is_err() {
            stats.failed_commits.fetch_add(1, Ordering::Relaxed);
        }
        match commit {
            Ok(()) => {
                if !events.is_empty() {
                    on_commit(events);
                }
                for c in completions {
                    (c.finish)(None);
                }
            }
            Err(e) => {
                tracing::error!(error = %e, "commit failed; every job of the batch fails");
                for c in completions {
                    (c.finish)(Some(Error::internal(format!("commit failed: {e}"))));
                }
            }
        }
    }
}

fn run_batch(
    conn: &mut Connection,
    batch: Vec<WriteJob>,
) -> (Vec<Completion>, Vec<Event>, rusqlite::Result<()>) {
    let mut completions = Vec::with_capacity(batch.len());
    let mut events = Vec::new();
    let tx = match conn.transaction_with_behavior(TransactionBehavior::Immediate) {
        Ok(tx) => tx,
        Err(e) => {
            tracing::error!(error = %e, "cannot begin a write transaction");
            let completions = batch.into_iter().map(|job| job(None)).collect();
            return (completions, events, Ok(()));
        }
    };
    let mut search = Vec::new();
    for job in batch {
        if let Err(e) = savepoint(&tx, "SAVEPOINT job") {
            tracing::error!(error = %e, "cannot open a savepoint");
            completions.push(job(None));
            continue;
        }
        let mut wtx = WriteTx {
            conn: &tx,
            events: Vec::new(),
            search: Vec::new(),
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| job(Some(&mut wtx))));
        match outcome {
            Ok(c) if c.ok => {
                if let Err(e) = savepoint(&tx, "RELEASE job") {
                    tracing::error!(error = %e, "cannot release a savepoint");
                }
                events.append(&mut wtx.events);
                search.append(&mut wtx.search);
                completions.push(c);
            }
            Ok(c) => {
                rollback_job(&tx);
                completions.push(c);
            }
            Err(_) => {
                // The job's reply channel was dropped during the unwind; its caller sees an
                // internal error. Undo whatever it did.
                tracing::error!("a write job panicked; its changes were rolled back");
                rollback_job(&tx);
            }
        }
    }
    // The batch's search-index changes, then the commit; if either fails, nothing of the batch
    // is kept (dropping the transaction rolls it back).
    let commit = messages::apply_search_changes(&tx, &search).and_then(|()| tx.commit());
    (completions, events, commit)
}

/// Opens or releases the job savepoint through a cached statement (parsed once).
fn savepoint(tx: &Connection, sql: &str) -> rusqlite::Result<()> {
    tx.prepare_cached(sql)?.execute([])?;
    Ok(())
}

fn rollback_job(tx: &Connection) {
    if let Err(e) = tx.execute_batch("ROLLBACK TO job; RELEASE job") {
        tracing::error!(error = %e, "cannot roll back a savepoint");
    }
}

/// A fixed set of named threads running boxed tasks from one queue.
struct ThreadPool {
    tasks: mpsc::Sender<Box<dyn FnOnce() + Send>>,
}

impl ThreadPool {
    fn new(name: &str, threads: usize) -> Result<ThreadPool> {
        let (tasks, queue) = mpsc::channel::<Box<dyn FnOnce() + Send>>();
        let queue = Arc::new(Mutex::new(queue));
        for i in 0..threads.max(1) {
            let queue = Arc::clone(&queue);
            std::thread::Builder::new()
                .name(format!("{name}-{i}"))
                .spawn(move || {
                    loop {
                        // The lock is held only while waiting for the next task.
                        let task = match queue.lock() {
                            Ok(q) => q.recv(),
                            Err(_) => return,
                        };
                        match task {
                            Ok(task) => {
                                // A panicking task drops its reply sender; the caller sees an
                                // internal error and the thread lives on.
                                let _ = catch_unwind(AssertUnwindSafe(task));
                            }
                            Err(_) => return,
                        }
                    }
                })
                .map_err(|e| Error::internal(format!("cannot start {name} thread: {e}")))?;
        }
        Ok(ThreadPool { tasks })
    }

    async fn run<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let (reply, answer) = oneshot::channel();
        self.tasks
            .send(Box::new(move || {
                let _ = reply.send(f());
            }))
            .map_err(|_| Error::internal("worker threads have stopped"))?;
        answer
            .await
            .map_err(|_| Error::internal("a background task panicked"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Synchronous;
    use crate::events::UserDeactivated;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn open(dir: &Path, hook: CommitHook) -> Db {
        let cfg = DatabaseConfig {
            synchronous: Synchronous::Normal,
            read_threads: 2,
            cache_mib: 8,
            read_cache_mib: 2,
        };
        Db::open(&dir.join("t.sqlite"), &cfg, hook).unwrap()
    }

    #[tokio::test]
    async fn failing_job_changes_nothing_while_others_commit() {
        let dir = tempfile::tempdir().unwrap();
        let db = Arc::new(open(dir.path(), Box::new(|_| {})));
        let mut handles = Vec::new();
        for i in 0..50i64 {
            let db = Arc::clone(&db);
            handles.push(tokio::spawn(async move {
                db.write(move |tx| {
                    tx.execute(
                        "INSERT INTO meta (key, value) VALUES (?1, 'x')",
                        [format!("k{i}")],
                    )?;
                    if i % 5 == 0 {
                        return Err(Error::bad_request("refused"));
                    }
                    Ok(i)
                })
                .await
            }));
        }
        let mut ok = 0;
        for h in handles {
            if h.await.unwrap().is_ok() {
                ok += 1;
            }
        }
        assert_eq!(ok, 40);
        let n: i64 = db
            .read(|c| {
                Ok(
                    c.query_row("SELECT count(*) FROM meta WHERE key LIKE 'k%'", [], |r| {
                        r.get(0)
                    })?,
                )
            })
            .await
            .unwrap();
        assert_eq!(n, 40);
    }

    #[tokio::test]
    async fn panicking_job_is_rolled_back_and_reported() {
        let dir = tempfile::tempdir().unwrap();
        let db = open(dir.path(), Box::new(|_| {}));
        let res: Result<()> = db
            .write(|tx| {
                tx.execute("INSERT INTO meta (key, value) VALUES ('p', 'x')", [])?;
                panic!("boom");
            })
            .await;
        assert_eq!(res.unwrap_err().kind, crate::error::ErrorKind::Internal);
        let n: i64 = db
            .read(|c| {
                Ok(
                    c.query_row("SELECT count(*) FROM meta WHERE key = 'p'", [], |r| {
                        r.get(0)
                    })?,
                )
            })
            .await
            .unwrap();
        assert_eq!(n, 0);
        // The writer still works.
        db.write(|tx| Ok(tx.execute("INSERT INTO meta (key, value) VALUES ('q', 'x')", [])?))
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn events_reach_the_hook_after_commit_in_commit_order() {
        let dir = tempfile::tempdir().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let calls = Arc::new(AtomicUsize::new(0));
        let (s, c) = (Arc::clone(&seen), Arc::clone(&calls));
        let db = open(
            dir.path(),
            Box::new(move |events| {
                c.fetch_add(1, Ordering::SeqCst);
                s.lock().unwrap().extend(events);
            }),
        );
        for id in 1..=3 {
            db.write(move |tx| {
                tx.emit(Event::UserDeactivated(UserDeactivated {
                    user_id: crate::ids::UserId(id),
                }));
                Ok(())
            })
            .await
            .unwrap();
        }
        let _: Result<()> = db
            .write(|tx| {
                tx.emit(Event::UserDeactivated(UserDeactivated {
                    user_id: crate::ids::UserId(99),
                }));
                Err(Error::bad_request("no"))
            })
            .await;
        // One hook call per committed batch with events; the refused job's batch had none.
        assert_eq!(calls.load(Ordering::SeqCst), 3);
        let seen = seen.lock().unwrap();
        let ids: Vec<i64> = seen
            .iter()
            .map(|e| match e {
                Event::UserDeactivated(UserDeactivated { user_id }) => user_id.0,
                _ => -1,
            })
            .collect();
        assert_eq!(ids, vec![1, 2, 3]);
    }
}
