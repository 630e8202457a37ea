//! Decisions on approvals, sent from the browser to the public API (`POST /api/approvals/{id}`),
//! the same route other clients use. A 409 means another tab or client decided first.

use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Clone, Serialize)]
pub struct DecisionBody {
    /// `approve` or `deny`.
    pub decision: &'static str,
    /// `once` or `thread`.
    pub scope: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// With scope `thread` on `shell`: allow every command starting with this.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    /// This one approved command may use the network (shell only; the sandbox keeps it off otherwise).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub network: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum DecideOutcome {
    Decided,
    AlreadyDecided,
    /// The server refused (e.g. edited arguments that do not fit the tool); the text says why.
    Refused(String),
}

#[cfg(feature = "hydrate")]
pub async fn decide(approval_id: &str, body: &DecisionBody) -> DecideOutcome {
    use gloo_net::http::Request;

    let url = format!("/api/approvals/{approval_id}");
    let request = match Request::post(&url).json(body) {
        Ok(request) => request,
        Err(error) => return DecideOutcome::Refused(error.to_string()),
    };
    let response = match request.send().await {
        Ok(response) => response,
        Err(error) => return DecideOutcome::Refused(format!("Could not reach the server: {error}")),
    };
    match response.status() {
        200..=299 => DecideOutcome::Decided,
        409 => DecideOutcome::AlreadyDecided,
        status => {
            let text = response.text().await.unwrap_or_default();
            DecideOutcome::Refused(error_message(status, &text))
        }
    }
}

/// Nothing decides during server rendering; event handlers only run in the browser.
#[cfg(not(feature = "hydrate"))]
pub async fn decide(_approval_id: &str, _body: &DecisionBody) -> DecideOutcome {
    DecideOutcome::Refused("Decisions are sent from the browser.".into())
}

/// The human part of an error response: its JSON `error`/`message` field, or the text itself.
pub fn error_message(status: u16, body: &str) -> String {
    let from_json = serde_json::from_str::<Value>(body).ok().and_then(|v| {
        ["error", "message", "detail"]
            .iter()
            .find_map(|k| v.get(*k).and_then(|f| f.as_str().map(str::to_string).or_else(|| f.get("message")?.as_str().map(str::to_string))))
    });
    match from_json {
        Some(message) => message,
        None if !body.trim().is_empty() => body.trim().to_string(),
        None => format!("The server answered {status}."),
    }
}

#[cfg(test)]
mod tests {
    use super::error_message;

    #[test]
    fn error_text_comes_from_the_json_body() {
        assert_eq!(error_message(422, r#"{"error":"path: missing"}"#), "path: missing");
        assert_eq!(error_message(422, r#"{"error":{"code":"x","message":"bad"}}"#), "bad");
        assert_eq!(error_message(500, ""), "The server answered 500.");
    }
}
