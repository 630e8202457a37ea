//! `/decide/{secret}`: the page a decision link opens, for a person away from the app (a phone, a mail).
//!
//! Opening it (`GET`) decides nothing: mail scanners and link previews fetch every link of a message, so the
//! page only shows the request as the app's card does (what it will do, who asks, the risk, the quorum, the
//! deadline) and one button for the link's action. The tap (`POST` from that page, same origin, carrying the
//! fingerprint of what was shown) burns the link in one conditional write and then decides as the person the
//! link was made for, recorded as their decision "by link". A link that was used, expired, whose request was
//! decided or is no longer routed to its person says so; a request that changed since its page was shown
//! is shown again, and the link stays usable. Public (no session: the link's secret is the credential), on an
//! allowed host like every route.

pub mod html;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::Form;
use serde::Deserialize;
use warden_engine::Engine;
use warden_outside::OutsideHub;
use warden_people::People;
use warden_policies::may_decide;
use warden_reach::{Burn, DecisionLink, LinkState, Reach};
use warden_types::approval::{DecisionInput, Verdict};
use warden_types::notification::RequestRef;
use warden_types::person::ActingPerson;
use warden_types::policy::VoteVia;

use crate::request_view::{RequestView, Standing};

pub use warden_reach::links::DECIDE_PREFIX;

/// What the confirm page posts.
#[derive(Deserialize)]
pub struct ConfirmForm {
    /// The fingerprint of what the page showed.
    #[serde(default)]
    shown: String,
    #[serde(default)]
    reason: Option<String>,
}

/// The stores the page reads and decides through.
struct Deciding {
    engine: Engine,
    hub: OutsideHub,
    people: People,
    reach: Reach,
}

/// `GET /decide/{secret}`: the confirm page, or why the link decides nothing.
pub async fn show(
    State(engine): State<Engine>,
    State(hub): State<OutsideHub>,
    State(people): State<People>,
    State(reach): State<Reach>,
    Path(secret): Path<String>,
) -> Response {
    let deciding = Deciding { engine, hub, people, reach };
    let link = match deciding.reach.links.find(&secret).await {
        Ok(Some(link)) => link,
        Ok(None) => return not_valid(),
        Err(error) => return failed(&error.to_string()),
    };
    if let Err(error) = deciding.reach.links.mark_opened(&link).await {
        tracing::warn!(%error, link = %link.id, "could not record that a decision link was opened");
    }
    if link.state() != LinkState::Usable {
        return deciding.unusable(&link).await;
    }
    match deciding.checked(&link).await {
        Ok((view, person)) => html::confirm(&view, link.intent, &person.name, None, &action(&secret)),
        Err(page) => page,
    }
}

/// `POST /decide/{secret}`: burns the link, then decides as its person what the page showed.
pub async fn confirm(
    State(engine): State<Engine>,
    State(hub): State<OutsideHub>,
    State(people): State<People>,
    State(reach): State<Reach>,
    Path(secret): Path<String>,
    Form(form): Form<ConfirmForm>,
) -> Response {
    let deciding = Deciding { engine, hub, people, reach };
    let link = match deciding.reach.links.burn(&secret).await {
        Ok(Burn::Now(link)) => link,
        Ok(Burn::NotUsable(link)) => return deciding.unusable(&link).await,
        Ok(Burn::Unknown) => return not_valid(),
        Err(error) => return failed(&error.to_string()),
    };
    let (view, person) = match deciding.checked(&link).await {
        Ok(found) => found,
        Err(page) => {
            deciding.outcome(&link, "nothing was decided: the request could not be decided by this link").await;
            return page;
        }
    };
    if form.shown != view.fingerprint {
        return deciding.changed(&link, &secret, &person).await;
    }
    let reason = form.reason.filter(|r| !r.trim().is_empty());
    match deciding.decide(&link, &person, reason).await {
        Ok(after) => {
            let (heading, what) = decided_words(link.intent, &after);
            deciding.outcome(&link, &what).await;
            html::done(heading, &what, &after)
        }
        Err(Refusal::Changed) => deciding.changed(&link, &secret, &person).await,
        Err(Refusal::Said(status, heading, reason)) => {
            deciding.outcome(&link, &reason).await;
            html::why_not(status, heading, &reason, Some(&view))
        }
        Err(Refusal::Failed(error)) => {
            tracing::error!(%error, link = %link.id, "a decision by link failed");
            if let Err(error) = deciding.reach.links.restore(&link).await {
                tracing::error!(%error, link = %link.id, "could not make a decision link usable again");
            }
            failed(&error)
        }
    }
}

