//! Property-based, fuzz-style tests of the parsers that read hostile input: chat parameters,
//! narrows, Markdown, Basic-auth headers, multipart bodies, CycloneDX JSON and XML, and the TOML
//! config. Each target feeds both structured inputs (built from the syntax the parser knows, so
//! the deep paths are reached) and arbitrary bytes, and asserts that the parser does not panic,
//! answers each input within [`TIME_LIMIT`] and allocates at most [`MEMORY_LIMIT`] bytes while
//! doing so, plus a property where one is meaningful (a round trip, an error with a message).
//!
//! `cargo test --test fuzz` runs a few cases per target. `tests/fuzz/run.sh SECONDS` runs every
//! target for SECONDS each in release mode (through `FUZZ_SECONDS`, see [`fuzz`]). Failures are
//! shrunk by proptest and printed; nothing is written into the working tree.

mod alloc;
mod formats;
mod text;

use std::time::{Duration, Instant};

use proptest::strategy::Strategy;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};

/// Longest any one input may take. Generous: debug builds on a loaded two-core machine.
pub const TIME_LIMIT: Duration = Duration::from_secs(5);
/// Most bytes one input may have allocated at once beyond what was live before it.
pub const MEMORY_LIMIT: usize = 64 << 20;

/// Runs `test` on inputs from `strategy`: `PROPTEST_CASES` cases (default 64), or, with
/// `FUZZ_SECONDS=N`, fresh randomly seeded batches until N seconds have passed. Each case is
/// timed and its allocations measured; a panic, a failed property, a slow or greedy case
/// fails the test with the shrunk input.
pub fn fuzz<S, F>(name: &str, strategy: S, test: F)
where
    S: Strategy,
    S::Value: std::fmt::Debug,
    F: Fn(S::Value) -> Result<(), TestCaseError>,
{
    let seconds: u64 = std::env::var("FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let cases: u32 = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if seconds > 0 { 1000 } else { 64 });
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let start = Instant::now();
    let mut total = 0u64;
    loop {
        let mut runner = TestRunner::new(config.clone());
        let result = runner.run(&strategy, |value| {
            let before = alloc::start();
            let t = Instant::now();
            test(value)?;
            let took = t.elapsed();
            let peak = alloc::peak_since(before);
            if took > TIME_LIMIT {
                return Err(TestCaseError::fail(format!("took {took:?}")));
            }
            if peak > MEMORY_LIMIT {
                return Err(TestCaseError::fail(format!("allocated {peak} bytes")));
            }
            Ok(())
        });
        match result {
            Ok(()) => {}
            Err(TestError::Fail(why, input)) => {
                panic!("{name}: {why}\nminimal failing input: {input:#?}")
            }
            Err(TestError::Abort(why)) => panic!("{name}: aborted: {why}"),
        }
        total += u64::from(cases);
        if start.elapsed() >= Duration::from_secs(seconds) {
            break;
        }
    }
    if seconds > 0 {
        eprintln!(
            "fuzz {name}: {total} cases in {:.0} s, no failure",
            start.elapsed().as_secs_f64()
        );
    }
}
