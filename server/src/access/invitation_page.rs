//! The page an invitation link opens: who invited, as what role, and a form (no script) to pick a login, a
//! name and a password, or (with `/passkeys.js`) a passkey instead (`passkeys::join`). Posting it makes the account and signs this browser in. A link that was used,
//! withdrawn or has expired says so; a mistake in the form shows the form again with what was typed (but
//! the passwords) and leaves the link usable.

use std::net::IpAddr;

use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde::Deserialize;
use warden_people::Error as PeopleError;
use warden_types::person::Invitation;

use super::middleware::{served_over_https, start_session, store_failed};
use super::sign_in_page::{escape, page};
use super::Access;

pub use warden_people::INVITE_PREFIX;

#[derive(Deserialize, Default)]
pub struct AcceptForm {
    #[serde(default)]
    login: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    password_again: String,
}

/// The link an invitation's secret makes, on the host and scheme the owner's request came by (the gate has
/// checked the host is allowed).
pub fn invitation_link(headers: &HeaderMap, secret: &str) -> String {
    page_link(headers, &format!("{INVITE_PREFIX}{secret}"))
}

/// `path` on this server, as the request's `Host` (which the gate checked) and scheme name it.
pub fn page_link(headers: &HeaderMap, path: &str) -> String {
    let host = headers.get(axum::http::header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("127.0.0.1");
    let scheme = if served_over_https(headers) { "https" } else { "http" };
    format!("{scheme}://{host}{path}")
}

/// `GET /invite/<secret>`: the form, or why the link opens nothing.
pub async fn show(access: &Access, secret: &str) -> Response {
    let Some(people) = access.people() else { return not_valid() };
    match people.invitation_by_secret(secret).await {
        Ok(Some(invitation)) => {
            let suggested = invitation.name.clone().unwrap_or_default();
            let typed = AcceptForm { name: suggested, ..AcceptForm::default() };
            form(StatusCode::OK, secret, &invitation, &typed, None)
        }
        Ok(None) => not_valid(),
        Err(error) => store_failed(&error),
    }
}

/// `POST /invite/<secret>`: the account made and this browser signed in, or the form again with the reason.
pub async fn accept(
    access: &Access,
    headers: &HeaderMap,
    peer: Option<IpAddr>,
    secret: &str,
    typed: AcceptForm,
) -> Response {
    let Some(people) = access.people() else { return not_valid() };
    let invitation = match people.invitation_by_secret(secret).await {
        Ok(Some(invitation)) => invitation,
        Ok(None) => return not_valid(),
        Err(error) => return store_failed(&error),
    };
    if typed.password != typed.password_again {
        return form(StatusCode::UNPROCESSABLE_ENTITY, secret, &invitation, &typed, Some("The two passwords differ."));
    }
    match people.accept_invitation(secret, &typed.login, &typed.name, &typed.password).await {
        Ok(person) => {
            tracing::info!(person = %person.id, role = %person.role.as_str(), "an invitation was accepted");
            start_session(access, headers, peer, &person.id, "/").await
        }
        Err(PeopleError::InvitationNotValid) => not_valid(),
        Err(error @ (PeopleError::BadName(_) | PeopleError::BadPassword(_) | PeopleError::LoginTaken(_))) => {
            let reason = capitalized(&error.to_string());
            form(StatusCode::UNPROCESSABLE_ENTITY, secret, &invitation, &typed, Some(&reason))
        }
        Err(error) => store_failed(&error),
    }
}

fn form(
    status: StatusCode,
    secret: &str,
    invitation: &Invitation,
    typed: &AcceptForm,
    problem: Option<&str>,
) -> Response {
    let role = invitation.role.label();
    let problem = problem.map(|p| format!(r#"<p role="alert">{}</p>"#, escape(p))).unwrap_or_default();
    let (login, name) = (escape(&typed.login), escape(&typed.name));
    let action = format!("{INVITE_PREFIX}{}", escape(secret));
    let min = warden_people::password::MIN_CHARS;
    let body = format!(
        r#"<h1>Join Warden</h1>
<p>You are invited as <strong>{role}</strong>. Choose how you sign in.</p>
{problem}
<form method="post" action="{action}">
<p><label for="login">Login</label><br><input id="login" name="login" autocomplete="username" required value="{login}"></p>
<p><label for="name">Your name</label><br><input id="name" name="name" autocomplete="name" required value="{name}"></p>
<p><label for="password">Password (at least {min} characters)</label><br><input id="password" name="password" type="password" autocomplete="new-password" minlength="{min}" required></p>
<p><label for="password_again">Password again</label><br><input id="password_again" name="password_again" type="password" autocomplete="new-password" minlength="{min}" required></p>
<p><button type="submit">Join</button></p>
</form>
<section data-passkey-area hidden aria-labelledby="passkey-title">
<h2 id="passkey-title">Or with a passkey</h2>
<p>Instead of a password, sign in with a passkey kept by this device (fill in your login and name above).</p>
<p><button type="button" data-passkey="join">Use a passkey instead</button></p>
<p role="status" data-passkey-status></p>
</section>"#
    );
    page(status, "Join Warden", &body)
}

fn not_valid() -> Response {
    page(
        StatusCode::GONE,
        "Invitation not valid",
        "<h1>This invitation link does not work</h1>\n<p>It was used, withdrawn, or has expired. Ask an owner of this Warden for a new one.</p>",
    )
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect::<String>() + ".",
        None => String::new(),
    }
}
