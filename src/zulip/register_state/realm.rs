//! Register builders for the organization: its settings (`realm_<name>`, from
//! `domain::realm_settings`), the permission metadata of group settings, and the fixed facts
//! and limits (from the constants the endpoints enforce).

use rusqlite::Connection;

use super::{Ctx, State};
use crate::domain::messages::send::{
    EMPTY_TOPIC_DISPLAY_NAME, MAX_MESSAGE_LENGTH, MAX_TOPIC_LENGTH,
};
use crate::domain::realm_settings::{self, RealmValue};
use crate::domain::{channels, presence, users};
use crate::error::Result;
use crate::zulip::ChatState;
use crate::zulip::wire::{self, ServerFacts, ServerLimits};

/// The organization's settings, stored or default, as `realm_<name>`; the channel-creation
/// groups also in their legacy policy form.
pub(super) fn organization_settings(c: &Connection, ctx: &Ctx, m: &mut State) -> Result<()> {
    for (name, value) in realm_settings::all(c, &ctx.configured_name)? {
        let legacy = match name {
            realm_settings::CAN_CREATE_PUBLIC_CHANNEL => Some("realm_create_public_stream_policy"),
            realm_settings::CAN_CREATE_PRIVATE_CHANNEL => {
                Some("realm_create_private_stream_policy")
            }
            _ => None,
        };
        if let (Some(key), RealmValue::Group(g)) = (legacy, &value) {
            m.insert(key.into(), wire::legacy_policy(g));
        }
        m.insert(format!("realm_{name}"), wire::realm_value(&value));
    }
    Ok(())
}

/// `server_supported_permission_settings`: what each group-valued setting may be set to.
pub(super) fn permission_settings(_state: &ChatState, _ctx: &Ctx, out: &mut State) {
    out.insert(
        "server_supported_permission_settings".into(),
        wire::supported_permission_settings(realm_settings::group_rules()),
    );
}

/// The organization facts and server limits no setting controls.
pub(super) fn facts_and_limits(state: &ChatState, _ctx: &Ctx, out: &mut State) {
    let cfg = &state.config.chat;
    let ev = &state.config.events;
    let icon_url = crate::zulip::server::realm_icon_url(state);
    let emoji_data_url = format!(
        "{}{}",
        cfg.external_url.trim_end_matches('/'),
        crate::zulip::EMOJI_DATA_PATH
    );
    let facts = ServerFacts {
        external_url: &cfg.external_url,
        realm_host: state.config.realm_host(),
        icon_url: &icon_url,
        emoji_data_url: &emoji_data_url,
        empty_topic_display_name: EMPTY_TOPIC_DISPLAY_NAME,
        development: cfg.development,
        server_generation: state.started_at,
        send_digest_emails: crate::domain::account_mail::digest::sent_here(state),
    };
    let limits = ServerLimits {
        max_message_length: MAX_MESSAGE_LENGTH,
        max_topic_length: MAX_TOPIC_LENGTH,
        max_channel_name_length: channels::MAX_NAME_LENGTH,
        max_channel_description_length: channels::MAX_DESCRIPTION_LENGTH,
        max_reminder_note_length: state.config.limits.max_reminder_note_length,
        min_password_length: users::MIN_PASSWORD_LENGTH,
        max_password_length: users::MAX_PASSWORD_LENGTH,
        presence_ping_interval_secs: presence::PING_INTERVAL_SECS,
        presence_offline_threshold_secs: presence::OFFLINE_THRESHOLD_SECS,
        // The longest a long-poll waits before a heartbeat, plus Zulip's margin.
        event_queue_longpoll_timeout_secs: (ev.heartbeat + ev.heartbeat_jitter).as_secs() + 35,
        max_file_upload_size_mib: state.config.limits.max_file_upload_size_mib,
        upload_quota_mib: Some(state.config.limits.upload_quota_mib).filter(|q| *q > 0),
    };
    for (k, v) in wire::realm_facts(&facts, &limits) {
        out.insert(k.into(), v);
    }
}

/// `realm_push_notifications_enabled` and its end timestamp (`domain::push::flags_in`).
pub(super) fn push_flags(c: &Connection, ctx: &Ctx, m: &mut State) -> Result<()> {
    let flags = crate::domain::push::flags_in(c, ctx.push_configured)?;
    for (k, v) in wire::realm_push_flags(flags.realm_enabled, flags.end_timestamp) {
        m.insert(k.into(), v);
    }
    Ok(())
}

/// `realm_emoji`: every custom emoji, deactivated ones too.
pub(super) fn realm_emoji(c: &Connection, _ctx: &Ctx, m: &mut State) -> Result<()> {
    let all = crate::db::realm_emoji::all(c)?;
    m.insert(
        "realm_emoji".into(),
        crate::zulip::wire::emoji::realm_emoji_map(&all),
    );
    Ok(())
}
