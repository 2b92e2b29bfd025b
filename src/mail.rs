//! Outgoing mail over SMTP with lettre, TLS by rustls: building one message (plain text, or
//! plain text and HTML as `multipart/alternative`, with the extra headers the caller gives) and
//! one blocking SMTP conversation ([`Mailer::send_blocking`]). Mails are queued in the durable
//! outbox (`domain::outbox`), whose worker calls this from tokio's blocking pool, so no tokio
//! worker and never the database writer waits for a mail server. Without `[email] host` no mail
//! is sent: the outbox logs the link a mail carries instead, like a development mail backend.
//! Errors name what failed, never the body, the link or the password. Knows no API or domain
//! rules.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use lettre::message::header::{ContentType, HeaderName, HeaderValue};
use lettre::message::{Mailbox, MultiPart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::{Message, SmtpTransport, Transport};

use crate::config::{EmailConfig, MailTls};

/// How long one SMTP conversation may take.
const SMTP_TIMEOUT: Duration = Duration::from_secs(30);

/// One mail to send.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mail {
    pub to: String,
    /// The From mailbox (`Name <address>`); empty: `[email] from`.
    pub from: String,
    pub subject: String,
    /// The plain-text part.
    pub text: String,
    /// The HTML part, if any (then the mail is `multipart/alternative`).
    pub html: Option<String>,
    /// Further headers (`Reply-To`, `List-Id`, `List-Unsubscribe`, ...), in order.
    pub headers: Vec<(String, String)>,
    /// The link the mail carries: what is logged when no mail server is configured.
    pub link: String,
}

/// What the outbox did with mails since start (read by `/metrics`).
#[derive(Debug, Default)]
pub struct MailCounters {
    /// Mails the mail server accepted.
    pub sent: AtomicU64,
    /// Attempts that failed (each retried later, or abandoned).
    pub failed_attempts: AtomicU64,
    /// Mails given up after their last failed attempt.
    pub abandoned: AtomicU64,
}

/// Sends mail as configured.
#[derive(Clone)]
pub struct Mailer {
    cfg: EmailConfig,
    pub counters: Arc<MailCounters>,
}

impl Mailer {
    pub fn new(cfg: &EmailConfig) -> Mailer {
        Mailer {
            cfg: cfg.clone(),
            counters: Arc::default(),
        }
    }

    /// Whether a mail server is configured.
    pub fn enabled(&self) -> bool {
        self.cfg.enabled()
    }

    /// The bare address of `[email] from` (empty when it does not parse).
    pub fn from_address(&self) -> String {
        self.cfg
            .from
            .parse::<Mailbox>()
            .map(|m| m.email.to_string())
            .unwrap_or_default()
    }

    /// A From mailbox with `name` at the configured sender address (`[email] from` as it is
    /// when that does not parse).
    pub fn from_with_name(&self, name: &str) -> String {
        match self.cfg.from.parse::<Mailbox>() {
            Ok(m) => Mailbox::new(Some(name.to_string()), m.email).to_string(),
            Err(_) => self.cfg.from.clone(),
        }
    }

    /// Sends one mail now, blocking on the network (call it from a blocking thread).
    pub fn send_blocking(&self, mail: &Mail) -> Result<(), String> {
        let message = build(&self.cfg, mail)?;
        transport(&self.cfg)?
            .send(&message)
            .map(|_| ())
            .map_err(|e| format!("SMTP: {e}"))
    }
}

