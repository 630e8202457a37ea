//! The access token: `WARDEN_TOKEN` when set, else the one kept in the data dir's `access-token`
//! file (created at first start from 32 bytes of OS randomness, readable by the owner only).
//! The value never appears in `Debug` output.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

use subtle::ConstantTimeEq;

/// The file in the data dir that keeps the generated token.
pub const TOKEN_FILE: &str = "access-token";
/// Shortest token accepted from `WARDEN_TOKEN` or the file: a guessable token is no gate.
pub const MIN_TOKEN_LEN: usize = 32;

#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    #[error(
        "{what} must be at least {MIN_TOKEN_LEN} characters of A-Z, a-z, 0-9, '-', '_', '.', '~' (it goes into a link)"
    )]
    Weak { what: String },
    #[error("cannot read or create the access token file {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("the operating system gave no random bytes for the access token: {0}")]
    Random(getrandom::Error),
}

/// The secret every request but health and static files must show.
#[derive(Clone)]
pub struct Token(String);

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(<redacted>)")
    }
}

/// Where the token came from, for the start-up message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenSource {
    Env,
    File(PathBuf),
    Generated(PathBuf),
}

impl Token {
    /// A token given by the caller (`WARDEN_TOKEN`, tests); `what` names it in the error.
    pub fn parse(value: &str, what: &str) -> Result<Self, TokenError> {
        let value = value.trim();
        let url_safe = value.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~'));
        if value.len() < MIN_TOKEN_LEN || !url_safe {
            return Err(TokenError::Weak { what: what.to_string() });
        }
        Ok(Self(value.to_string()))
    }

    /// 32 random bytes from the OS, hex-encoded.
    pub fn generate() -> Result<Self, TokenError> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(TokenError::Random)?;
        Ok(Self(hex::encode(bytes)))
    }

    pub fn secret(&self) -> &str {
        &self.0
    }

    /// Constant-time comparison with what a client sent.
    pub fn matches(&self, candidate: &str) -> bool {
        self.0.as_bytes().ct_eq(candidate.as_bytes()).into()
    }
}

/// The token from `env` (the value of `WARDEN_TOKEN`) if given, else from `data_dir/access-token`,
/// creating that file (mode 0600) at first start.
pub fn load_or_create(data_dir: &Path, env: Option<&str>) -> Result<(Token, TokenSource), TokenError> {
    if let Some(value) = env {
        return Ok((Token::parse(value, "WARDEN_TOKEN")?, TokenSource::Env));
    }
    let path = data_dir.join(TOKEN_FILE);
    let io = |source| TokenError::Io { path: path.clone(), source };
    match read_file(&path) {
        Ok(token) => return Ok((token?, TokenSource::File(path))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io(e)),
    }
    std::fs::create_dir_all(data_dir).map_err(|e| TokenError::Io { path: data_dir.to_path_buf(), source: e })?;
    let token = Token::generate()?;
    match create_private(&path) {
        Ok(mut file) => {
            file.write_all(token.0.as_bytes()).and_then(|()| file.sync_all()).map_err(io)?;
            Ok((token, TokenSource::Generated(path)))
        }
        // Another process created it first: use theirs.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let token = read_file(&path).map_err(io)??;
            Ok((token, TokenSource::File(path)))
        }
        Err(e) => Err(io(e)),
    }
}

/// Reads the token file, first narrowing its permissions to the owner if they were wider.
fn read_file(path: &Path) -> std::io::Result<Result<Token, TokenError>> {
    let text = std::fs::read_to_string(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path)?.permissions().mode();
        if mode & 0o077 != 0 {
            tracing::warn!(file = %path.display(), mode = format!("{:o}", mode & 0o777), "the access token file was readable by others; set to 0600");
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
        }
    }
    Ok(Token::parse(&text, &format!("the token in {}", path.display())))
}

fn create_private(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_start_creates_a_private_token_file_and_the_next_start_reads_it_back() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (first, source) = load_or_create(dir.path(), None).expect("created");
        let path = dir.path().join(TOKEN_FILE);
        assert_eq!(source, TokenSource::Generated(path.clone()));
        assert_eq!(first.secret().len(), 64);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).expect("file").permissions().mode() & 0o777, 0o600);
        }
        let (again, source) = load_or_create(dir.path(), None).expect("read back");
        assert_eq!(source, TokenSource::File(path));
        assert!(again.matches(first.secret()));
    }

    #[test]
    fn the_environment_overrides_the_file_and_a_short_token_is_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let given = "a".repeat(40);
        let (token, source) = load_or_create(dir.path(), Some(&given)).expect("from env");
        assert_eq!(source, TokenSource::Env);
        assert!(token.matches(&given));
        assert!(!dir.path().join(TOKEN_FILE).exists());
        assert!(matches!(load_or_create(dir.path(), Some("short")), Err(TokenError::Weak { .. })));
        assert!(matches!(Token::parse(&format!("{given} x"), "t"), Err(TokenError::Weak { .. })));
    }

    #[test]
    fn tokens_compare_exactly_and_debug_hides_the_value() {
        let token = Token::generate().expect("random");
        assert!(token.matches(token.secret()));
        assert!(!token.matches(&token.secret()[1..]));
        assert!(!token.matches(""));
        assert!(!format!("{token:?}").contains(token.secret()));
    }
}
