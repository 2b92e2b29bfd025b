//! The event queues across a graceful restart: a graceful stop writes every queue (id, owner,
//! options with the narrow resolved at registration, unacknowledged events, acknowledgement
//! state, idle time) to one file in the data directory, and the next start reads it back and
//! deletes it, so clients carry on with the same `queue_id` (upstream dumps and reloads its
//! queues the same way). After an unclean stop there is no file and clients re-register on
//! `BAD_EVENT_QUEUE_ID`, as for any lost queue.
//!
//! The file is written atomically (temporary file, fsync, rename, fsync of the directory) and
//! owner-only, since events carry message content. It names its format version; a file of
//! another version, or one that does not parse, is logged and ignored. The format is this
//! module's own (not an API shape): private mirror structs, converted field by field so a new
//! queue option cannot be forgotten silently. Owns that file alone; must not touch the
//! database.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::queues::{QueueOptions, SavedQueue};
use crate::ids::UserId;
use crate::model::{Narrow, NarrowTerm, Operand};

/// The file's name inside the data directory.
pub const FILE_NAME: &str = "event-queues.json";

/// The format version this build writes and reads.
pub const VERSION: u32 = 1;

/// Where the snapshot of a data directory lives.
pub fn path_in(data_dir: &Path) -> PathBuf {
    data_dir.join(FILE_NAME)
}

/// What a graceful stop saved.
#[derive(Debug, PartialEq)]
pub struct Snapshot {
    /// When it was written (seconds since the epoch).
    pub saved_at: u64,
    pub queues: Vec<SavedQueue>,
}

impl Snapshot {
    /// How long ago it was written, as of `now` (zero if the clock went back).
    pub fn age(&self, now: SystemTime) -> Duration {
        let now = now.duration_since(UNIX_EPOCH).unwrap_or_default();
        now.saturating_sub(Duration::from_secs(self.saved_at))
    }
}

#[derive(Serialize, Deserialize)]
struct FileV1 {
    version: u32,
    saved_at: u64,
    queues: Vec<QueueV1>,
}

/// Only the version, read first so a file of another version is recognized as such.
#[derive(Deserialize)]
struct Header {
    version: u32,
}

#[derive(Serialize, Deserialize)]
struct QueueV1 {
    id: String,
    user_id: i64,
    options: OptionsV1,
    /// `(id, event JSON without its closing brace and id)`.
    events: Vec<(i64, String)>,
    next_id: i64,
    newest_pruned: i64,
    idle_ms: u64,
}

#[derive(Serialize, Deserialize)]
struct OptionsV1 {
    event_types: Option<Vec<String>>,
    apply_markdown: bool,
    client_gravatar: bool,
    slim_presence: bool,
    all_public_streams: bool,
    narrow: Vec<TermV1>,
    bulk_message_deletion: bool,
    user_settings_object: bool,
    stream_typing_notifications: bool,
    empty_topic_name: bool,
    user_avatar_url_field_optional: bool,
    archived_channels: bool,
    include_deactivated_groups: bool,
    lifespan_secs: Option<u64>,
}

#[derive(Serialize, Deserialize)]
struct TermV1 {
    operator: String,
    operand: OperandV1,
    negated: bool,
}

#[derive(Serialize, Deserialize)]
enum OperandV1 {
    Str(String),
    Int(i64),
    OtherNumber(String),
    List(Vec<OperandV1>),
    Other(String),
}

impl From<&Operand> for OperandV1 {
    fn from(o: &Operand) -> Self {
        match o {
            Operand::Str(s) => OperandV1::Str(s.clone()),
            Operand::Int(i) => OperandV1::Int(*i),
            Operand::OtherNumber(s) => OperandV1::OtherNumber(s.clone()),
            Operand::List(items) => OperandV1::List(items.iter().map(Into::into).collect()),
            Operand::Other(s) => OperandV1::Other(s.clone()),
        }
    }
}

impl From<OperandV1> for Operand {
    fn from(o: OperandV1) -> Self {
        match o {
            OperandV1::Str(s) => Operand::Str(s),
            OperandV1::Int(i) => Operand::Int(i),
            OperandV1::OtherNumber(s) => Operand::OtherNumber(s),
            OperandV1::List(items) => Operand::List(items.into_iter().map(Into::into).collect()),
            OperandV1::Other(s) => Operand::Other(s),
        }
    }
}

