//! The small pages a browser gets instead of the app until it has signed in: no app, and no script but this
//! server's `/passkeys.js` (which only adds the passkey buttons: the forms work without it). The sign-in
//! page takes a login and a password (people invited by an owner) or a passkey and says how the owner signs
//! in (the printed link), and what a session cookie risks (docs/SECURITY.md, "Not protected"). The invitation page
//! is in `invitation_page`; both share the shell here.

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

use super::oidc::START_PATH as OIDC_START_PATH;
use super::Access;

/// The form's path; the form posts `login` and `password` to it.
pub const SIGN_IN_PATH: &str = "/sign-in";
/// The paths under it: the passkey's sign-in (and the identity provider's).
pub const SIGN_IN_PREFIX: &str = "/sign-in/";
pub const PASSKEY_OPTIONS_PATH: &str = "/sign-in/passkey/options";
pub const PASSKEY_PATH: &str = "/sign-in/passkey";

/// Why the page is shown.
pub enum Reason {
    NotSignedIn,
    WrongToken,
    /// The session's person (or the token's) has been disabled by an owner.
    AccountDisabled,
    /// The login and password did not sign anyone in.
    WrongPassword,
    /// Too many sign-ins from this address or for this login in a short time.
    TooManyAttempts,
    /// The identity provider's discovery document could not be fetched.
    ProviderUnreachable,
}

pub fn response(access: &Access, reason: Reason) -> Response {
    response_for(access, reason, "")
}

/// The page, with `login` typed back into its field.
pub fn response_for(access: &Access, reason: Reason, login: &str) -> Response {
    let (status, lead) = match reason {
        Reason::NotSignedIn => (StatusCode::UNAUTHORIZED, "This Warden server needs you to sign in first."),
        Reason::WrongToken => (
            StatusCode::UNAUTHORIZED,
            "That sign-in link is not valid for this Warden server (the token does not match).",
        ),
        Reason::AccountDisabled => {
            (StatusCode::UNAUTHORIZED, "This account is disabled. Ask an owner of this Warden to enable it again.")
        }
        Reason::WrongPassword => (StatusCode::UNAUTHORIZED, "That login and password do not match an account here."),
        Reason::TooManyAttempts => {
            (StatusCode::TOO_MANY_REQUESTS, "Too many sign-in attempts. Wait a minute, then try again.")
        }
        Reason::ProviderUnreachable => {
            (StatusCode::BAD_GATEWAY, "The identity provider could not be reached. Try again, or sign in another way.")
        }
    };
    let provider = access
        .oidc()
        .map(|provider| {
            let name = escape(&provider.config().display_name());
            format!(r#"<p><a href="{OIDC_START_PATH}">Sign in with {name}</a></p>"#)
        })
        .unwrap_or_default();
    let login = escape(login);
    let body = format!(
        r#"<h1>Sign in to Warden</h1>
<p role="status">{lead}</p>
{provider}
<form method="post" action="{SIGN_IN_PATH}">
<p><label for="login">Login</label><br><input id="login" name="login" autocomplete="username" required value="{login}"></p>
<p><label for="password">Password</label><br><input id="password" name="password" type="password" autocomplete="current-password" required></p>
<p><button type="submit">Sign in</button></p>
</form>
{PASSKEY_SIGN_IN}
<h2>Installed Warden yourself?</h2>
<p>Open the sign-in link the server printed when it started. It looks like
<code>http://127.0.0.1:3000/?token=…</code>. The token is also in the file <code>access-token</code>
in Warden's data directory, or in <code>WARDEN_TOKEN</code> if that was set.</p>
<p>Signing in gives this browser a session cookie. Browsers send a site's cookies to
every port of its host, so a page served by another program on this machine that you open may receive
it. Settings lists the signed-in browsers (where and when) and signs them out, one by one or all at
once; a session also ends after 7 days unused or 30 days in all.</p>"#
    );
    page(status, "Sign in to Warden", &body)
}

/// The passkey's part of the sign-in page: hidden until `/passkeys.js` finds the browser can use one.
const PASSKEY_SIGN_IN: &str = r#"<section data-passkey-area hidden aria-labelledby="passkey-title">
<h2 id="passkey-title">Or with a passkey</h2>
<p><button type="button" data-passkey="sign-in">Use a passkey</button></p>
<p role="status" data-passkey-status></p>
</section>"#;

/// The pages' policy: only this server's own script (`/passkeys.js`, no inline script) and requests back to
/// this server; their forms post only to it (the fallback policy's `form-action 'none'` would stop them).
const FORM_PAGE_POLICY: &str = "default-src 'none'; script-src 'self'; connect-src 'self'; base-uri 'none'; \
                                form-action 'self'; frame-ancestors 'none'";

/// A whole page around `body` (already escaped where it holds anything typed), never cached. Its referrer
/// policy is `same-origin`, not the server's `no-referrer`: under `no-referrer` a browser sends `Origin: null`
/// with the form's `POST`, which the origin check refuses; nothing on the page leads to another site.
pub fn page(status: StatusCode, title: &str, body: &str) -> Response {
    let html = format!(
        r#"<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="same-origin"><title>{title}</title><script src="/passkeys.js" defer></script></head>
<body>
<main>
{body}
</main>
</body>
</html>
"#
    );
    let headers = [
        (header::CONTENT_TYPE, "text/html; charset=utf-8"),
        (header::CACHE_CONTROL, "no-store"),
        (header::CONTENT_SECURITY_POLICY, FORM_PAGE_POLICY),
    ];
    (status, headers, html).into_response()
}

/// `text` safe inside an element or a double-quoted attribute.
pub fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    // Writing to a String cannot fail.
    let _ = pulldown_cmark_escape::escape_html(&mut escaped, text);
    escaped
}
