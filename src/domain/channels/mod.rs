//! Channel rules, one idea per file: who may see, join, post to and administer a channel
//! (`access`), the input rules for names, descriptions, colors and group settings (`values`),
//! creating channels (`creation`), subscribing and unsubscribing users and their personal
//! subscription properties (`subscriptions`), reading channels for listings (`listing`), and
//! changing and archiving channels (`updates`).
//!
//! Every check runs inside the same transaction as the change it guards. Writes emit the events
//! that describe them. No HTTP or wire JSON here; no SQL (that is `db::channels`).

mod access;
mod creation;
mod listing;
mod subscriptions;
mod updates;
mod values;

pub const MAX_NAME_LENGTH: usize = 60;
pub const MAX_DESCRIPTION_LENGTH: usize = 1024;

pub use access::{Access, access, metadata_audience, visible_by_id};
pub use creation::{ChannelOptions, create};
pub use listing::{ListFilter, Listed, get, id_by_name, list, members, my_subscriptions};
pub use subscriptions::{
    PropertyChange, SubscribeOutcome, SubscriptionRequest, UserRefArg, may_add_others,
    set_properties, subscribe, subscribe_new_user, unsubscribe,
};
pub use updates::{ChannelUpdate, SettingChange, archive, update};
pub use values::{
    check_color, check_description, check_name, parse_group_setting, parse_retention,
};