impl From<&QueueOptions> for OptionsV1 {
    fn from(o: &QueueOptions) -> Self {
        // Destructured in full: a new option fails to compile here until it is saved.
        let QueueOptions {
            event_types,
            apply_markdown,
            client_gravatar,
            slim_presence,
            all_public_streams,
            narrow,
            bulk_message_deletion,
            user_settings_object,
            stream_typing_notifications,
            empty_topic_name,
            user_avatar_url_field_optional,
            archived_channels,
            include_deactivated_groups,
            lifespan,
        } = o;
        OptionsV1 {
            event_types: event_types.clone(),
            apply_markdown: *apply_markdown,
            client_gravatar: *client_gravatar,
            slim_presence: *slim_presence,
            all_public_streams: *all_public_streams,
            narrow: narrow
                .terms
                .iter()
                .map(|t| TermV1 {
                    operator: t.operator.clone(),
                    operand: (&t.operand).into(),
                    negated: t.negated,
                })
                .collect(),
            bulk_message_deletion: *bulk_message_deletion,
            user_settings_object: *user_settings_object,
            stream_typing_notifications: *stream_typing_notifications,
            empty_topic_name: *empty_topic_name,
            user_avatar_url_field_optional: *user_avatar_url_field_optional,
            archived_channels: *archived_channels,
            include_deactivated_groups: *include_deactivated_groups,
            lifespan_secs: lifespan.map(|d| d.as_secs()),
        }
    }
}

impl From<OptionsV1> for QueueOptions {
    fn from(o: OptionsV1) -> Self {
        QueueOptions {
            event_types: o.event_types,
            apply_markdown: o.apply_markdown,
            client_gravatar: o.client_gravatar,
            slim_presence: o.slim_presence,
            all_public_streams: o.all_public_streams,
            narrow: Narrow {
                terms: o
                    .narrow
                    .into_iter()
                    .map(|t| NarrowTerm {
                        operator: t.operator,
                        operand: t.operand.into(),
                        negated: t.negated,
                    })
                    .collect(),
            },
            bulk_message_deletion: o.bulk_message_deletion,
            user_settings_object: o.user_settings_object,
            stream_typing_notifications: o.stream_typing_notifications,
            empty_topic_name: o.empty_topic_name,
            user_avatar_url_field_optional: o.user_avatar_url_field_optional,
            archived_channels: o.archived_channels,
            include_deactivated_groups: o.include_deactivated_groups,
            lifespan: o.lifespan_secs.map(Duration::from_secs),
        }
    }
}

/// Serializes a snapshot in the current format.
fn encode(snapshot: &Snapshot) -> Vec<u8> {
    let file = FileV1 {
        version: VERSION,
        saved_at: snapshot.saved_at,
        queues: snapshot
            .queues
            .iter()
            .map(|q| QueueV1 {
                id: q.id.clone(),
                user_id: q.user_id.0,
                options: (&q.options).into(),
                events: q
                    .events
                    .iter()
                    .map(|(id, body)| (*id, body.to_string()))
                    .collect(),
                next_id: q.next_id,
                newest_pruned: q.newest_pruned,
                idle_ms: u64::try_from(q.idle.as_millis()).unwrap_or(u64::MAX),
            })
            .collect(),
    };
    serde_json::to_vec(&file).expect("plain data serializes")
}

/// Parses a snapshot; the error says why it cannot be used.
fn decode(bytes: &[u8]) -> Result<Snapshot, String> {
    let header: Header = serde_json::from_slice(bytes).map_err(|e| format!("unreadable ({e})"))?;
    if header.version != VERSION {
        return Err(format!(
            "format version {} (this build reads version {VERSION})",
            header.version
        ));
    }
    let file: FileV1 = serde_json::from_slice(bytes).map_err(|e| format!("unreadable ({e})"))?;
    Ok(Snapshot {
        saved_at: file.saved_at,
        queues: file
            .queues
            .into_iter()
            .map(|q| SavedQueue {
                id: q.id,
                user_id: UserId(q.user_id),
                options: q.options.into(),
                events: q
                    .events
                    .into_iter()
                    .map(|(id, body)| (id, Arc::from(body)))
                    .collect(),
                next_id: q.next_id,
                newest_pruned: q.newest_pruned,
                idle: Duration::from_millis(q.idle_ms),
            })
            .collect(),
    })
}

