//! The hub events are published to: numbers every event in publication order and passes it,
//! without loss, to the one delivery pipeline and, best effort, to in-process subscribers.
//! Must not touch the database or know any wire format.

use std::sync::{Arc, Mutex};

use tokio::sync::{broadcast, mpsc};

use super::Event;

/// The delivery pipeline's end: events numbered in publication order.
type Pipeline = mpsc::UnboundedSender<(u64, Arc<Event>)>;

/// Fan-out point for events. The delivery pipeline gets every event (unbounded, never lossy);
/// other subscribers that fall behind lose the oldest events (and are told so by `broadcast`'s
/// `Lagged`). Publishing never blocks the writer.
pub struct EventHub {
    sender: broadcast::Sender<Arc<Event>>,
    pipeline: Mutex<Option<Pipeline>>,
    /// Sequence number of the last published event.
    seq: std::sync::atomic::AtomicU64,
}

impl Default for EventHub {
    fn default() -> Self {
        EventHub {
            sender: broadcast::channel(4096).0,
            pipeline: Mutex::new(None),
            seq: std::sync::atomic::AtomicU64::new(0),
        }
    }
}

impl EventHub {
    /// Publishes events, in order: committed batches from the storage engine, or ephemeral
    /// events (typing) from their handlers.
    pub fn publish(&self, events: Vec<Event>) {
        let Ok(pipeline) = self.pipeline.lock() else {
            return;
        };
        for e in events {
            let e = Arc::new(e);
            // Numbered under the pipeline lock, so numbers follow publication order.
            let seq = self.seq.fetch_add(1, std::sync::atomic::Ordering::AcqRel) + 1;
            if let Some(p) = pipeline.as_ref() {
                let _ = p.send((seq, Arc::clone(&e)));
            }
            // No subscribers is fine: nobody is listening yet.
            let _ = self.sender.send(e);
        }
    }

    /// The sequence number of the newest published event. A queue registered now should get
    /// only events numbered higher: the state it is sent already reflects the others.
    pub fn current_seq(&self) -> u64 {
        // Taking the lock orders this read after any publication in progress.
        let _guard = self.pipeline.lock();
        self.seq.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Connects the (single) delivery pipeline; events published from now on reach it,
    /// numbered in publication order.
    pub fn attach_pipeline(&self) -> mpsc::UnboundedReceiver<(u64, Arc<Event>)> {
        let (tx, rx) = mpsc::unbounded_channel();
        if let Ok(mut p) = self.pipeline.lock() {
            *p = Some(tx);
        }
        rx
    }

    /// Disconnects the delivery pipeline (its task ends once it has delivered what it holds).
    pub fn detach_pipeline(&self) {
        if let Ok(mut p) = self.pipeline.lock() {
            *p = None;
        }
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Event>> {
        self.sender.subscribe()
    }
}
