//! docs/OUTSIDE_PROTOCOL.md and docs/outside-protocol.schema.json against the code: every example
//! frame in the document is accepted by the schema and read by Warden's parser (client frames) or
//! types (Warden's frames); frames Warden writes pass the schema; frames Warden refuses, the schema
//! refuses too.

use serde_json::{json, Value};
use warden_outside::protocol::{
    parse_client_frame, Ack, DecidedBy, DeciderKind, DecisionFrame, ErrorCode, FrameError, ServerFrame, Verdict,
};

const DOC: &str = include_str!("../../docs/OUTSIDE_PROTOCOL.md");
const SCHEMA: &str = include_str!("../../docs/outside-protocol.schema.json");

fn validator() -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(SCHEMA).expect("the schema is JSON");
    jsonschema::validator_for(&schema).expect("the schema compiles")
}

/// The bodies of the document's ```json blocks.
fn examples() -> Vec<Value> {
    let mut examples = Vec::new();
    let mut block: Option<String> = None;
    for line in DOC.lines() {
        match (&mut block, line.trim()) {
            (None, "```json") => block = Some(String::new()),
            (Some(text), "```") => {
                examples
                    .push(serde_json::from_str(text).unwrap_or_else(|e| panic!("example is not JSON ({e}):\n{text}")));
                block = None;
            }
            (Some(text), _) => {
                text.push_str(line);
                text.push('\n');
            }
            (None, _) => {}
        }
    }
    examples
}

fn assert_valid(validator: &jsonschema::Validator, frame: &Value) {
    let errors: Vec<String> = validator.iter_errors(frame).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "the schema refuses {frame}: {errors:?}");
}

#[test]
fn every_example_in_the_document_passes_the_schema_and_the_parser() {
    let validator = validator();
    let examples = examples();
    assert!(examples.len() >= 10, "the document's examples were found ({})", examples.len());
    let mut types = std::collections::BTreeSet::new();
    for example in &examples {
        assert_valid(&validator, example);
        let kind = example["type"].as_str().expect("a type").to_string();
        match kind.as_str() {
            "ack" | "decision" | "error" => {
                let frame: ServerFrame = serde_json::from_value(example.clone())
                    .unwrap_or_else(|e| panic!("Warden's frame type does not read {example}: {e}"));
                assert_eq!(&serde_json::to_value(&frame).unwrap(), example, "written back the same");
            }
            _ => {
                let frame = parse_client_frame(example.to_string().as_bytes())
                    .unwrap_or_else(|e| panic!("the parser refuses {example}: {e}"));
                assert_eq!(frame.id(), example["id"]);
            }
        }
        types.insert(kind);
    }
    let all = [
        "Security Evaluation Request",
        "ack",
        "code response approval",
        "code_response",
        "decision",
        "error",
        "security_evaluation",
    ];
    assert_eq!(types.into_iter().collect::<Vec<_>>(), all, "every frame type has an example");
}

#[test]
fn frames_warden_writes_pass_the_schema() {
    let validator = validator();
    let frames = [
        ServerFrame::Ack(Ack { id: "a".into(), request_id: "r".into() }),
        ServerFrame::Decision(DecisionFrame {
            id: "a".into(),
            request_id: "r".into(),
            decision: Verdict::Approved,
            reason: None,
            edited_code: Some("ls".into()),
            decided_by: DecidedBy { kind: DeciderKind::Person, detail: "a person in Warden".into() },
        }),
        FrameError::new(None, ErrorCode::TooLarge, "too big").into_frame(),
        FrameError::new(Some("x".into()), ErrorCode::IdReused, "reused").into_frame(),
    ];
    for frame in frames {
        assert_valid(&validator, &serde_json::from_str(&frame.to_json()).unwrap());
    }
}

#[test]
fn frames_the_parser_refuses_the_schema_refuses_too() {
    let validator = validator();
    let refused = [
        json!({"type": "security_evaluation", "id": "a", "code": "ls", "explanation": "x"}),
        json!({"type": "security_evaluation", "id": "a", "code": "ls", "explanation": "x", "risk_level": "extreme"}),
        json!({"type": "code_response", "id": "a", "colour": "red"}),
        json!({"type": "code_response", "id": ""}),
        json!({"type": "code_response", "id": "a\u{7}b"}),
        json!({"type": "code_response", "id": "i".repeat(129)}),
        json!({"type": "launch", "id": "a"}),
        json!({"type": "code_response", "id": "a", "exit_code": 1.5}),
    ];
    for frame in refused {
        assert!(parse_client_frame(frame.to_string().as_bytes()).is_err(), "the parser takes {frame}");
        assert!(!validator.is_valid(&frame), "the schema takes {frame}");
    }
}
