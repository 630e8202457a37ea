//! The small page a browser gets instead of the app until it has signed in: no script, no app,
//! just what to do, and what a session cookie risks (docs/SECURITY.md, "Not protected").

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

/// Why the page is shown.
pub enum Reason {
    NotSignedIn,
    WrongToken,
}

pub fn response(reason: Reason) -> Response {
    let lead = match reason {
        Reason::NotSignedIn => "This Warden server needs you to sign in first.",
        Reason::WrongToken => "That sign-in link is not valid for this Warden server (the token does not match).",
    };
    let html = format!(
        r#"<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign in to Warden</title><link rel="icon" href="data:,"></head>
<body>
<main>
<h1>Sign in to Warden</h1>
<p>{lead}</p>
<p>Open the sign-in link the server printed when it started. It looks like
<code>http://127.0.0.1:3000/?token=…</code>. The token is also in the file <code>access-token</code>
in Warden's data directory, or in <code>WARDEN_TOKEN</code> if that was set.</p>
<p>Opening the link signs this browser in with a session cookie. Browsers send a site's cookies to
every port of its host, so a page served by another program on this machine that you open may receive
it. Settings lists the signed-in browsers (where and when) and signs them out, one by one or all at
once; a session also ends after 7 days unused or 30 days in all.</p>
</main>
</body>
</html>
"#
    );
    (
        StatusCode::UNAUTHORIZED,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8"), (header::CACHE_CONTROL, "no-store")],
        html,
    )
        .into_response()
}
