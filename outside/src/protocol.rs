//! The outside-approval protocol: the JSON frames an executor or agent sends Warden (requests for
//! a person's approval) and the frames Warden answers with (ack, decision, error). Every frame is one
//! JSON object tagged by `type`; every request carries the client's own `id`, echoed in the answer.
//! docs/OUTSIDE_PROTOCOL.md explains it with examples, docs/outside-protocol.schema.json is its schema.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use warden_types::id::OutsideRequestId;

/// Largest frame accepted, in bytes of JSON text. A bigger one is answered with `too_large`.
pub const MAX_FRAME_BYTES: usize = 256 * 1024;
/// Longest request id, in characters.
pub const MAX_ID_CHARS: usize = 128;
/// Longest `language`, in characters.
pub const MAX_LANGUAGE_CHARS: usize = 64;
/// Longest `explanation`, in bytes.
pub const MAX_EXPLANATION_BYTES: usize = 16 * 1024;
/// Largest `metadata` object, in bytes of compact JSON.
pub const MAX_METADATA_BYTES: usize = 16 * 1024;
/// Longest `reason` of a decision, in bytes.
pub const MAX_REASON_BYTES: usize = 4 * 1024;
/// Longest `code`, `stdout`, `stderr` or edited code, in bytes (the frame cap bounds their sum).
pub const MAX_TEXT_BYTES: usize = 200 * 1024;

/// A frame a client sends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientFrame {
    /// May this code run? Sent before running it.
    #[serde(alias = "Security Evaluation Request")]
    SecurityEvaluation(SecurityEvaluation),
    /// May this output be passed on? Sent after running the code.
    #[serde(alias = "code response approval")]
    CodeResponse(CodeResponse),
}

/// "May this code run?"
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SecurityEvaluation {
    /// The client's own id for this request, unique per client.
    pub id: String,
    pub code: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    pub explanation: String,
    pub risk_level: RiskLevel,
    /// Anything else the client wants shown or kept with the request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// Warden's id of its own tool call this request belongs to: an MCP tool Warden called passes it in
    /// the call's `_meta["warden/call_id"]`. While that call runs, the request shows on its card in the
    /// chat instead of as an inbox item of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warden_call_id: Option<String>,
}

/// "May this output be passed on?"
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodeResponse {
    /// The client's own id for this request, unique per client.
    pub id: String,
    /// The id of the client's `security_evaluation` whose code produced this output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub follows: Option<String>,
    #[serde(default)]
    pub stdout: String,
    #[serde(default)]
    pub stderr: String,
    /// The process's exit code; absent when unknown (never counted as success).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

/// How risky the client says its code is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, strum::Display, strum::EnumString,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum RiskLevel {
    Low,
    Medium,
    High,
}

/// The two kinds of request, as stored and filtered on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, strum::Display, strum::EnumString)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum RequestKind {
    SecurityEvaluation,
    CodeResponse,
}

/// A frame Warden sends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerFrame {
    Ack(Ack),
    Decision(DecisionFrame),
    Error(ErrorFrame),
}

/// The request is stored and waits for a decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ack {
    /// The client's id of the request.
    pub id: String,
    /// Warden's id of the request (for the HTTP long-poll and the inbox).
    pub request_id: OutsideRequestId,
}

/// The answer to a request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecisionFrame {
    /// The client's id of the request.
    pub id: String,
    /// Warden's id of the request.
    pub request_id: OutsideRequestId,
    pub decision: Verdict,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The code as the person edited it: run this instead of what was sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edited_code: Option<String>,
    pub decided_by: DecidedBy,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, strum::Display, strum::EnumString)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Verdict {
    Approved,
    Rejected,
}

/// Who or what decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecidedBy {
    pub kind: DeciderKind,
    /// For a policy, the rule that decided; for a timeout, when it fired; for a person, how they decided;
    /// for a call that ended, how it ended.
    pub detail: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, strum::Display, strum::EnumString)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum DeciderKind {
    Person,
    Policy,
    Timeout,
    /// The call of Warden's own runs the request belonged to (`warden_call_id`) ended before anyone
    /// decided (its run was stopped, or it finished or failed): the request is rejected.
    CallEnded,
}

