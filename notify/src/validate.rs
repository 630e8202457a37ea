//! A channel's settings as a person sent them, checked before they are kept: names, addresses (http or https,
//! no user or password in them), an e-mail address, an ntfy topic, a push subscription's keys. Each refusal
//! says what to fix. On a change, a secret left out (or sent back masked) keeps the stored one, but only while
//! the address it is sent to is unchanged.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use warden_types::channel::{ChannelConfig, ChannelInput};
use warden_types::secret::MASK;

use crate::error::{Error, Result};

const NAME_CHARS: usize = 80;
const URL_CHARS: usize = 2048;
const SECRET_CHARS: usize = 256;

fn invalid(message: impl Into<String>) -> Error {
    Error::Invalid(message.into())
}

/// A channel's name: 1 to 80 characters, no control characters.
pub fn name(name: &str) -> Result<String> {
    let name = name.trim();
    if name.is_empty() {
        return Err(invalid("give the channel a name"));
    }
    if name.chars().count() > NAME_CHARS {
        return Err(invalid(format!("a channel's name is at most {NAME_CHARS} characters")));
    }
    if name.chars().any(char::is_control) {
        return Err(invalid("a channel's name cannot contain control characters"));
    }
    Ok(name.to_string())
}

/// An `http` or `https` URL with a host and no user or password in it. `what` names it in the refusal.
pub fn url(what: &str, text: &str) -> Result<reqwest::Url> {
    let text = text.trim();
    if text.len() > URL_CHARS {
        return Err(invalid(format!("the {what} is longer than {URL_CHARS} characters")));
    }
    let parsed = reqwest::Url::parse(text).map_err(|e| invalid(format!("the {what} is not a URL ({e})")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(invalid(format!("the {what} must start with https:// (or http://), not {}:", parsed.scheme())));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(invalid(format!("the {what} has no host")));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(invalid(format!(
            "the {what} must not carry a user or password (user:password@…): use the channel's token field"
        )));
    }
    Ok(parsed)
}

/// An e-mail address as lettre parses it (`ann@example.com`).
pub fn email(text: &str) -> Result<lettre::Address> {
    text.trim()
        .parse::<lettre::Address>()
        .map_err(|e| invalid(format!("{:?} is not an e-mail address ({e})", text.trim())))
}

fn secret(what: &str, value: &str) -> Result<String> {
    let value = value.trim();
    if value.is_empty() || value.chars().count() > SECRET_CHARS || value.chars().any(char::is_control) {
        return Err(invalid(format!("the {what} must be 1 to {SECRET_CHARS} characters without control characters")));
    }
    Ok(value.to_string())
}

/// An ntfy topic: letters, digits, `_` and `-`, 1 to 64 of them (ntfy's own rule).
fn topic(text: &str) -> Result<String> {
    let text = text.trim();
    let fine = !text.is_empty()
        && text.len() <= 64
        && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if !fine {
        return Err(invalid("an ntfy topic is 1 to 64 letters, digits, _ or -"));
    }
    Ok(text.to_string())
}

/// A push subscription's key, base64url, of `len` bytes.
fn push_key(what: &str, text: &str, len: usize) -> Result<String> {
    let text = text.trim().trim_end_matches('=');
    let bytes =
        URL_SAFE_NO_PAD.decode(text).map_err(|_| invalid(format!("the subscription's {what} is not base64url")))?;
    if bytes.len() != len {
        return Err(invalid(format!("the subscription's {what} must be {len} bytes, not {}", bytes.len())));
    }
    Ok(text.to_string())
}

/// Whether a secret field means "keep the stored one".
fn keeps(value: &Option<String>) -> bool {
    value.as_deref().map(str::trim).is_none_or(|v| v.is_empty() || v.starts_with(MASK))
}

/// `input` checked and made whole: secrets kept from `stored` where the person sent none and the address is
/// the same. `None` for a webhook's secret means Warden makes one (the caller does).
pub fn config(input: &ChannelInput, stored: Option<&ChannelConfig>) -> Result<ChannelConfig> {
    Ok(match (&input.config, stored) {
        (ChannelConfig::Webhook { url: u, secret: s }, stored) => {
            let u = url("webhook URL", u)?.to_string();
            let secret = if keeps(s) {
                match stored {
                    Some(ChannelConfig::Webhook { url: old, secret }) if *old == u => secret.clone(),
                    _ => None,
                }
            } else {
                Some(self::secret("webhook secret", s.as_deref().unwrap_or_default())?)
            };
            ChannelConfig::Webhook { url: u, secret }
        }
        (ChannelConfig::Slack { url: u }, stored) => {
            ChannelConfig::Slack { url: kept_url("Slack webhook URL", u, stored)? }
        }
        (ChannelConfig::Discord { url: u }, stored) => {
            ChannelConfig::Discord { url: kept_url("Discord webhook URL", u, stored)? }
        }
        (ChannelConfig::Ntfy { server, topic: t, token }, stored) => {
            let server = url("ntfy server", server)?.to_string().trim_end_matches('/').to_string();
            let topic = topic(t)?;
            let token = if keeps(token) {
                match stored {
                    Some(ChannelConfig::Ntfy { server: old, token, .. }) if *old == server => token.clone(),
                    _ => None,
                }
            } else {
                Some(secret("ntfy access token", token.as_deref().unwrap_or_default())?)
            };
            ChannelConfig::Ntfy { server, topic, token }
        }
        (ChannelConfig::Email { address }, _) => ChannelConfig::Email { address: email(address)?.to_string() },
        // Sent back masked (only its name changed): the stored subscription stays.
        (ChannelConfig::WebPush { p256dh, .. }, Some(stored @ ChannelConfig::WebPush { .. }))
            if p256dh.starts_with(MASK) =>
        {
            stored.clone()
        }
        (ChannelConfig::WebPush { endpoint, p256dh, auth }, _) => ChannelConfig::WebPush {
            endpoint: url("push endpoint", endpoint)?.to_string(),
            p256dh: push_key("p256dh key", p256dh, 65)?,
            auth: push_key("auth secret", auth, 16)?,
        },
    })
}

/// A chat webhook's URL (its path is the secret): the masked form sent back keeps the stored one.
fn kept_url(what: &str, text: &str, stored: Option<&ChannelConfig>) -> Result<String> {
    if text.contains(MASK) {
        return match stored {
            Some(ChannelConfig::Slack { url } | ChannelConfig::Discord { url }) => Ok(url.clone()),
            _ => Err(invalid(format!("give the whole {what}"))),
        };
    }
    Ok(url(what, text)?.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(config: ChannelConfig) -> ChannelInput {
        ChannelInput { name: "x".into(), config }
    }

    #[test]
    fn urls_must_be_http_with_a_host_and_no_user_or_password() {
        assert!(url("URL", "https://example.com/hook").is_ok());
        for bad in ["ftp://example.com/", "https://user:pw@example.com/", "not a url", "file:///etc/passwd"] {
            let e = url("URL", bad).unwrap_err().to_string();
            assert!(e.contains("URL"), "{bad}: {e}");
        }
    }

    #[test]
    fn a_secret_sent_back_masked_is_kept_only_for_the_same_address() {
        let stored = ChannelConfig::Webhook { url: "https://a.example/h".into(), secret: Some("s3cret-value".into()) };
        let masked = stored.masked();
        let kept = config(&input(masked), Some(&stored)).unwrap();
        assert_eq!(kept, stored);
        let moved = ChannelConfig::Webhook { url: "https://b.example/h".into(), secret: Some(MASK.into()) };
        assert_eq!(
            config(&input(moved), Some(&stored)).unwrap(),
            ChannelConfig::Webhook { url: "https://b.example/h".into(), secret: None }
        );
    }

    #[test]
    fn bad_settings_are_refused_with_what_to_fix() {
        let e = config(&input(ChannelConfig::Email { address: "nobody".into() }), None).unwrap_err();
        assert!(e.to_string().contains("not an e-mail address"), "{e}");
        let e = config(
            &input(ChannelConfig::Ntfy { server: "https://ntfy.sh".into(), topic: "a b".into(), token: None }),
            None,
        )
        .unwrap_err();
        assert!(e.to_string().contains("ntfy topic"), "{e}");
        let e = config(
            &input(ChannelConfig::WebPush {
                endpoint: "https://push.example/x".into(),
                p256dh: "AAAA".into(),
                auth: "AAAA".into(),
            }),
            None,
        )
        .unwrap_err();
        assert!(e.to_string().contains("65 bytes"), "{e}");
        assert!(name(" ").is_err() && name(&"x".repeat(81)).is_err() && name("Phone").is_ok());
    }
}
