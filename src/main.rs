//! The `outpost` executable: parses the command line and runs it (see `outpost::cli`).

fn main() -> std::process::ExitCode {
    outpost::cli::main()
}

/// jemalloc: less lock contention and fragmentation than glibc's allocator when thousands of
/// connections allocate from several threads.
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;
