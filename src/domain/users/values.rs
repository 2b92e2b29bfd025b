//! What a user's full name, email address and password may be, as Zulip accepts them: pure
//! checks on the input, no database (whether an address is taken is `clashes`).

use crate::error::{Error, Result};

pub const MAX_NAME_LENGTH: usize = 100;
pub const MIN_NAME_LENGTH: usize = 2;
pub const MIN_PASSWORD_LENGTH: usize = 6;
pub const MAX_PASSWORD_LENGTH: usize = 100;
const NAME_INVALID_CHARS: &[char] = &['*', '`', '\\', '>', '"', '@'];

/// Validates and normalizes a full name as Zulip does.
pub fn check_full_name(raw: &str) -> Result<String> {
    let name = raw.trim();
    if name.chars().count() > MAX_NAME_LENGTH {
        return Err(Error::bad_request("Name too long!"));
    }
    if name.chars().count() < MIN_NAME_LENGTH {
        return Err(Error::bad_request("Name too short!"));
    }
    if name
        .chars()
        .any(|c| NAME_INVALID_CHARS.contains(&c) || c.is_control())
    {
        return Err(Error::bad_request("Invalid characters in name!"));
    }
    Ok(name.to_string())
}

/// A plausible email address: one `@`, a non-empty local part, a dotted domain, no spaces.
pub fn is_valid_email(email: &str) -> bool {
    let Some((local, domain)) = email.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && email.len() <= 254
        && !domain.contains('@')
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !email.chars().any(|c| c.is_whitespace() || c.is_control())
}

pub fn check_password_strength(pw: &str) -> Result<()> {
    let n = pw.chars().count();
    if n < MIN_PASSWORD_LENGTH {
        return Err(Error::bad_request("The password is too weak."));
    }
    if n > MAX_PASSWORD_LENGTH {
        return Err(Error::bad_request(format!(
            "password is too long (limit: {MAX_PASSWORD_LENGTH} characters)"
        )));
    }
    Ok(())
}
