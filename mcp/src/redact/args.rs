//! Which command-line arguments of a stdio server are secrets, and their masked form. Servers are
//! often configured with keys in `args` (`--api-key sk-…`, `--token=…`, `-e GITHUB_TOKEN=…`,
//! `--header "Authorization: Bearer …"`, URLs with credentials), so `args` are masked like `env`.
//!
//! This is a heuristic, tuned to mask too much rather than too little: a wrongly masked argument
//! costs nothing (masks are restored by position), a missed key is a leak.

use super::{redact_url, redact_value, MASK};

/// Flags whose next argument is a header line (`Name: value`).
const HEADER_FLAGS: &[&str] = &["-H", "--header", "--headers"];

/// Name parts (split at `-`, `_`, `.`, lowercased) that make a flag, `NAME=` or header secret
/// when the part ends with one of them (`--api-key`, `--clientSecret`, `GITHUB_TOKEN`).
const SECRET_NAME_ENDINGS: &[&str] = &[
    "token",
    "secret",
    "password",
    "passwd",
    "pass",
    "pwd",
    "key",
    "apikey",
    "auth",
    "authorization",
    "credential",
    "credentials",
    "cookie",
    "bearer",
    "pat",
];

/// Prefixes of well-known credential formats (OpenAI, Anthropic, GitHub, GitLab, Slack, AWS,
/// Google, Hugging Face, npm, Stripe, JWTs) and of HTTP authorization values.
#[rustfmt::skip]
const CREDENTIAL_PREFIXES: &[&str] = &[
    "sk-", "sk_", "rk_", "pk_live_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_",
    "glpat-", "xoxb-", "xoxp-", "xoxa-", "xoxs-", "xapp-", "AKIA", "ASIA", "AIza", "ya29.", "hf_",
    "npm_", "eyJ", "Bearer ", "Basic ", "Token ",
];
/// Shortest value taken as a credential because of its prefix alone.
const PREFIXED_MIN_LEN: usize = 12;
/// Shortest value taken as a credential because it looks random.
const RANDOM_MIN_LEN: usize = 20;
/// Bits per character above which a token-alphabet string looks random (English words and
/// package names stay below; 20+ random base62 or hex characters are well above).
const RANDOM_MIN_ENTROPY: f64 = 3.3;
/// Letter/digit alternations a random string has and a name like `server-2024` does not.
const RANDOM_MIN_TRANSITIONS: usize = 4;

/// The arguments as they may be shown: secret ones masked, the others unchanged.
pub fn redact_args(args: &[String]) -> Vec<String> {
    let mut previous: Option<&str> = None;
    args.iter()
        .map(|arg| {
            let shown = redact_arg(previous, arg).unwrap_or_else(|| arg.clone());
            previous = Some(arg);
            shown
        })
        .collect()
}

/// The masked form of one argument, if it is (or holds) a secret.
fn redact_arg(previous: Option<&str>, arg: &str) -> Option<String> {
    if let Some(flag) = previous {
        if HEADER_FLAGS.contains(&flag) {
            if let Some(shown) = redact_header_line(arg) {
                return Some(shown);
            }
        } else if takes_secret_value(flag) && !arg.starts_with("--") && !arg.is_empty() {
            return Some(redact_value(arg));
        }
    }
    if let Some((name, value)) = arg.split_once('=') {
        if is_plain_name(name) {
            if is_secret_name(name) && !value.is_empty() {
                return Some(format!("{name}={}", redact_value(value)));
            }
            return redact_loose(value).map(|value| format!("{name}={value}"));
        }
    }
    if let Some(shown) = redact_header_line(arg) {
        return Some(shown);
    }
    redact_loose(arg)
}

/// A value standing alone: a URL with credentials, or something that looks like a key.
fn redact_loose(value: &str) -> Option<String> {
    if value.contains("://") {
        let shown = redact_url(value);
        return (shown != value).then_some(shown);
    }
    looks_like_credential(value).then(|| redact_value(value))
}

/// `Authorization: Bearer …` with a secret header name: the value masked.
fn redact_header_line(line: &str) -> Option<String> {
    let (name, value) = line.split_once(':')?;
    let name = name.trim();
    let value = value.trim();
    let is_header_name = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    (is_header_name && is_secret_name(name) && !value.is_empty()).then(|| format!("{name}: {}", redact_value(value)))
}