/// A frame Warden could not take. The connection stays open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorFrame {
    /// The id of the frame in error, when it could be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub code: ErrorCode,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, strum::Display)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ErrorCode {
    /// Not JSON, or not a frame of a known type with the right fields.
    Malformed,
    /// Over [`MAX_FRAME_BYTES`].
    TooLarge,
    /// A field over its limit or otherwise unacceptable (an empty id, a control character in it).
    Invalid,
    /// The id was used before by this client for a different request.
    IdReused,
    /// `follows` names no `security_evaluation` of this client.
    UnknownRequest,
    /// The client's token is no longer valid (revoked).
    Unauthorized,
    /// The client has as many requests waiting for a person as it may (`quota::Limits::max_pending`).
    TooManyPending,
    /// The client sent more requests in the last minute than it may (`quota::Limits::per_minute`).
    RateLimited,
    /// Warden failed; the details are in its log.
    Internal,
}

/// Why a frame was refused: becomes an [`ErrorFrame`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct FrameError {
    pub id: Option<String>,
    pub code: ErrorCode,
    pub message: String,
}

impl FrameError {
    pub fn new(id: Option<String>, code: ErrorCode, message: impl Into<String>) -> Self {
        Self { id, code, message: message.into() }
    }

    pub fn into_frame(self) -> ServerFrame {
        ServerFrame::Error(ErrorFrame { id: self.id, code: self.code, message: self.message })
    }
}

impl ClientFrame {
    /// The client's id of this request.
    pub fn id(&self) -> &str {
        match self {
            ClientFrame::SecurityEvaluation(r) => &r.id,
            ClientFrame::CodeResponse(r) => &r.id,
        }
    }

    pub fn kind(&self) -> RequestKind {
        match self {
            ClientFrame::SecurityEvaluation(_) => RequestKind::SecurityEvaluation,
            ClientFrame::CodeResponse(_) => RequestKind::CodeResponse,
        }
    }

    /// The Warden call the request names as its own, for a security evaluation.
    pub fn warden_call_id(&self) -> Option<&str> {
        match self {
            ClientFrame::SecurityEvaluation(r) => r.warden_call_id.as_deref(),
            ClientFrame::CodeResponse(_) => None,
        }
    }

    /// The risk the client gave, for a security evaluation.
    pub fn risk(&self) -> Option<RiskLevel> {
        match self {
            ClientFrame::SecurityEvaluation(r) => Some(r.risk_level),
            ClientFrame::CodeResponse(_) => None,
        }
    }

    /// Checks every field against its limit.
    pub fn validate(&self) -> Result<(), FrameError> {
        let id = self.id();
        let invalid = |message: String| FrameError::new(Some(id.to_string()), ErrorCode::Invalid, message);
        check_id("id", id).map_err(|m| FrameError::new(None, ErrorCode::Invalid, m))?;
        match self {
            ClientFrame::SecurityEvaluation(r) => {
                check_bytes("code", &r.code, MAX_TEXT_BYTES).map_err(invalid)?;
                check_bytes("explanation", &r.explanation, MAX_EXPLANATION_BYTES).map_err(invalid)?;
                if let Some(language) = &r.language {
                    if language.chars().count() > MAX_LANGUAGE_CHARS || language.chars().any(char::is_control) {
                        return Err(invalid(format!(
                            "`language` must be at most {MAX_LANGUAGE_CHARS} characters without control characters"
                        )));
                    }
                }
                check_metadata(r.metadata.as_ref()).map_err(invalid)?;
                if let Some(call_id) = &r.warden_call_id {
                    check_id("warden_call_id", call_id).map_err(invalid)?;
                }
            }
            ClientFrame::CodeResponse(r) => {
                if let Some(follows) = &r.follows {
                    check_id("follows", follows).map_err(invalid)?;
                }
                check_bytes("stdout", &r.stdout, MAX_TEXT_BYTES).map_err(invalid)?;
                check_bytes("stderr", &r.stderr, MAX_TEXT_BYTES).map_err(invalid)?;
                check_metadata(r.metadata.as_ref()).map_err(invalid)?;
            }
        }
        Ok(())
    }
}

/// Reads one frame from a client: size cap (before anything is parsed), JSON, shape, field limits.
/// The error says the frame's `id` whenever the frame was JSON with a usable string `id`, so the
/// client can tell which request failed.
pub fn parse_client_frame(bytes: &[u8]) -> Result<ClientFrame, FrameError> {
    if bytes.len() > MAX_FRAME_BYTES {
        return Err(too_large(id_only(bytes), bytes.len()));
    }
    let value: Value = match serde_json::from_slice(bytes) {
        Ok(value) => value,
        Err(e) => return Err(FrameError::new(None, ErrorCode::Malformed, format!("not JSON: {e}"))),
    };
    let id = value.get("id").and_then(Value::as_str).filter(|id| check_id("id", id).is_ok()).map(str::to_string);
    if !value.is_object() {
        return Err(FrameError::new(id, ErrorCode::Malformed, "a frame is a JSON object"));
    }
    let frame: ClientFrame =
        serde_json::from_value(value).map_err(|e| FrameError::new(id.clone(), ErrorCode::Malformed, e.to_string()))?;
    frame.validate()?;
    Ok(frame)
}