/// The message for `mail`: From (the mail's, else the configured one; the envelope sender is
/// always the configured address), To, Subject, the extra headers, and the parts.
pub fn build(cfg: &EmailConfig, mail: &Mail) -> Result<Message, String> {
    let configured: Mailbox = cfg.from.parse().map_err(|e| format!("from address: {e}"))?;
    let from: Mailbox = if mail.from.is_empty() {
        configured.clone()
    } else {
        mail.from
            .parse()
            .map_err(|e| format!("from mailbox: {e}"))?
    };
    let to: Mailbox = mail
        .to
        .parse()
        .map_err(|e| format!("recipient address: {e}"))?;
    let envelope = lettre::address::Envelope::new(Some(configured.email), vec![to.email.clone()])
        .map_err(|e| format!("envelope: {e}"))?;
    let mut builder = Message::builder()
        .from(from)
        .to(to)
        .subject(mail.subject.clone())
        .envelope(envelope);
    for (name, value) in &mail.headers {
        if name.eq_ignore_ascii_case("reply-to") {
            let mbox: Mailbox = value.parse().map_err(|e| format!("reply-to: {e}"))?;
            builder = builder.reply_to(mbox);
            continue;
        }
        let name = HeaderName::new_from_ascii(name.clone())
            .map_err(|_| format!("header name {name:?}"))?;
        if value.chars().any(char::is_control) {
            return Err(format!("header {name} is not one line"));
        }
        builder = builder.raw_header(HeaderValue::new(name, value.clone()));
    }
    match &mail.html {
        None => builder
            .header(ContentType::TEXT_PLAIN)
            .body(mail.text.clone()),
        Some(html) => builder.multipart(MultiPart::alternative_plain_html(
            mail.text.clone(),
            html.clone(),
        )),
    }
    .map_err(|e| format!("building the message: {e}"))
}

fn transport(cfg: &EmailConfig) -> Result<SmtpTransport, String> {
    let tls = match cfg.tls {
        MailTls::None => Tls::None,
        MailTls::StartTls | MailTls::Tls => {
            let params = TlsParameters::new(cfg.host.clone()).map_err(|e| format!("TLS: {e}"))?;
            if cfg.tls == MailTls::Tls {
                Tls::Wrapper(params)
            } else {
                Tls::Required(params)
            }
        }
    };
    let mut builder = SmtpTransport::builder_dangerous(cfg.host.as_str())
        .port(cfg.port)
        .tls(tls)
        .timeout(Some(SMTP_TIMEOUT));
    if !cfg.username.is_empty() {
        builder = builder.credentials(Credentials::new(
            cfg.username.clone(),
            cfg.password.0.clone(),
        ));
    }
    Ok(builder.build())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> EmailConfig {
        EmailConfig {
            host: "127.0.0.1".into(),
            from: "Outpost <noreply@outpost.test>".into(),
            ..crate::config::Config::default().email
        }
    }

    #[test]
    fn messages_carry_their_headers_and_parts() {
        let mail = Mail {
            to: "alice@example.com".into(),
            from: Mailer::new(&cfg()).from_with_name("Outpost notifications"),
            subject: "DMs with Bob".into(),
            text: "plain".into(),
            html: Some("<p>html</p>".into()),
            headers: vec![
                ("Reply-To".into(), "noreply@outpost.test".into()),
                ("X-Auto-Response-Suppress".into(), "All".into()),
                (
                    "List-Unsubscribe-Post".into(),
                    "List-Unsubscribe=One-Click".into(),
                ),
            ],
            link: String::new(),
        };
        let m = build(&cfg(), &mail).unwrap();
        let text = String::from_utf8(m.formatted()).unwrap();
        assert!(
            text.contains("From: \"Outpost notifications\" <noreply@outpost.test>"),
            "{text}"
        );
        assert!(text.contains("Reply-To: noreply@outpost.test"), "{text}");
        assert!(text.contains("X-Auto-Response-Suppress: All"), "{text}");
        assert!(text.contains("multipart/alternative"), "{text}");
        assert!(text.contains("<p>html</p>"), "{text}");
        assert_eq!(
            m.envelope().from().unwrap().to_string(),
            "noreply@outpost.test"
        );
        let bad = Mail {
            headers: vec![("X-Bad".into(), "a\r\nBcc: x@example.com".into())],
            ..mail
        };
        assert!(build(&cfg(), &bad).is_err());
    }
}