/// Why a decision was not made.
enum Refusal {
    /// What the page showed is not what the request shows now.
    Changed,
    /// Said to the person: the status, a heading and the reason.
    Said(StatusCode, &'static str, String),
    /// The store failed.
    Failed(String),
}

impl Deciding {
    /// The request as the page shows it and the person the link is for, if its request can be decided by
    /// that person now (the link's own state is the caller's to check); else the page that says why not.
    async fn checked(&self, link: &DecisionLink) -> Result<(RequestView, ActingPerson), Response> {
        let view = self.view(&link.request).await.map_err(|page| *page)?;
        if let Standing::Settled(how) = &view.standing {
            return Err(html::why_not(StatusCode::OK, "Already decided", how, Some(&view)));
        }
        let person = match self.people.person(&link.person).await {
            Ok(person) if person.disabled_at.is_none() => person.acting(),
            Ok(_) => {
                let why = "This account is disabled: ask an owner of this Warden.";
                return Err(html::why_not(StatusCode::FORBIDDEN, "Not yours to decide", why, None));
            }
            Err(error) => return Err(failed(&error.to_string())),
        };
        if let Err(refusal) = may_decide(&view.route, &person) {
            let why = format!("This link no longer decides anything: {refusal}.");
            return Err(html::why_not(StatusCode::FORBIDDEN, "Not yours to decide", &why, Some(&view)));
        }
        if link.intent == Verdict::Approve && view.approved_by.contains(&person.id) {
            let why = format!("You approved this already: {}.", view.progress);
            return Err(html::why_not(StatusCode::OK, "Approved already", &why, Some(&view)));
        }
        Ok((view, person))
    }

    async fn view(&self, request: &RequestRef) -> Result<RequestView, Box<Response>> {
        match crate::request_view::load(&self.engine, &self.hub, request).await {
            Ok(Some(view)) => Ok(view),
            Ok(None) => {
                Err(Box::new(html::why_not(StatusCode::NOT_FOUND, "Request not found", "This request is gone.", None)))
            }
            Err(error) => Err(Box::new(failed(&error))),
        }
    }

    /// The page of a link that was used or expired.
    async fn unusable(&self, link: &DecisionLink) -> Response {
        let view = self.view(&link.request).await.ok();
        let (heading, why) = match (&link.used_at, &link.outcome) {
            (Some(at), Some(outcome)) => {
                ("This link was used", format!("It was used at {} UTC: {outcome}.", clock(at)))
            }
            (Some(at), None) => ("This link was used", format!("It was used at {} UTC.", clock(at))),
            (None, _) => ("This link has expired", "Open Warden to decide, or ask for a new link.".to_string()),
        };
        html::why_not(StatusCode::GONE, heading, &why, view.as_ref())
    }

    /// What the page showed changed: the link is usable again and the page shows the request as it is now.
    async fn changed(&self, link: &DecisionLink, secret: &str, person: &ActingPerson) -> Response {
        if let Err(error) = self.reach.links.restore(link).await {
            return failed(&error.to_string());
        }
        let now = match self.view(&link.request).await {
            Ok(view) => view,
            Err(page) => return *page,
        };
        let notice = "This request changed since the page was shown. Check it again before you decide.";
        html::confirm(&now, link.intent, &person.name, Some(notice), &action(secret))
    }

