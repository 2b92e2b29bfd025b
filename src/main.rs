//! The `outpost` executable: parses the command line and runs it (see `outpost::cli`).

fn main() -> std::process::ExitCode {
    outpost::cli::main()
}
