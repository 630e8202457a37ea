//! A small SMTP server (RFC 5321's plain dialogue: EHLO/HELO, AUTH PLAIN, MAIL, RCPT, DATA, RSET, NOOP,
//! QUIT) that keeps every mail it is given, parsed (subject, text and HTML parts) by `mail-parser`.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use mail_parser::MimeHeaders;
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

use super::Shared;

/// The longest command line and the largest mail taken.
const LINE_BYTES: usize = 4096;
const MAIL_BYTES: usize = 10 * 1024 * 1024;

pub async fn serve(listener: TcpListener, shared: Shared, stop: CancellationToken) {
    loop {
        tokio::select! {
            _ = stop.cancelled() => return,
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                let shared = shared.clone();
                tokio::spawn(async move {
                    let _ = session(stream, shared).await;
                });
            }
        }
    }
}

#[derive(Default)]
struct Envelope {
    from: Option<String>,
    to: Vec<String>,
    user: Option<String>,
}

fn address(arg: &str) -> String {
    let arg = arg.trim();
    let start = arg.find('<').map(|i| i + 1).unwrap_or(0);
    let end = arg.rfind('>').unwrap_or(arg.len());
    arg.get(start..end).unwrap_or(arg).to_string()
}

async fn session(stream: TcpStream, shared: Shared) -> std::io::Result<()> {
    stream.set_nodelay(true)?;
    let (read, mut write) = stream.into_split();
    let mut read = BufReader::new(read);
    write.write_all(b"220 fixture.local ESMTP Warden test kit\r\n").await?;
    let mut envelope = Envelope::default();
    let mut line = String::new();
    loop {
        line.clear();
        if read.read_line(&mut line).await? == 0 || line.len() > LINE_BYTES {
            return Ok(());
        }
        let command = line.trim_end();
        let (verb, arg) = command.split_once(' ').unwrap_or((command, ""));
        let reply: String = match verb.to_ascii_uppercase().as_str() {
            "EHLO" => "250-fixture.local\r\n250-8BITMIME\r\n250-SMTPUTF8\r\n250-AUTH PLAIN\r\n250 SIZE 10485760".into(),
            "HELO" => "250 fixture.local".into(),
            "AUTH" => {
                let (mechanism, initial) = arg.split_once(' ').unwrap_or((arg, ""));
                if !mechanism.eq_ignore_ascii_case("PLAIN") {
                    "504 5.5.4 only PLAIN".into()
                } else {
                    let decoded = STANDARD.decode(initial.trim()).unwrap_or_default();
                    let parts: Vec<&[u8]> = decoded.split(|b| *b == 0).collect();
                    envelope.user = parts.get(1).map(|u| String::from_utf8_lossy(u).into_owned());
                    "235 2.7.0 Authentication successful".into()
                }
            }
            "MAIL" => {
                envelope.from = Some(address(arg.trim_start_matches(|c| c != ':').trim_start_matches(':')));
                envelope.to.clear();
                "250 2.1.0 Ok".into()
            }
            "RCPT" => {
                envelope.to.push(address(arg.trim_start_matches(|c| c != ':').trim_start_matches(':')));
                "250 2.1.5 Ok".into()
            }
            "DATA" => {
                if envelope.from.is_none() || envelope.to.is_empty() {
                    "503 5.5.1 MAIL and RCPT first".into()
                } else {
                    write.write_all(b"354 End data with <CR><LF>.<CR><LF>\r\n").await?;
                    let Some(data) = read_data(&mut read).await? else { return Ok(()) };
                    let n = shared.keep("email", decoded(&envelope, &data));
                    envelope.from = None;
                    envelope.to.clear();
                    format!("250 2.0.0 Ok: queued as FIXTURE{n:04}")
                }
            }
            "RSET" => {
                envelope = Envelope::default();
                "250 2.0.0 Ok".into()
            }
            "NOOP" => "250 2.0.0 Ok".into(),
            "QUIT" => {
                write.write_all(b"221 2.0.0 Bye\r\n").await?;
                return Ok(());
            }
            _ => "502 5.5.2 Command not recognized".into(),
        };
        // One write per reply: a reply split in two waits on the client's delayed ACK (Nagle).
        write.write_all(format!("{reply}\r\n").as_bytes()).await?;
    }
}

/// The mail's lines up to the lone `.`, with dot-stuffing undone; `None` when the client went away.
async fn read_data(read: &mut BufReader<tokio::net::tcp::OwnedReadHalf>) -> std::io::Result<Option<Vec<u8>>> {
    let mut data = Vec::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        if read.read_until(b'\n', &mut line).await? == 0 {
            return Ok(None);
        }
        if line == b".\r\n" || line == b".\n" {
            return Ok(Some(data));
        }
        let unstuffed = if line.starts_with(b"..") { &line[1..] } else { &line[..] };
        if data.len() + unstuffed.len() <= MAIL_BYTES {
            data.extend_from_slice(unstuffed);
        }
    }
}

fn decoded(envelope: &Envelope, data: &[u8]) -> serde_json::Value {
    let parsed = mail_parser::MessageParser::default().parse(data);
    let (subject, text, html, content_type, from) = match &parsed {
        Some(mail) => (
            mail.subject().map(str::to_string),
            mail.body_text(0).map(|t| t.into_owned()),
            mail.body_html(0).map(|t| t.into_owned()),
            mail.content_type().map(|c| match c.subtype() {
                Some(sub) => format!("{}/{sub}", c.ctype()),
                None => c.ctype().to_string(),
            }),
            mail.from().and_then(|f| f.first()).and_then(|a| a.address()).map(str::to_string),
        ),
        None => (None, None, None, None, None),
    };
    json!({
        "envelope_from": envelope.from,
        "envelope_to": envelope.to,
        "auth_user": envelope.user,
        "from": from,
        "subject": subject,
        "content_type": content_type,
        "text": text,
        "html": html,
        "bytes": data.len(),
    })
}
