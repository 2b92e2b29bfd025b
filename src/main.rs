//! The `outpost` executable: parses the command line and runs it (see `outpost::cli`).

fn main() -> std::process::ExitCode {
    outpost::cli::main()
}

/// jemalloc: less lock contention and fragmentation than glibc's allocator when thousands of
/// connections allocate from several threads.
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's start-up options (read before `main`): a background thread returns freed memory
/// to the system within about a second of a spike (large bodies, a burst of connections)
/// instead of keeping it for the life of the process.
#[unsafe(export_name = "_rjem_malloc_conf")]
pub static MALLOC_CONF: Option<&'static u8> = Some(
    &b"background_thread:true,max_background_threads:1,dirty_decay_ms:1000,muzzy_decay_ms:1000\0"
        [0],
);
