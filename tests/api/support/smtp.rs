//! A tiny SMTP sink on 127.0.0.1 for tests that send mail: it speaks just enough SMTP
//! (greeting, EHLO/HELO, MAIL, RCPT, DATA, RSET, NOOP, QUIT) for lettre to deliver, and hands
//! each accepted mail to the test. Its task ends with the test's runtime.

use std::time::Duration;

use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Mutex, mpsc};

/// One mail as the sink received it.
#[derive(Clone, Debug)]
pub struct SunkMail {
    pub from: String,
    pub to: Vec<String>,
    /// Headers and body, as sent after DATA (dot-stuffing undone).
    pub data: String,
}

pub struct SmtpSink {
    pub port: u16,
    mails: Mutex<mpsc::UnboundedReceiver<SunkMail>>,
}

impl SmtpSink {
    pub async fn start() -> SmtpSink {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind sink");
        let port = listener.local_addr().unwrap().port();
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Ok((conn, _)) = listener.accept().await {
                let tx = tx.clone();
                tokio::spawn(async move {
                    let _ = session(conn, tx).await;
                });
            }
        });
        SmtpSink {
            port,
            mails: Mutex::new(rx),
        }
    }

    /// The next mail delivered (mail is sent in the background; this bounds the wait).
    pub async fn next(&self) -> SunkMail {
        tokio::time::timeout(Duration::from_secs(20), self.mails.lock().await.recv())
            .await
            .expect("a mail arrives")
            .expect("the sink runs")
    }
}

impl SmtpSink {
    /// The next mail delivered within `wait`, if any (to check that no more mail comes).
    pub async fn next_within(&self, wait: Duration) -> Option<SunkMail> {
        tokio::time::timeout(wait, self.mails.lock().await.recv())
            .await
            .ok()
            .flatten()
    }
}

/// The address inside `MAIL FROM:<a>` / `RCPT TO:<a>`.
fn path_of(arg: &str) -> String {
    let a = arg.find('<').map_or(0, |i| i + 1);
    let b = arg.rfind('>').unwrap_or(arg.len());
    arg[a..b.max(a)].to_string()
}

async fn session(conn: TcpStream, mails: mpsc::UnboundedSender<SunkMail>) -> std::io::Result<()> {
    let (r, mut w) = conn.into_split();
    let mut lines = BufReader::new(r).lines();
    w.write_all(b"220 sink ESMTP\r\n").await?;
    let mut from = String::new();
    let mut to = Vec::new();
    while let Some(line) = lines.next_line().await? {
        let upper = line.to_ascii_uppercase();
        let reply: &[u8] = if upper.starts_with("EHLO") || upper.starts_with("HELO") {
            b"250 sink\r\n"
        } else if upper.starts_with("MAIL FROM:") {
            from = path_of(&line[10..]);
            to.clear();
            b"250 OK\r\n"
        } else if upper.starts_with("RCPT TO:") {
            to.push(path_of(&line[8..]));
            b"250 OK\r\n"
        } else if upper == "DATA" {
            w.write_all(b"354 End data with <CR><LF>.<CR><LF>\r\n")
                .await?;
            let mut data = String::new();
            while let Some(l) = lines.next_line().await? {
                if l == "." {
                    break;
                }
                data.push_str(l.strip_prefix('.').unwrap_or(&l));
                data.push('\n');
            }
            let _ = mails.send(SunkMail {
                from: from.clone(),
                to: std::mem::take(&mut to),
                data,
            });
            b"250 OK queued\r\n"
        } else if upper == "RSET" || upper == "NOOP" {
            b"250 OK\r\n"
        } else if upper == "QUIT" {
            w.write_all(b"221 Bye\r\n").await?;
            return Ok(());
        } else {
            b"502 Command not implemented\r\n"
        };
        w.write_all(reply).await?;
    }
    Ok(())
}
