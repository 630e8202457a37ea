//! Redirects for Warden's own HTTP clients (model providers, MCP servers over HTTP). Their requests carry
//! credentials in headers reqwest does not know to drop on a redirect (`x-api-key`, `x-goog-api-key`, an
//! MCP server's configured headers), so a redirect is followed only within the origin the person
//! configured (scheme, host and port). Any other ends the request with the redirect as its answer, which
//! the caller reports as an error that names where it pointed.

use std::sync::{Arc, Mutex, PoisonError};

use reqwest::redirect::Policy;

/// Most redirects followed within one origin (reqwest's own default).
pub const MAX_REDIRECTS: usize = 10;

/// Follows a 307 or 308 only to the origin of the first request, at most [`MAX_REDIRECTS`] times (as
/// rmcp's own client does: a 301, 302 or 303 would turn the POST into a GET without its body).
pub fn same_origin_only() -> Policy {
    noting_refused(RefusedRedirect::default())
}

/// [`same_origin_only`], keeping in `refused` where a redirect it did not follow pointed.
pub fn noting_refused(refused: RefusedRedirect) -> Policy {
    Policy::custom(move |attempt| {
        let keeps_body = matches!(
            attempt.status(),
            reqwest::StatusCode::TEMPORARY_REDIRECT | reqwest::StatusCode::PERMANENT_REDIRECT
        );
        let same_origin = attempt.previous().first().is_some_and(|first| first.origin() == attempt.url().origin());
        if keeps_body && same_origin && attempt.previous().len() <= MAX_REDIRECTS {
            attempt.follow()
        } else {
            refused.set(attempt.url());
            attempt.stop()
        }
    })
}

/// Where the last redirect that was not followed pointed (scheme, host and port only: its path and
/// query may carry secrets of their own).
#[derive(Debug, Clone, Default)]
pub struct RefusedRedirect(Arc<Mutex<Option<String>>>);

impl RefusedRedirect {
    fn set(&self, url: &reqwest::Url) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(origin_of(url));
    }

    pub fn get(&self) -> Option<String> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

/// `scheme://host:port` of a URL, or what of it there is.
pub fn origin_of(url: &reqwest::Url) -> String {
    let port = url.port_or_known_default().map(|p| format!(":{p}")).unwrap_or_default();
    format!("{}://{}{port}", url.scheme(), url.host_str().unwrap_or("?"))
}

/// What a person reads when a redirect was not followed.
pub fn refused_text(to: Option<&str>) -> String {
    let to = to.map(|to| format!(" to {to}")).unwrap_or_default();
    format!(
        "a redirect{to}, another address. Warden does not follow a redirect away from the configured address, \
         since the request carries its credentials; if that address is the right one, configure it instead"
    )
}