/// `--token`, `--api-key`, `-password`: a flag whose value follows as the next argument.
fn takes_secret_value(flag: &str) -> bool {
    flag.starts_with('-') && !flag.contains('=') && is_secret_name(flag)
}

/// A flag or variable name (`--api-key`, `GITHUB_TOKEN`), not a path or URL before a `=`.
fn is_plain_name(name: &str) -> bool {
    let bare = name.trim_start_matches('-');
    !bare.is_empty() && bare.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
}

fn is_secret_name(name: &str) -> bool {
    name.trim_start_matches('-')
        .to_ascii_lowercase()
        .split(['-', '_', '.'])
        .any(|part| SECRET_NAME_ENDINGS.iter().any(|end| part.ends_with(end)))
}

/// Whether a value looks like a credential: a known key format, or a long random-looking string.
pub fn looks_like_credential(value: &str) -> bool {
    if value.contains(MASK) {
        return false;
    }
    let chars = value.chars().count();
    if chars >= PREFIXED_MIN_LEN && CREDENTIAL_PREFIXES.iter().any(|p| value.starts_with(p)) {
        return true;
    }
    chars >= RANDOM_MIN_LEN
        && value.chars().all(|c| c.is_ascii_alphanumeric() || "-_+=.~".contains(c))
        && letter_digit_transitions(value) >= RANDOM_MIN_TRANSITIONS
        && entropy_bits_per_char(value) >= RANDOM_MIN_ENTROPY
}

fn letter_digit_transitions(value: &str) -> usize {
    let kinds: Vec<bool> = value.chars().filter(char::is_ascii_alphanumeric).map(|c| c.is_ascii_digit()).collect();
    kinds.windows(2).filter(|pair| pair[0] != pair[1]).count()
}

/// Shannon entropy of the characters of `value`.
fn entropy_bits_per_char(value: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    let mut total = 0usize;
    for c in value.chars() {
        *counts.entry(c).or_insert(0usize) += 1;
        total += 1;
    }
    if total == 0 {
        return 0.0;
    }
    let total = total as f64;
    counts
        .values()
        .map(|&n| {
            let p = n as f64 / total;
            -p * p.log2()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(args: &[&str]) -> Vec<String> {
        redact_args(&args.iter().map(|a| a.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn values_after_secret_flags_are_masked() {
        assert_eq!(
            shown(&["--api-key", "abc", "--token", "sk-0123456789abcdef", "--port", "8080"]),
            ["--api-key", MASK, "--token", "••••cdef", "--port", "8080"]
        );
        assert_eq!(shown(&["--password", "hunter2"]), ["--password", MASK]);
        assert_eq!(shown(&["--secret", "--verbose"]), ["--secret", "--verbose"]);
    }

    #[test]
    fn flag_equals_value_and_env_style_args_are_masked() {
        assert_eq!(
            shown(&["--clientSecret=abc", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN=ghp_x", "DEBUG=1"]),
            ["--clientSecret=••••", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN=••••", "DEBUG=1"]
        );
    }

    #[test]
    fn authorization_headers_in_args_keep_their_name() {
        assert_eq!(
            shown(&["--header", "Authorization: Bearer abcdefghijkl1234", "-H", "Accept: json"]),
            ["--header", "Authorization: ••••1234", "-H", "Accept: json"]
        );
        assert_eq!(shown(&["X-Api-Key: k"]), ["X-Api-Key: ••••"]);
    }

    #[test]
    fn credential_looking_args_and_urls_with_credentials_are_masked() {
        assert_eq!(shown(&["sk-ant-api03-abcdefgh"]), ["••••efgh"]);
        assert_eq!(shown(&["3f9a1c7e5b2d4f8a0c6e1b3d5f7a9c2e"]), ["••••9c2e"], "hex key");
        assert_eq!(
            shown(&["https://user:pw@db.example/x?key=abc", "--url=https://h/p?t=1"]),
            ["https://••••@db.example/x?key=••••", "--url=https://h/p?t=••••"]
        );
    }

    #[test]
    fn ordinary_args_are_left_alone() {
        let plain = [
            "-y",
            "@modelcontextprotocol/server-filesystem",
            "/home/me/projects/notes-2024",
            "mcp-server-sqlite-npx-2024",
            "--db-path",
            "./data/test.db",
            "https://mcp.example.com/mcp",
            "--max-tokens",
            "1000",
            "2024-01-01T00:00:00Z",
            "--title",
            "my notes",
        ];
        assert_eq!(shown(&plain), plain);
    }
}