/// Writes the snapshot to `path` atomically and owner-only: a temporary file next to it,
/// flushed to disk, renamed over `path`, then the directory flushed.
pub fn save(path: &Path, snapshot: &Snapshot) -> std::io::Result<()> {
    let tmp = path.with_extension("json.tmp");
    match std::fs::remove_file(&tmp) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let mut f = crate::private_files::new_private_file(&tmp)?;
    f.write_all(&encode(snapshot))?;
    f.sync_all()?;
    drop(f);
    std::fs::rename(&tmp, path)?;
    if let Some(dir) = path.parent() {
        std::fs::File::open(dir)?.sync_all()?;
    }
    Ok(())
}

/// Reads and deletes the snapshot at `path`. `None` when there is none, or when it cannot be
/// used (another format version, unreadable): that is logged, the file is removed, and the
/// start goes on as after a crash.
pub fn take(path: &Path) -> Option<Snapshot> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "cannot read the saved event queues; ignoring them");
            return None;
        }
    };
    if let Err(e) = std::fs::remove_file(path) {
        tracing::warn!(path = %path.display(), error = %e, "cannot remove the saved event queues");
    }
    match decode(&bytes) {
        Ok(s) => Some(s),
        Err(why) => {
            tracing::warn!(path = %path.display(), %why, "saved event queues not used; clients will re-register");
            None
        }
    }
}

/// Seconds since the epoch at `now`.
pub fn unix_secs(now: SystemTime) -> u64 {
    now.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Snapshot {
        let options = QueueOptions {
            event_types: Some(vec!["message".into(), "heartbeat".into()]),
            apply_markdown: true,
            narrow: Narrow {
                terms: vec![
                    NarrowTerm {
                        operator: "channel".into(),
                        operand: Operand::Int(7),
                        negated: false,
                    },
                    NarrowTerm {
                        operator: "topic".into(),
                        operand: Operand::Str("lunch".into()),
                        negated: true,
                    },
                ],
            },
            empty_topic_name: true,
            lifespan: Some(Duration::from_secs(3600)),
            ..QueueOptions::default()
        };
        Snapshot {
            saved_at: 1_700_000_000,
            queues: vec![SavedQueue {
                id: "00ff:3".into(),
                user_id: UserId(9),
                options,
                events: vec![(4, Arc::from("{\"type\":\"message\",\"x\":\"é\""))],
                next_id: 5,
                newest_pruned: 3,
                idle: Duration::from_millis(1500),
            }],
        }
    }

    #[test]
    fn round_trips_every_field() {
        let s = sample();
        assert_eq!(decode(&encode(&s)).unwrap(), s);
    }

    #[test]
    fn saves_owner_only_and_take_removes_the_file() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = path_in(dir.path());
        save(&path, &sample()).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert!(!path.with_extension("json.tmp").exists());
        assert_eq!(take(&path), Some(sample()));
        assert!(!path.exists());
        assert_eq!(take(&path), None);
    }

    #[test]
    fn other_versions_and_garbage_are_ignored_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let path = path_in(dir.path());
        std::fs::write(&path, b"{\"version\":999,\"whatever\":[]}").unwrap();
        assert_eq!(take(&path), None);
        assert!(!path.exists());
        std::fs::write(&path, b"{\"version\":1,\"saved_at\":").unwrap();
        assert_eq!(take(&path), None);
        assert!(!path.exists());
        assert!(
            decode(b"{\"version\":2}")
                .unwrap_err()
                .contains("version 2")
        );
    }

    #[test]
    fn age_counts_from_the_save_and_never_goes_negative() {
        let s = sample();
        let at = UNIX_EPOCH + Duration::from_secs(s.saved_at + 90);
        assert_eq!(s.age(at), Duration::from_secs(90));
        assert_eq!(s.age(UNIX_EPOCH), Duration::ZERO);
    }
}