/// The usable `id` of an oversized frame, read without building the rest of it (every other value
/// is skipped, not stored).
fn id_only(bytes: &[u8]) -> Option<String> {
    #[derive(Deserialize)]
    struct IdOnly<'a> {
        #[serde(borrow, default)]
        id: Option<std::borrow::Cow<'a, str>>,
    }
    let id = serde_json::from_slice::<IdOnly<'_>>(bytes).ok()?.id?;
    check_id("id", &id).is_ok().then(|| id.into_owned())
}

fn too_large(id: Option<String>, len: usize) -> FrameError {
    FrameError::new(id, ErrorCode::TooLarge, format!("the frame is {len} bytes; the limit is {MAX_FRAME_BYTES}"))
}

/// An id: 1 to [`MAX_ID_CHARS`] characters, none of them a control character.
pub fn check_id(field: &str, id: &str) -> Result<(), String> {
    if id.is_empty() || id.chars().count() > MAX_ID_CHARS || id.chars().any(char::is_control) {
        return Err(format!("`{field}` must be 1 to {MAX_ID_CHARS} characters without control characters"));
    }
    Ok(())
}

pub fn check_bytes(field: &str, text: &str, max: usize) -> Result<(), String> {
    if text.len() > max {
        return Err(format!("`{field}` is {} bytes; the limit is {max}", text.len()));
    }
    Ok(())
}

fn check_metadata(metadata: Option<&Map<String, Value>>) -> Result<(), String> {
    let Some(metadata) = metadata else { return Ok(()) };
    let len = serde_json::to_vec(metadata).map(|v| v.len()).unwrap_or(usize::MAX);
    if len > MAX_METADATA_BYTES {
        return Err(format!("`metadata` is {len} bytes of JSON; the limit is {MAX_METADATA_BYTES}"));
    }
    Ok(())
}

