//! The organization's settings (`PATCH /realm`, the `realm_*` keys of register), one idea per
//! file: the catalogue of settings with their types, defaults and allowed values and who may
//! change them (`catalogue`), parsing, checking and storing values (`values`), typed reads of
//! the current values (`reads`), and the update rules behind `PATCH /realm` (`update`).
//!
//! Owns the meaning of the sparse `realm_settings` table (SQL in `db::realm_settings`): a
//! setting absent from the table has its default. Values are [`RealmValue`]s; changes leave as
//! [`Event::RealmSettingChanged`](crate::events::Event::RealmSettingChanged). Owns no wire
//! shapes and no HTTP, and never names `domain::user_groups` (whether a user holds a
//! group-valued setting is `user_groups::holds_realm`).

mod catalogue;
mod reads;
mod update;
mod values;

pub use crate::model::RealmValue;
pub use catalogue::*;
pub use reads::{
    all, channel_setting, flag, group_setting, int_setting, name_and_description, time_limit,
};
pub use update::{Change, update};
pub use values::parse_time_limit;
