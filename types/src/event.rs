//! The events a run streams. On the wire (SSE): `event: <kind>`, `id: <seq>` and the other fields as
//! JSON `data:`; `kind` names are [`EventKind`], derived from the variants so they cannot drift.
//!
//! An event that follows a change to stored state carries the stored record as it is after the
//! change (`message`, `call`, `approval`, `rule`, `check`), so a page patches what it shows in place
//! ([`crate::ThreadDetail::apply`]) instead of fetching the thread again.

use crate::id::{ApprovalId, MessageId, RunId, ThreadId, ToolCallId};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::approval::{Approval, ApprovalStatus, ThreadRule};
use crate::connection::ConnectionCheck;
use crate::run::ToolCallRecord;
use crate::thread::StoredMessage;

/// One event of a run's stream, as JSON `{"type": "<kind>", …its fields}`.
///
/// The browser (wasm32) decodes it from `{"<kind>": {…}}` instead, which [`RunEvent::from_sse`] makes
/// of the SSE event's name and data. Decoding `type` from inside the object, serde first reads the
/// whole object into a tree of its own and then decodes the variant from that tree: a second decoder
/// of every record an event carries, which was 112 KB of the page's wasm (12 KB compressed). The
/// browser decodes events only through `from_sse` and never encodes one.
// Events are built, serialised and dropped one at a time: boxing the approval would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, strum::EnumDiscriminants)]
#[cfg_attr(not(target_arch = "wasm32"), serde(tag = "type"))]
#[serde(rename_all = "snake_case")]
#[strum_discriminants(
    name(EventKind),
    derive(strum::IntoStaticStr, strum::EnumString, strum::VariantArray, Hash),
    strum(serialize_all = "snake_case")
)]
pub enum RunEvent {
    RunStarted {
        run_id: RunId,
        thread_id: ThreadId,
        /// The provider and model the run was started with.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<crate::provider::ModelChoice>,
    },
    Step {
        n: u32,
        max: u32,
        action: String,
    },
    TextDelta {
        text: String,
    },
    /// A message was stored: the person's, or the model's turn (which ends the text streamed for it).
    MessageStored {
        message: StoredMessage,
    },
    ToolCall {
        id: ToolCallId,
        name: String,
        arguments: Value,
        /// The call as recorded.
        call: ToolCallRecord,
    },
    ApprovalRequest {
        approval: Approval,
    },
    ApprovalResolved {
        approval_id: ApprovalId,
        tool_call_id: ToolCallId,
        decision: ApprovalStatus,
        arguments: Value,
        /// The approval as decided (who or what decided is in `approval.decision`).
        approval: Approval,
        /// Its call after the decision.
        call: ToolCallRecord,
        /// The thread rule the decision added ("allow for this thread").
        rule: Option<ThreadRule>,
    },
    ToolProgress {
        tool_call_id: ToolCallId,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
    ToolResult {
        tool_call_id: ToolCallId,
        /// As the model sees it (cut at the limit); the whole output is in `call.output`.
        output: String,
        is_error: bool,
        truncated: bool,
        /// The call as settled.
        call: ToolCallRecord,
    },
    ThreadUpdated {
        thread_id: ThreadId,
        title: String,
    },
    RunFinished {
        message_id: Option<MessageId>,
        stopped: bool,
    },
    /// The run failed; the stream ends. (Not `error`: that name is EventSource's own connection event.)
    RunFailed {
        message: String,
    },
    /// The run needs an MCP server that is offline or disabled and waits for the person (Connect /
    /// Continue anyway); sent again when a Connect fails (with its `error`) and when it is decided.
    ConnectionCheck {
        check: ConnectionCheck,
    },
    /// The server restarted while this run was in flight and carries it on: text streamed since the
    /// last stored message was never stored and is streamed again, so a client drops what it showed of it.
    TurnRestarted {},
}

impl RunEvent {
    pub fn kind(&self) -> EventKind {
        self.into()
    }

    /// After this event the run's stream ends.
    pub fn is_terminal(&self) -> bool {
        self.kind().is_terminal()
    }

    /// Rebuilds an event from its SSE `event:` name and `data:` JSON object.
    pub fn from_sse(kind: &str, data: &str) -> Result<Self, serde_json::Error> {
        #[cfg(target_arch = "wasm32")]
        {
            // Only a known kind goes into the JSON (a snake_case name: nothing to escape); the data's
            // own `type` is a field the variant does not have, which serde skips.
            let known: EventKind =
                kind.parse().map_err(|_| serde::de::Error::custom(format!("unknown event `{kind}`")))?;
            serde_json::from_str(&format!("{{\"{}\":{data}}}", known.as_str()))
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            let mut value: Value = serde_json::from_str(data)?;
            if let Value::Object(map) = &mut value {
                map.insert("type".into(), Value::String(kind.to_string()));
            }
            serde_json::from_value(value)
        }
    }
}

impl EventKind {
    /// The SSE `event:` name.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// After an event of this kind the run's stream ends.
    pub fn is_terminal(self) -> bool {
        matches!(self, EventKind::RunFinished | EventKind::RunFailed)
    }
}

/// Lets a reader of raw SSE frames compare the `event:` name with a kind.
impl PartialEq<&str> for EventKind {
    fn eq(&self, name: &&str) -> bool {
        self.as_str() == *name
    }
}

impl std::fmt::Display for EventKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use strum::VariantArray;

    use super::*;

    #[test]
    fn the_sse_name_of_each_kind_is_the_serde_tag_of_its_event() {
        let step = RunEvent::Step { n: 3, max: 10, action: "Calling shell".into() };
        let json = serde_json::to_value(&step).expect("serialises");
        assert_eq!(json["type"], step.kind().as_str());
        assert_eq!(EventKind::VARIANTS.len(), 14);
        for kind in EventKind::VARIANTS {
            assert_eq!(kind.as_str().parse::<EventKind>().ok(), Some(*kind));
        }
    }

    #[test]
    fn an_event_is_rebuilt_from_its_sse_name_and_data() {
        let e = RunEvent::from_sse("step", r#"{"n":3,"max":10,"action":"Calling shell"}"#);
        assert_eq!(e.ok(), Some(RunEvent::Step { n: 3, max: 10, action: "Calling shell".into() }));
        assert!(RunEvent::from_sse("no_such_event", "{}").is_err());
    }
}
