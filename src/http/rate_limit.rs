//! Request rate limits (upstream's `api_by_user` and `api_by_ip` rules): for each key (a chat
//! user, a Dependency-Track principal, a client address) a bucket of `per_minute` requests that
//! refills continuously, so at most `per_minute` requests pass in any minute after a full
//! bucket. Answers carry `X-RateLimit-Limit`, `-Remaining` and `-Reset` (Unix seconds when the
//! bucket is full again), as upstream's middleware sends them.
//!
//! Knows nothing of either API's error format: the APIs turn a refusal into their own answer.
//! Idle buckets are pruned by the server's periodic sweep, so memory follows active clients.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use hyper::header::{HeaderName, HeaderValue};

use super::Response;

/// Who a bucket belongs to.
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
pub enum RateKey {
    /// A chat user, by id.
    User(i64),
    /// A Dependency-Track principal (API key or user), by a stable name.
    Principal(String),
    /// An unauthenticated client, by address.
    Addr(IpAddr),
}

/// The bucket's state after a request, for the response headers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateState {
    pub limit: u32,
    pub remaining: u32,
    /// Unix seconds at which the bucket is full again.
    pub reset: u64,
}

/// What the limiter decided.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Verdict {
    Allowed(RateState),
    /// Over the limit: the request must be refused; one more is allowed after `retry_after`.
    Limited {
        state: RateState,
        retry_after: Duration,
    },
}

/// A refused request: the bucket's state (for the headers) and when one more is allowed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limited {
    pub state: RateState,
    pub retry_after: Duration,
}

struct Bucket {
    tokens: f64,
    updated: Instant,
}

/// One limit (`per_minute` requests per key); `per_minute == 0` turns it off.
pub struct RateLimiter {
    per_minute: u32,
    buckets: Mutex<HashMap<RateKey, Bucket>>,
}

impl RateLimiter {
    pub fn new(per_minute: u32) -> RateLimiter {
        RateLimiter {
            per_minute,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Whether the limit is on at all.
    pub fn enabled(&self) -> bool {
        self.per_minute > 0
    }

    fn per_second(&self) -> f64 {
        f64::from(self.per_minute) / 60.0
    }

    /// Counts one request of `key` at `now`; `None` when the limit is off.
    pub fn check(&self, key: RateKey, now: Instant) -> Option<Verdict> {
        if !self.enabled() {
            return None;
        }
        let cap = f64::from(self.per_minute);
        let rate = self.per_second();
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        let b = buckets.entry(key).or_insert(Bucket {
            tokens: cap,
            updated: now,
        });
        let elapsed = now.saturating_duration_since(b.updated).as_secs_f64();
        b.tokens = (b.tokens + elapsed * rate).min(cap);
        b.updated = now;
        let allowed = b.tokens >= 1.0;
        if allowed {
            b.tokens -= 1.0;
        }
        let to_full = Duration::from_secs_f64((cap - b.tokens) / rate);
        let unix_now = crate::time::now_secs().max(0) as u64;
        let state = RateState {
            limit: self.per_minute,
            remaining: b.tokens.floor() as u32,
            reset: unix_now + to_full.as_secs_f64().ceil() as u64,
        };
        Some(if allowed {
            Verdict::Allowed(state)
        } else {
            Verdict::Limited {
                state,
                retry_after: Duration::from_secs_f64((1.0 - b.tokens) / rate),
            }
        })
    }

    /// Forgets buckets that have refilled completely by `now` (their keys are idle); returns
    /// how many remain.
    pub fn prune(&self, now: Instant) -> usize {
        let cap = f64::from(self.per_minute);
        let rate = self.per_second();
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        buckets.retain(|_, b| {
            let elapsed = now.saturating_duration_since(b.updated).as_secs_f64();
            b.tokens + elapsed * rate < cap
        });
        buckets.len()
    }
}

/// Adds upstream's `X-RateLimit-*` headers to an answer.
pub fn add_headers(res: &mut Response, s: &RateState) {
    let h = res.headers_mut();
    for (name, value) in [
        ("x-ratelimit-limit", u64::from(s.limit)),
        ("x-ratelimit-remaining", u64::from(s.remaining)),
        ("x-ratelimit-reset", s.reset),
    ] {
        h.insert(HeaderName::from_static(name), HeaderValue::from(value));
    }
}

/// The process's rate limits, from `[limits]`.
pub struct Rates {
    /// Per authenticated user or API principal.
    pub users: RateLimiter,
    /// Per client address, for unauthenticated requests.
    pub addrs: RateLimiter,
    pub exempt_bots: bool,
    exempt_addrs: Vec<IpAddr>,
}

impl Rates {
    pub fn new(l: &crate::config::LimitsConfig) -> Rates {
        Rates {
            users: RateLimiter::new(l.user_requests_per_minute),
            addrs: RateLimiter::new(l.ip_requests_per_minute),
            exempt_bots: l.rate_limit_exempt_bots,
            exempt_addrs: l.rate_limit_exempt_addresses.clone(),
        }
    }

    /// Whether requests from this address skip every limit.
    pub fn exempt(&self, addr: IpAddr) -> bool {
        self.exempt_addrs.contains(&addr.to_canonical())
    }

    /// Counts one request: against the caller's bucket (`(key, is_bot)`), or before
    /// authentication against the client address's. Exempt addresses and, when configured,
    /// bots are not counted (`Ok(None)`). `Err` is a refusal, with the state for the headers.
    pub fn admit(
        &self,
        caller: Option<(RateKey, bool)>,
        peer: IpAddr,
    ) -> Result<Option<RateState>, Limited> {
        if self.exempt(peer) {
            return Ok(None);
        }
        let now = Instant::now();
        let verdict = match caller {
            Some((_, true)) if self.exempt_bots => None,
            Some((key, _)) => self.users.check(key, now),
            None => self.addrs.check(RateKey::Addr(peer), now),
        };
        match verdict {
            None => Ok(None),
            Some(Verdict::Allowed(s)) => Ok(Some(s)),
            Some(Verdict::Limited { state, retry_after }) => Err(Limited { state, retry_after }),
        }
    }

    /// Drops idle buckets of both limits.
    pub fn prune(&self, now: Instant) {
        self.users.prune(now);
        self.addrs.prune(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_bucket_allows_the_limit_then_refills_over_a_minute() {
        let l = RateLimiter::new(3);
        let t0 = Instant::now();
        let key = || RateKey::User(1);
        for left in [2, 1, 0] {
            match l.check(key(), t0) {
                Some(Verdict::Allowed(s)) => assert_eq!((s.limit, s.remaining), (3, left)),
                other => panic!("{other:?}"),
            }
        }
        match l.check(key(), t0) {
            Some(Verdict::Limited { retry_after, .. }) => {
                assert!(
                    (retry_after.as_secs_f64() - 20.0).abs() < 0.01,
                    "{retry_after:?}"
                )
            }
            other => panic!("{other:?}"),
        }
        // Another key has its own bucket.
        assert!(matches!(
            l.check(RateKey::User(2), t0),
            Some(Verdict::Allowed(_))
        ));
        // One request's worth comes back every 20 s.
        assert!(matches!(
            l.check(key(), t0 + Duration::from_secs(21)),
            Some(Verdict::Allowed(_))
        ));
        // User 2 has refilled by then (idle, forgotten); user 1 has not.
        assert_eq!(l.prune(t0 + Duration::from_secs(30)), 1);
        assert_eq!(l.prune(t0 + Duration::from_secs(120)), 0);
        assert_eq!(RateLimiter::new(0).check(key(), t0), None);
    }
}
