//! Outgoing mail (invitations) over SMTP with lettre, TLS by rustls.
//!
//! Sending blocks on the network, so [`Mailer::send`] hands each mail to tokio's blocking pool
//! and returns at once: no tokio worker and never the database writer waits for a mail server.
//! A failed delivery is logged (without the link, the password or the body) and changes
//! nothing else. Without `[email] host`, the mail is not sent and only the link it carries is
//! written to the log at info level, like a development mail backend. Knows no API or domain
//! rules.

use std::time::Duration;

use lettre::message::{Mailbox, header::ContentType};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::{Message, SmtpTransport, Transport};

use crate::config::{EmailConfig, MailTls};

/// How long one SMTP conversation may take.
const SMTP_TIMEOUT: Duration = Duration::from_secs(30);

/// One mail to send.
#[derive(Clone)]
pub struct Mail {
    pub to: String,
    pub subject: String,
    pub body: String,
    /// The link the mail carries: what is logged when no mail server is configured.
    pub link: String,
}

/// Sends mail as configured.
#[derive(Clone)]
pub struct Mailer {
    cfg: EmailConfig,
}

impl Mailer {
    pub fn new(cfg: &EmailConfig) -> Mailer {
        Mailer { cfg: cfg.clone() }
    }

    /// Whether a mail server is configured.
    pub fn enabled(&self) -> bool {
        self.cfg.enabled()
    }

    /// Sends `mail` from a blocking task (or logs its link without a mail server). Must be
    /// called from inside a tokio runtime; the returned handle may be awaited or dropped.
    pub fn send(&self, mail: Mail) -> tokio::task::JoinHandle<()> {
        if !self.cfg.enabled() {
            tracing::info!(link = %mail.link, "no [email] host configured; invitation link");
            return tokio::spawn(async {});
        }
        let cfg = self.cfg.clone();
        tokio::task::spawn_blocking(move || {
            if let Err(e) = deliver(&cfg, &mail) {
                tracing::warn!(error = %e, host = %cfg.host, "could not send an invitation mail");
            }
        })
    }
}

fn deliver(cfg: &EmailConfig, mail: &Mail) -> Result<(), String> {
    let from: Mailbox = cfg.from.parse().map_err(|e| format!("from address: {e}"))?;
    let to: Mailbox = mail
        .to
        .parse()
        .map_err(|e| format!("recipient address: {e}"))?;
    let message = Message::builder()
        .from(from)
        .to(to)
        .subject(mail.subject.clone())
        .header(ContentType::TEXT_PLAIN)
        .body(mail.body.clone())
        .map_err(|e| format!("building the message: {e}"))?;
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
    builder
        .build()
        .send(&message)
        .map(|_| ())
        .map_err(|e| format!("SMTP: {e}"))
}