impl ServerFrame {
    /// The frame as the JSON text sent on the wire.
    pub fn to_json(&self) -> String {
        // Serializing these plain structs cannot fail (string keys, no non-finite floats).
        serde_json::to_string(self).unwrap_or_else(|_| {
            r#"{"type":"error","code":"internal","message":"could not encode the answer"}"#.to_string()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(value: Value) -> Result<ClientFrame, FrameError> {
        parse_client_frame(value.to_string().as_bytes())
    }

    #[test]
    fn the_seed_type_names_are_read_as_the_two_kinds() {
        let frame = parse(json!({"type": "Security Evaluation Request", "id": "a", "code": "ls",
            "explanation": "lists", "risk_level": "low"}))
        .unwrap();
        assert_eq!(frame.kind(), RequestKind::SecurityEvaluation);
        let frame = parse(json!({"type": "code response approval", "id": "b", "stdout": "x"})).unwrap();
        assert_eq!(frame.kind(), RequestKind::CodeResponse);
    }

    #[test]
    fn a_frame_that_is_not_json_is_malformed_without_an_id() {
        let err = parse_client_frame(b"{not json").unwrap_err();
        assert_eq!((err.code, err.id), (ErrorCode::Malformed, None));
    }

    #[test]
    fn an_unknown_field_or_type_is_malformed_and_names_the_id() {
        let err = parse(json!({"type": "code_response", "id": "c", "stdout": "", "color": "red"})).unwrap_err();
        assert_eq!((err.code, err.id.as_deref()), (ErrorCode::Malformed, Some("c")));
        assert!(err.message.contains("color"), "{}", err.message);
        let err = parse(json!({"type": "launch_missiles", "id": "d"})).unwrap_err();
        assert_eq!((err.code, err.id.as_deref()), (ErrorCode::Malformed, Some("d")));
    }

    #[test]
    fn a_missing_risk_level_or_a_wrong_one_is_malformed() {
        let base = json!({"type": "security_evaluation", "id": "e", "code": "ls", "explanation": "x"});
        assert_eq!(parse(base.clone()).unwrap_err().code, ErrorCode::Malformed);
        let mut wrong = base;
        wrong["risk_level"] = json!("extreme");
        assert_eq!(parse(wrong).unwrap_err().code, ErrorCode::Malformed);
    }

    #[test]
    fn an_oversized_frame_is_too_large_and_still_names_its_id() {
        let code = "x".repeat(MAX_FRAME_BYTES);
        let err = parse(json!({"type": "security_evaluation", "id": "big", "code": code, "explanation": "",
            "risk_level": "low"}))
        .unwrap_err();
        assert_eq!((err.code, err.id.as_deref()), (ErrorCode::TooLarge, Some("big")));
        let mut garbage = vec![b'['; MAX_FRAME_BYTES + 1];
        garbage[0] = b'x';
        assert_eq!(parse_client_frame(&garbage).unwrap_err().code, ErrorCode::TooLarge);
    }

    #[test]
    fn an_oversized_frame_is_refused_by_its_size_whatever_it_holds() {
        // Valid JSON of another shape, an unusable id, an id that is no string: all `too_large`.
        let padding = "x".repeat(MAX_FRAME_BYTES);
        for (body, id) in [
            (json!([padding]), None),
            (json!({"id": "a\nb", "pad": padding}), None),
            (json!({"id": 7, "pad": padding}), None),
            (json!({"pad": {"deep": [padding]}, "id": "late"}), Some("late")),
        ] {
            let err = parse_client_frame(body.to_string().as_bytes()).unwrap_err();
            assert_eq!((err.code, err.id.as_deref()), (ErrorCode::TooLarge, id), "{}", err.message);
        }
        // At the cap it is read (and refused for its field), one byte more and it is not.
        let frame = |len: usize| {
            let shell = r#"{"type":"code_response","id":"r","stdout":""}"#;
            format!(r#"{{"type":"code_response","id":"r","stdout":"{}"}}"#, "x".repeat(len - shell.len()))
        };
        assert_eq!(frame(MAX_FRAME_BYTES).len(), MAX_FRAME_BYTES);
        assert_eq!(parse_client_frame(frame(MAX_FRAME_BYTES).as_bytes()).unwrap_err().code, ErrorCode::Invalid);
        let over = parse_client_frame(frame(MAX_FRAME_BYTES + 1).as_bytes()).unwrap_err();
        assert_eq!((over.code, over.id.as_deref()), (ErrorCode::TooLarge, Some("r")));
    }

    #[test]
    fn field_limits_are_enforced() {
        let long_id = "i".repeat(MAX_ID_CHARS + 1);
        let err = parse(json!({"type": "code_response", "id": long_id})).unwrap_err();
        assert_eq!((err.code, err.id), (ErrorCode::Invalid, None));
        let err = parse(json!({"type": "code_response", "id": ""})).unwrap_err();
        assert_eq!(err.code, ErrorCode::Invalid);
        let err = parse(json!({"type": "code_response", "id": "a\nb"})).unwrap_err();
        assert_eq!(err.code, ErrorCode::Invalid);
        let explanation = "e".repeat(MAX_EXPLANATION_BYTES + 1);
        let err = parse(json!({"type": "security_evaluation", "id": "f", "code": "", "explanation": explanation,
            "risk_level": "low"}))
        .unwrap_err();
        assert_eq!((err.code, err.id.as_deref()), (ErrorCode::Invalid, Some("f")));
        let metadata = json!({"k": "m".repeat(MAX_METADATA_BYTES)});
        let err = parse(json!({"type": "code_response", "id": "g", "metadata": metadata})).unwrap_err();
        assert_eq!(err.code, ErrorCode::Invalid);
    }

    #[test]
    fn a_warden_call_id_is_read_and_checked_like_an_id() {
        let frame = parse(json!({"type": "security_evaluation", "id": "w", "code": "ls", "explanation": "x",
            "risk_level": "low", "warden_call_id": "call-7"}))
        .unwrap();
        assert_eq!(frame.warden_call_id(), Some("call-7"));
        let err = parse(json!({"type": "security_evaluation", "id": "w", "code": "ls", "explanation": "x",
            "risk_level": "low", "warden_call_id": ""}))
        .unwrap_err();
        assert_eq!((err.code, err.id.as_deref()), (ErrorCode::Invalid, Some("w")));
        // Only a security evaluation belongs to a call.
        let err = parse(json!({"type": "code_response", "id": "o", "warden_call_id": "call-7"})).unwrap_err();
        assert_eq!(err.code, ErrorCode::Malformed);
    }

    #[test]
    fn a_frame_round_trips_with_the_canonical_type_name() {
        let frame = parse(json!({"type": "Security Evaluation Request", "id": "h", "code": "ls",
            "explanation": "x", "risk_level": "high", "metadata": {"cwd": "/tmp"}}))
        .unwrap();
        let text = serde_json::to_value(&frame).unwrap();
        assert_eq!(text["type"], "security_evaluation");
        assert_eq!(parse(text).unwrap(), frame);
    }
}
