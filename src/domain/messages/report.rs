//! Reporting a message to the organization's moderators (`POST /messages/{id}/report`): the
//! report types, the checks, and the report Notification Bot posts (`notices`).

use crate::domain::core::Core;
use crate::domain::{notices, realm_settings};
use crate::error::{Error, Result};
use crate::ids::MessageId;
use crate::model::User;

/// The longest description a report may carry.
pub const MAX_DESCRIPTION_LENGTH: usize = 1000;

/// Why a message is reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportType {
    Spam,
    Harassment,
    Inappropriate,
    Norms,
    Other,
}

impl ReportType {
    pub const ALL: [ReportType; 5] = [
        ReportType::Spam,
        ReportType::Harassment,
        ReportType::Inappropriate,
        ReportType::Norms,
        ReportType::Other,
    ];

    /// The API's name for it.
    pub fn name(self) -> &'static str {
        match self {
            ReportType::Spam => "spam",
            ReportType::Harassment => "harassment",
            ReportType::Inappropriate => "inappropriate",
            ReportType::Norms => "norms",
            ReportType::Other => "other",
        }
    }

    /// How the report names it.
    pub fn label(self) -> &'static str {
        match self {
            ReportType::Spam => "Spam",
            ReportType::Harassment => "Harassment",
            ReportType::Inappropriate => "Inappropriate content",
            ReportType::Norms => "Violates community norms",
            ReportType::Other => "Other reason",
        }
    }

    pub fn parse(s: &str) -> Result<ReportType> {
        ReportType::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| Error::bad_request("Invalid report_type"))
    }
}

/// `user` reports message `id`; the report goes to the moderation requests channel.
pub async fn report(
    state: &Core,
    user: &User,
    id: MessageId,
    kind: ReportType,
    description: String,
) -> Result<()> {
    if description.chars().count() > MAX_DESCRIPTION_LENGTH {
        return Err(Error::bad_request(format!(
            "description is too long (limit: {MAX_DESCRIPTION_LENGTH} characters)"
        )));
    }
    if kind == ReportType::Other && description.is_empty() {
        return Err(Error::bad_request("An explanation is required."));
    }
    let user = user.clone();
    let realm_url = state.config.chat.external_url.clone();
    state
        .db
        .write(move |tx| {
            let target =
                realm_settings::channel_setting(tx, realm_settings::MODERATION_REQUEST_CHANNEL)?
                    .ok_or_else(|| {
                        Error::bad_request("Message reporting is not enabled in this organization.")
                    })?;
            let message = super::readable(tx, &user, id)?.message;
            notices::message_reported(
                tx,
                &user,
                &message,
                kind.label(),
                &description,
                &target,
                &realm_url,
            )
        })
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_types_parse_by_their_api_names() {
        for t in ReportType::ALL {
            assert_eq!(ReportType::parse(t.name()).unwrap(), t);
        }
        assert!(ReportType::parse("Spam").is_err());
        assert_eq!(ReportType::Norms.label(), "Violates community norms");
    }
}
