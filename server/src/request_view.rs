//! What a decision link's page and a notification show of a request, the same for a gated call of Warden's own runs and an
//! outside request: what it will do (the command, the diff, the code or the arguments), who asks, the risk,
//! how far the quorum got and until when it waits; and the fingerprint of what is shown, which the page's
//! POST carries back so that a decision applies only to what the person saw.

use sha2::{Digest, Sha256};
use warden_outside::{ClientFrame, OutsideRequest, RequestStatus};
use warden_policies::Tally;
use warden_types::approval::{Approval, ApprovalStatus, Verdict};
use warden_types::id::PersonId;
use warden_types::policy::{who_decided, ApprovalRoute, Vote};
use warden_types::tool::{Preview, Risk};

/// What the call or request will do, as the page shows it.
#[derive(Debug, Clone, PartialEq)]
pub enum WillDo {
    Command(String),
    Diff { path: String, diff: String },
    Code { language: Option<String>, code: String },
    Output { stdout: String, stderr: String, exit_code: Option<i64> },
    Arguments(String),
}

/// Where a request stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Standing {
    Pending,
    /// Decided (or expired, or cancelled): in words, with who decided.
    Settled(String),
}

/// A request as the page shows it.
#[derive(Debug, Clone)]
pub struct RequestView {
    /// "Run a command", "Write a file", "Security evaluation".
    pub title: String,
    /// The tool or the client, as the card names it.
    pub origin: String,
    /// The requester's name and role, or the client.
    pub asked_by: String,
    /// Untrusted text (a model's or a client's).
    pub summary: String,
    pub risk: Risk,
    pub will_do: WillDo,
    pub route: ApprovalRoute,
    /// "1 of 2 approvals".
    pub progress: String,
    /// Who voted so far, in words.
    pub votes: Option<String>,
    /// Who approved so far (with a quorum, a person approves once).
    pub approved_by: Vec<PersonId>,
    pub expires_at: Option<String>,
    pub standing: Standing,
    /// Where the app shows it (sign-in needed).
    pub app_path: String,
    /// SHA-256 (hex) of what is shown: what the decision applies to.
    pub fingerprint: String,
}

fn fingerprint(parts: &[&str]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part.len().to_le_bytes());
        hasher.update(part.as_bytes());
    }
    hex::encode(hasher.finalize())
}

fn asked_by(route: &ApprovalRoute, otherwise: &str) -> String {
    match &route.requester {
        Some(person) => format!("{} ({})", person.name, person.role.label().to_lowercase()),
        None => otherwise.to_string(),
    }
}

impl RequestView {
    /// A gated call of one of Warden's own runs.
    pub fn of_approval(approval: &Approval) -> Self {
        let route = warden_policies::route_of(approval);
        let arguments = serde_json::to_string_pretty(&approval.arguments).unwrap_or_default();
        let (title, will_do) = match &approval.preview {
            Some(Preview::Command { command }) => ("Run a command", WillDo::Command(command.clone())),
            Some(Preview::Diff { path, diff }) => {
                ("Change a file", WillDo::Diff { path: path.clone(), diff: diff.clone() })
            }
            None => ("Call a tool", WillDo::Arguments(arguments.clone())),
        };
        let standing = match approval.status {
            ApprovalStatus::Pending => Standing::Pending,
            status => Standing::Settled(settled_text(status.as_str(), who_decided(&approval.votes, Some(&route)))),
        };
        Self {
            title: title.to_string(),
            origin: approval.tool.clone(),
            asked_by: asked_by(&route, "a run of Warden's"),
            summary: approval.summary.clone(),
            risk: approval.risk,
            will_do,
            progress: Tally::of(route.quorum, &approval.votes).describe(),
            votes: who_decided(&approval.votes, None),
            approved_by: approvers(&approval.votes),
            expires_at: approval.expires_at.clone(),
            standing,
            app_path: format!("/chat/{}", approval.thread_id),
            fingerprint: fingerprint(&[approval.tool.as_str(), arguments.as_str()]),
            route,
        }
    }

    /// An outside executor's or agent's request.
    pub fn of_outside(request: &OutsideRequest) -> Self {
        let route = request.route();
        let shown = request.as_shown();
        let (summary, will_do) = match &shown {
            ClientFrame::SecurityEvaluation(evaluation) => (
                evaluation.explanation.clone(),
                WillDo::Code { language: evaluation.language.clone(), code: evaluation.code.clone() },
            ),
            ClientFrame::CodeResponse(response) => (
                "May this output be passed on?".to_string(),
                WillDo::Output {
                    stdout: response.stdout.clone(),
                    stderr: response.stderr.clone(),
                    exit_code: response.exit_code,
                },
            ),
        };
        let standing = match request.status {
            RequestStatus::Pending => Standing::Pending,
            status => Standing::Settled(settled_text(&status.to_string(), who_decided(&request.votes, Some(&route)))),
        };
        let shown_json = serde_json::to_string(&shown).unwrap_or_default();
        Self {
            title: warden_app::wording::kind_label(request.kind).to_string(),
            origin: request.client_name.clone(),
            asked_by: asked_by(&route, &request.client_name),
            summary,
            risk: warden_outside::record::routing_risk(&request.request),
            will_do,
            progress: Tally::of(route.quorum, &request.votes).describe(),
            votes: who_decided(&request.votes, None),
            approved_by: approvers(&request.votes),
            expires_at: Some(request.expires_at.clone()),
            standing,
            app_path: format!("/approvals/{}", request.id),
            fingerprint: fingerprint(&[request.id.as_str(), shown_json.as_str()]),
            route,
        }
    }
}

fn approvers(votes: &[Vote]) -> Vec<PersonId> {
    votes.iter().filter(|v| v.verdict == Verdict::Approve).map(|v| v.person.id.clone()).collect()
}

/// The request `request` names as the page and the messages show it; `None` when there is no such request.
pub async fn load(
    engine: &warden_engine::Engine,
    hub: &warden_outside::OutsideHub,
    request: &warden_types::notification::RequestRef,
) -> Result<Option<RequestView>, String> {
    use warden_types::notification::RequestRef;
    use warden_types::ErrorKind;
    match request {
        RequestRef::Approval(id) => match engine.approval(id).await {
            Ok(approval) => Ok(Some(RequestView::of_approval(&approval))),
            Err(error) if error.kind() == ErrorKind::NotFound => Ok(None),
            Err(error) => Err(error.to_string()),
        },
        RequestRef::Outside(id) => match hub.request(id).await {
            Ok(request) => Ok(Some(RequestView::of_outside(&request))),
            Err(error) if error.kind() == ErrorKind::NotFound => Ok(None),
            Err(error) => Err(error.to_string()),
        },
    }
}

/// "Approved (approved by Ann, then Bea)", "Timed out".
fn settled_text(status: &str, who: Option<String>) -> String {
    let status = status.replace('_', " ");
    let mut text = status[..1].to_uppercase() + &status[1..];
    if let Some(who) = who {
        text.push_str(&format!(" ({who})"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fingerprint_follows_what_is_shown() {
        assert_eq!(fingerprint(&["a", "b"]), fingerprint(&["a", "b"]));
        assert_ne!(fingerprint(&["a", "b"]), fingerprint(&["ab", ""]), "parts are delimited");
        assert_ne!(fingerprint(&["shell", "ls"]), fingerprint(&["shell", "ls -a"]));
    }

    #[test]
    fn a_settled_request_says_how() {
        assert_eq!(settled_text("timed_out", None), "Timed out");
        assert_eq!(settled_text("approved", Some("approved by Ann".into())), "Approved (approved by Ann)");
    }
}
