//! Who may use Warden over HTTP: requests must name an allowed host, state changes must come from an
//! allowed origin, and everything but `/api/health`, static files and the outside clients' routes needs
//! the access token (as a bearer header) or a live signed-in browser's session cookie (which the
//! sign-in link sets, and Settings lists and signs out); those routes
//! check an allowed origin on every method and then a client token of their own
//! (`crate::api::outside`). `middleware::guard` applies it all.

pub mod credentials;
pub mod host;
mod invitation_page;
pub mod middleware;
pub mod oidc;
pub mod passkeys;
mod password_sign_in;
pub mod pending;
pub mod roles;
pub mod server_fn_rules;
pub mod session;
mod sign_in_page;
pub mod token;

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use host::AllowedHosts;
pub use invitation_page::{invitation_link, page_link};
pub use session::SessionCookie;
pub use sign_in_page::escape;
pub use token::{Token, TokenSource};
use warden_people::{Asker, People};
use warden_sessions::{Sessions, SignedIn};
use warden_types::id::PersonId;

#[derive(Debug, thiserror::Error)]
pub enum AccessError {
    #[error(transparent)]
    Token(#[from] token::TokenError),
    #[error(transparent)]
    Hosts(#[from] host::HostListError),
    #[error(transparent)]
    Oidc(#[from] oidc::ConfigError),
    #[error("the identity provider's HTTP client could not be made: {0}")]
    OidcClient(#[from] reqwest::Error),
}

/// The access policy of one server: its token, signed-in browsers and allowed hosts.
#[derive(Clone)]
pub struct Access(Arc<Inner>);

#[derive(Clone)]
struct Inner {
    token: Token,
    cookie: SessionCookie,
    /// The signed-in browsers; until they are attached (`with_sessions`, which `AppState::open` does)
    /// no cookie signs anyone in and the sign-in link cannot start a session.
    sessions: Option<Sessions>,
    hosts: AllowedHosts,
    /// The people: whom a session or the token belongs to, and their role. Until they are attached
    /// (`with_people`, which `AppState::open` does) nobody is let in but to the public paths.
    people: Option<(People, FoundingOwner)>,
    /// Files under here are served without the token (the wasm, JS and CSS of the site).
    static_root: Option<PathBuf>,
    /// Password and passkey sign-ins so far, per address and per login.
    attempts: Arc<password_sign_in::Attempts>,
    /// Passkey ceremonies under way.
    passkey_ceremonies: Arc<passkeys::Ceremonies>,
    /// The team's identity provider, when one is configured.
    oidc: Option<oidc::Provider>,
}

/// The id of the person the access token and the printed sign-in link stand for.
#[derive(Clone, Debug)]
struct FoundingOwner(PersonId);

/// Who a request that passed the token or cookie check is.
pub enum Caller {
    /// Showed the access token.
    Token,
    /// A signed-in browser.
    Browser(SignedIn),
}

/// Why a caller is not let in as a person.
#[derive(Debug, thiserror::Error)]
pub enum AskerError {
    #[error("the people could not be read: {0}")]
    People(#[from] warden_people::Error),
    #[error("no people are attached to the access policy")]
    NoPeople,
}

impl Access {
    pub fn new(token: Token, hosts: AllowedHosts) -> Self {
        let max_age = warden_sessions::Policy::default().absolute.as_secs();
        let cookie = SessionCookie::new(hosts.port(), max_age);
        let (attempts, passkey_ceremonies) = (Arc::default(), Arc::default());
        Self(Arc::new(Inner {
            token,
            cookie,
            sessions: None,
            people: None,
            hosts,
            static_root: None,
            attempts,
            passkey_ceremonies,
            oidc: None,
        }))
    }

    /// Lets files that exist under `root` (the site root) be fetched without the token.
    pub fn with_static_root(self, root: impl Into<PathBuf>) -> Self {
        let mut inner = (*self.0).clone();
        inner.static_root = Some(root.into());
        Self(Arc::new(inner))
    }

    /// Keeps signed-in browsers in `sessions`: the sign-in link starts one, the cookie names it.
    pub fn with_sessions(self, sessions: Sessions) -> Self {
        let mut inner = (*self.0).clone();
        inner.cookie = SessionCookie::new(inner.hosts.port(), sessions.policy().absolute.as_secs());
        inner.sessions = Some(sessions);
        Self(Arc::new(inner))
    }

    /// Lets people in: the token and the sign-in link stand for `founding_owner`, a session for its person.
    pub fn with_people(self, people: People, founding_owner: PersonId) -> Self {
        let mut inner = (*self.0).clone();
        inner.people = Some((people, FoundingOwner(founding_owner)));
        Self(Arc::new(inner))
    }

    /// Lets people sign in with the identity provider `provider` too.
    pub fn with_oidc(self, provider: oidc::Provider) -> Self {
        let mut inner = (*self.0).clone();
        inner.oidc = Some(provider);
        Self(Arc::new(inner))
    }

    pub fn oidc(&self) -> Option<&oidc::Provider> {
        self.0.oidc.as_ref()
    }

    pub fn people(&self) -> Option<&People> {
        self.0.people.as_ref().map(|(people, _)| people)
    }

    fn attempts(&self) -> &password_sign_in::Attempts {
        &self.0.attempts
    }

    fn passkey_ceremonies(&self) -> &passkeys::Ceremonies {
        &self.0.passkey_ceremonies
    }

    /// The person the token and the printed sign-in link stand for.
    pub fn founding_owner(&self) -> Option<&PersonId> {
        self.0.people.as_ref().map(|(_, FoundingOwner(id))| id)
    }

    /// The person `caller` is, if their account is enabled (`None`: disabled, or a session of nobody known).
    pub async fn asker(&self, caller: &Caller) -> Result<Option<Asker>, AskerError> {
        let Some((people, FoundingOwner(owner))) = &self.0.people else { return Err(AskerError::NoPeople) };
        let (id, by_token) = match caller {
            Caller::Token => (owner, true),
            Caller::Browser(signed_in) => (&signed_in.person_id, false),
        };
        match people.person(id).await {
            Ok(person) if person.disabled_at.is_none() => Ok(Some(Asker { person, by_token })),
            Ok(_) | Err(warden_people::Error::NotFound(_)) => Ok(None),
            Err(other) => Err(other.into()),
        }
    }

    /// The policy from the environment for a server bound to `bind` with its data in `data_dir`:
    /// `WARDEN_TOKEN` (else the token file), `WARDEN_ALLOWED_HOSTS`, and the bound address itself
    /// when it is a specific non-loopback one; the identity provider of `WARDEN_OIDC_*` if set.
    pub fn from_env(data_dir: &Path, bind: SocketAddr) -> Result<(Self, TokenSource), AccessError> {
        let env = |name| std::env::var(name).ok().filter(|v: &String| !v.trim().is_empty());
        let (token, source) = token::load_or_create(data_dir, env("WARDEN_TOKEN").as_deref())?;
        let mut hosts =
            AllowedHosts::loopback(bind.port()).with_extra(&env("WARDEN_ALLOWED_HOSTS").unwrap_or_default())?;
        if !bind.ip().is_loopback() && !bind.ip().is_unspecified() {
            hosts = hosts.with_name(&host_name(bind.ip()));
        }
        let mut access = Self::new(token, hosts);
        if let Some(config) = oidc::OidcConfig::from_env()? {
            tracing::info!(issuer = %config.issuer.as_str(), "people may sign in with the identity provider");
            access = access.with_oidc(oidc::Provider::new(config)?);
        }
        Ok((access, source))
    }

    pub fn token(&self) -> &Token {
        &self.0.token
    }

    pub fn cookie(&self) -> &SessionCookie {
        &self.0.cookie
    }

    pub fn sessions(&self) -> Option<&Sessions> {
        self.0.sessions.as_ref()
    }

    /// The live session one of the request's session cookies names, if any.
    pub async fn signed_in(&self, headers: &axum::http::HeaderMap) -> warden_sessions::Result<Option<SignedIn>> {
        let Some(sessions) = &self.0.sessions else { return Ok(None) };
        for value in self.0.cookie.values(headers) {
            if let Some(signed_in) = sessions.check(value).await? {
                return Ok(Some(signed_in));
            }
        }
        Ok(None)
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
