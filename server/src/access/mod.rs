//! Who may use Warden over HTTP: requests must name an allowed host, state changes must come from an
//! allowed origin, and everything but `/api/health`, static files and the outside clients' routes needs
//! the access token (as a bearer header, or the session cookie the sign-in link sets); those routes
//! check an allowed origin on every method and then a client token of their own
//! (`crate::api::outside`). `middleware::guard` applies it all.

pub mod credentials;
pub mod host;
pub mod middleware;
pub mod session;
mod sign_in_page;
pub mod token;

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use host::AllowedHosts;
pub use session::Session;
pub use token::{Token, TokenSource};

#[derive(Debug, thiserror::Error)]
pub enum AccessError {
    #[error(transparent)]
    Token(#[from] token::TokenError),
    #[error(transparent)]
    Hosts(#[from] host::HostListError),
}

/// The access policy of one server: its token, session cookie and allowed hosts.
#[derive(Clone)]
pub struct Access(Arc<Inner>);

struct Inner {
    token: Token,
    session: Session,
    hosts: AllowedHosts,
    /// Files under here are served without the token (the wasm, JS and CSS of the site).
    static_root: Option<PathBuf>,
}

impl Access {
    pub fn new(token: Token, hosts: AllowedHosts) -> Self {
        let session = Session::new(&token, hosts.port());
        Self(Arc::new(Inner { token, session, hosts, static_root: None }))
    }

    /// Lets files that exist under `root` (the site root) be fetched without the token.
    pub fn with_static_root(self, root: impl Into<PathBuf>) -> Self {
        let inner = &self.0;
        Self(Arc::new(Inner {
            token: inner.token.clone(),
            session: inner.session.clone(),
            hosts: inner.hosts.clone(),
            static_root: Some(root.into()),
        }))
    }

    /// The policy from the environment for a server bound to `bind` with its data in `data_dir`:
    /// `WARDEN_TOKEN` (else the token file), `WARDEN_ALLOWED_HOSTS`, and the bound address itself
    /// when it is a specific non-loopback one.
    pub fn from_env(data_dir: &Path, bind: SocketAddr) -> Result<(Self, TokenSource), AccessError> {
        let env = |name| std::env::var(name).ok().filter(|v: &String| !v.trim().is_empty());
        let (token, source) = token::load_or_create(data_dir, env("WARDEN_TOKEN").as_deref())?;
        let mut hosts =
            AllowedHosts::loopback(bind.port()).with_extra(&env("WARDEN_ALLOWED_HOSTS").unwrap_or_default())?;
        if !bind.ip().is_loopback() && !bind.ip().is_unspecified() {
            hosts = hosts.with_name(&host_name(bind.ip()));
        }
        Ok((Self::new(token, hosts), source))
    }

    pub fn token(&self) -> &Token {
        &self.0.token
    }

    pub fn session(&self) -> &Session {
        &self.0.session
    }

    pub fn hosts(&self) -> &AllowedHosts {
        &self.0.hosts
    }

    /// The link that signs a browser in, for a server reachable at `bind`.
    pub fn sign_in_link(&self, bind: SocketAddr) -> String {
        let ip = if bind.ip().is_unspecified() { IpAddr::from([127, 0, 0, 1]) } else { bind.ip() };
        format!("http://{}:{}/?token={}", host_name(ip), bind.port(), self.0.token.secret())
    }

    /// Whether `path` names a file under the static root (no `..`, no hidden tricks: only plain
    /// path segments are joined).
    fn is_static_file(&self, path: &str) -> bool {
        let Some(root) = &self.0.static_root else { return false };
        let mut file = root.clone();
        for segment in path.split('/').filter(|s| !s.is_empty()) {
            if segment == "." || segment == ".." || segment.contains('\\') || segment.contains('%') {
                return false;
            }
            file.push(segment);
        }
        file != *root && file.is_file()
    }
}

/// An IP address as it appears in a URL's host (IPv6 in brackets).
fn host_name(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => format!("[{v6}]"),
    }
}