    async fn decide(
        &self,
        link: &DecisionLink,
        person: &ActingPerson,
        reason: Option<String>,
    ) -> Result<RequestView, Refusal> {
        match &link.request {
            RequestRef::Approval(id) => {
                let approval = self.engine.approval(id).await.map_err(|e| Refusal::Failed(e.to_string()))?;
                let input = match link.intent {
                    // With a quorum the card may show an approver's edit: the approval names what it approves.
                    Verdict::Approve if warden_policies::route_of(&approval).quorum > 1 => {
                        DecisionInput { arguments: Some(approval.arguments.clone()), ..DecisionInput::approve() }
                    }
                    Verdict::Approve => DecisionInput::approve(),
                    Verdict::Deny => DecisionInput::deny(reason),
                };
                match self.engine.decide_via(id, input, person, VoteVia::Link).await {
                    Ok(after) => Ok(RequestView::of_approval(&after)),
                    Err(warden_engine::Error::ShownChanged) => Err(Refusal::Changed),
                    Err(error) => Err(said(error.kind(), error.to_string())),
                }
            }
            RequestRef::Outside(id) => {
                let request = self.hub.request(id).await.map_err(|e| Refusal::Failed(e.to_string()))?;
                let input = warden_outside::DecisionInput {
                    decision: match link.intent {
                        Verdict::Approve => warden_outside::protocol::Verdict::Approved,
                        Verdict::Deny => warden_outside::protocol::Verdict::Rejected,
                    },
                    reason,
                    edited_code: match link.intent {
                        Verdict::Approve => request.shown_code.clone(),
                        Verdict::Deny => None,
                    },
                };
                match self.hub.decide_via(id, input, person, Some(VoteVia::Link)).await {
                    Ok(after) => Ok(RequestView::of_outside(&after)),
                    Err(warden_outside::Error::ShownChanged) => Err(Refusal::Changed),
                    Err(error) => Err(said(error.kind(), error.to_string())),
                }
            }
        }
    }

    async fn outcome(&self, link: &DecisionLink, outcome: &str) {
        if let Err(error) = self.reach.links.record_outcome(&link.id, outcome).await {
            tracing::warn!(%error, link = %link.id, "could not record what a decision link did");
        }
    }
}

/// A refusal from the engine or the hub, in the person's words.
fn said(kind: warden_types::ErrorKind, error: String) -> Refusal {
    use warden_types::ErrorKind;
    match kind {
        ErrorKind::Forbidden => Refusal::Said(StatusCode::FORBIDDEN, "Not yours to decide", capitalized(&error)),
        ErrorKind::Conflict => Refusal::Said(StatusCode::CONFLICT, "Nothing was decided", capitalized(&error)),
        ErrorKind::Invalid => {
            Refusal::Said(StatusCode::UNPROCESSABLE_ENTITY, "Nothing was decided", capitalized(&error))
        }
        _ => Refusal::Failed(error),
    }
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    let first: String = chars.next().map(|c| c.to_uppercase().collect()).unwrap_or_default();
    format!("{first}{}.", chars.as_str().trim_end_matches('.'))
}

/// What a decision by link did, in words.
fn decided_words(intent: Verdict, after: &RequestView) -> (&'static str, String) {
    match (intent, &after.standing) {
        (Verdict::Deny, _) => ("Denied", "Denied. The agent is told so.".to_string()),
        (Verdict::Approve, Standing::Settled(_)) => ("Approved", "Approved. The run goes on.".to_string()),
        (Verdict::Approve, Standing::Pending) => {
            ("Approval counted", format!("Your approval is counted: {}. It waits for the others.", after.progress))
        }
    }
}

/// "14:05" of a stored time.
fn clock(at: &str) -> &str {
    at.get(11..16).unwrap_or(at)
}

fn action(secret: &str) -> String {
    format!("{DECIDE_PREFIX}{}", crate::access::escape(secret))
}

fn not_valid() -> Response {
    html::why_not(
        StatusCode::NOT_FOUND,
        "This link is not valid",
        "It may be cut off or mistyped. Open Warden to decide.",
        None,
    )
}

fn failed(error: &str) -> Response {
    tracing::error!(%error, "a decision link's page failed");
    html::why_not(
        StatusCode::INTERNAL_SERVER_ERROR,
        "Something went wrong",
        "Nothing was decided. Try again, or open Warden.",
        None,
    )
}
