//! User rules, one idea per file: what names, addresses and passwords may be (`values`),
//! whether an address is or looks like another account's (`clashes`, [`email_clash`]),
//! creating users and bots (`creation`), reading users (`lookup`), logins and API keys
//! (`login`), profile changes and renaming (`profile`), roles (`roles`), and deactivation with
//! its bots closure (`deactivation`). Statuses are `domain::user_status`; what a profile field
//! value may be is `domain::profile_fields::values`.
//!
//! Functions take typed input and the acting user, check permissions and invariants (the last
//! owner keeps the role, only owners touch the owner role, a new or changed address is not and
//! does not look like another account's, ...), and run their reads and writes through
//! `state.db`. Logins look users up, cache them and count their failures under one key,
//! `email_keys::login_key`. Each write emits the events that describe it. No HTTP or wire JSON.

mod clashes;
mod creation;
mod deactivation;
mod login;
mod lookup;
mod profile;
mod roles;
mod values;

pub use clashes::{EmailClash, EmailKeys, email_clash};
pub use creation::{
    GENERIC_BOT, NewUser, Prepared, create, create_bot, insert_bot, insert_prepared, prepare,
};
pub use deactivation::{deactivate, deactivate_in, reactivate};
pub use login::{
    check_login_limit, login_for_development, login_with_password, regenerate_api_key,
};
pub use lookup::{by_api_key, by_login_email, get, list, profile_values};
pub use profile::{ProfileEdit, UserUpdate, rename, update, update_own_profile};
pub use roles::change_role_in;
pub use values::{
    MAX_NAME_LENGTH, MAX_PASSWORD_LENGTH, MIN_NAME_LENGTH, MIN_PASSWORD_LENGTH, check_full_name,
    check_password_strength, is_valid_email,
};
