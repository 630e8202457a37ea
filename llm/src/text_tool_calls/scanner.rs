//! Reads tool calls out of a model's streamed text: JSON objects naming a tool, in a ```json fence
//! or bare in prose. Text that cannot be part of a call goes out at once; text that may be (from a
//! fence or a `{`) is held until that is decided, so a call's JSON is never shown as chat text.

use std::collections::HashSet;

use serde::de::IgnoredAny;
use serde_json::Value;

/// What the scanner made of the text: prose to show, or a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Piece {
    Text(String),
    /// `arguments` is a JSON object, or the raw text the model wrote when it is not one.
    Call {
        name: String,
        arguments: String,
    },
}

/// A candidate this short is checked with serde_json on every delta, so prose that merely starts
/// like `{"` goes out as soon as it stops being JSON; a longer one waits for its closing brace.
const EARLY_CHECK_BYTES: usize = 4 * 1024;
/// A fence's info string ("json") longer than this means the line does not open a fence.
const MAX_FENCE_INFO: usize = 32;
/// Keys that name the tool, in order of preference; `name` counts only next to arguments.
const NAME_KEYS: [&str; 3] = ["tool", "ability", "name"];
const ARGUMENT_KEYS: [&str; 4] = ["arguments", "parameters", "args", "input"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Ordinary text.
    Prose,
    /// After an opening fence (three or more backticks), reading its info string.
    FenceInfo,
    /// Inside a fence that may hold calls, before its first object.
    FenceStart,
    /// Inside a JSON object that may be a call, from `start` (a `{`) in `held`. Only braces outside
    /// strings are counted; serde_json reads the object once it is closed.
    Candidate { fenced: bool, start: usize, depth: usize, in_string: bool, escaped: bool, named: bool },
    /// Inside a fence of calls, after a call: more calls or the closing fence.
    AfterCall,
    /// Inside a fence of something else (code): text until the closing fence.
    Foreign,
}

/// Reads calls out of streamed text. Text that cannot be part of a call goes out at once; text that
/// may be (from a fence or a `{`) is held until that is decided.
pub(super) struct CallScanner {
    tools: HashSet<String>,
    /// Text not yet given out, from the first undecided byte.
    held: String,
    /// How far into `held` the current mode has read; only ASCII bytes are acted on, so every
    /// position cut at is a char boundary.
    pos: usize,
    mode: Mode,
    /// After a call fence closed: the line end after it goes with it.
    eat_newline: bool,
    max_held: usize,
    out: Vec<Piece>,
}

impl CallScanner {
    pub(super) fn new(tools: HashSet<String>, max_held: usize) -> Self {
        Self { tools, held: String::new(), pos: 0, mode: Mode::Prose, eat_newline: false, max_held, out: Vec::new() }
    }

    pub(super) fn push(&mut self, text: &str) -> Vec<Piece> {
        self.held.push_str(text);
        while self.step() {}
        if self.held.len() > self.max_held {
            self.give_up();
        }
        std::mem::take(&mut self.out)
    }

    /// The answer ended: decide what is still held.
    pub(super) fn finish(&mut self) -> Vec<Piece> {
        match self.mode {
            Mode::Candidate { fenced, start, .. } => match self.malformed_call(&self.held[start..], false) {
                Some(call) => {
                    if !fenced {
                        self.emit(start);
                    }
                    self.out.push(call);
                }
                None => self.emit(self.held.len()),
            },
            // Blanks or half a closing fence after a call.
            Mode::AfterCall => {}
            _ => self.emit(self.held.len()),
        }
        self.held.clear();
        self.pos = 0;
        self.mode = Mode::Prose;
        self.eat_newline = false;
        std::mem::take(&mut self.out)
    }

    /// Too much held: all of it goes out as text.
    fn give_up(&mut self) {
        self.mode = match self.mode {
            Mode::Prose | Mode::FenceInfo | Mode::Candidate { fenced: false, .. } => Mode::Prose,
            _ => Mode::Foreign,
        };
        self.emit(self.held.len());
        self.pos = 0;
    }

    /// Gives out `held[..upto]` as text.
    fn emit(&mut self, upto: usize) {
        if upto == 0 {
            return;
        }
        let text: String = self.held.drain(..upto).collect();
        match self.out.last_mut() {
            Some(Piece::Text(last)) => last.push_str(&text),
            _ => self.out.push(Piece::Text(text)),
        }
    }

    fn backticks_at(&self, at: usize) -> usize {
        self.held.as_bytes()[at..].iter().take_while(|b| **b == b'`').count()
    }

    /// One move; false when more text is needed.
    fn step(&mut self) -> bool {
        match self.mode {
            Mode::Prose => self.prose(),
            Mode::FenceInfo => self.fence_info(),
            Mode::FenceStart => self.fence_start(),
            Mode::Candidate { .. } => self.candidate(),
            Mode::AfterCall => self.after_call(),
            Mode::Foreign => self.foreign(),
        }
    }

    fn prose(&mut self) -> bool {
        let bytes = self.held.as_bytes();
        if self.eat_newline {
            match bytes {
                [] | [b'\r'] => return false,
                [b'\n', ..] => drop(self.held.drain(..1)),
                [b'\r', b'\n', ..] => drop(self.held.drain(..2)),
                _ => {}
            }
            self.eat_newline = false;
            return true;
        }
        let mut i = self.pos;
        while i < bytes.len() {
            match bytes[i] {
                b'{' => {
                    self.emit(i);
                    self.mode = Mode::Candidate {
                        fenced: false,
                        start: 0,
                        depth: 1,
                        in_string: false,
                        escaped: false,
                        named: false,
                    };
                    self.pos = 1;
                    return true;
                }
                b'`' => {
                    let run = self.backticks_at(i);
                    if i + run == bytes.len() {
                        // How long the run is decides what it is.
                        self.emit(i);
                        self.pos = 0;
                        return false;
                    }
                    if run >= 3 {
                        self.emit(i);
                        self.mode = Mode::FenceInfo;
                        self.pos = self.backticks_at(0);
                        return true;
                    }
                    i += run;
                }
                _ => i += 1,
            }
        }
        self.emit(bytes.len());
        self.pos = 0;
        false
    }

    fn fence_info(&mut self) -> bool {
        let run = self.backticks_at(0);
        let bytes = self.held.as_bytes();
        let mut i = self.pos;
        while i < bytes.len() {
            match bytes[i] {
                // The info line ends at its line end, or at a `{` (a call written on the fence's line).
                b'\n' | b'{' => {
                    let info = self.held[run..i].trim();
                    if may_hold_calls(info) {
                        self.mode = Mode::FenceStart;
                        self.pos = if bytes[i] == b'\n' { i + 1 } else { i };
                    } else {
                        self.emit(i);
                        self.mode = Mode::Foreign;
                        self.pos = 0;
                    }
                    return true;
                }
                // Inline code like ```a```: not a fence.
                b'`' => {
                    let closing = self.backticks_at(i);
                    if i + closing == bytes.len() {
                        self.pos = i;
                        return false;
                    }
                    self.emit(i + closing);
                    self.mode = Mode::Prose;
                    self.pos = 0;
                    return true;
                }
                _ => i += 1,
            }
            if i - run > MAX_FENCE_INFO {
                self.emit(i);
                self.mode = Mode::Prose;
                self.pos = 0;
                return true;
            }
        }
        self.pos = i;
        false
    }

    fn fence_start(&mut self) -> bool {
        let bytes = self.held.as_bytes();
        let mut i = self.pos;
        // A list of calls (`[{..}, {..}]`) is read as its calls.
        while i < bytes.len() && (bytes[i].is_ascii_whitespace() || bytes[i] == b'[') {
            i += 1;
        }
        if i == bytes.len() {
            self.pos = i;
            return false;
        }
        if bytes[i] == b'{' {
            self.mode =
                Mode::Candidate { fenced: true, start: i, depth: 1, in_string: false, escaped: false, named: false };
            self.pos = i + 1;
        } else {
            self.emit(i);
            self.mode = Mode::Foreign;
            self.pos = 0;
        }
        true
    }

    fn candidate(&mut self) -> bool {
        let Mode::Candidate { fenced, start, mut depth, mut in_string, mut escaped, mut named } = self.mode else {
            return false;
        };
        let bytes = self.held.as_bytes();
        let mut i = self.pos;
        // Where the candidate ends, and whether it closed (or a fence cut it off).
        let mut end = None;
        while i < bytes.len() {
            let b = bytes[i];
            if in_string {
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == b'"' {
                    in_string = false;
                }
            } else {
                match b {
                    b'"' => in_string = true,
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = Some((i + 1, true));
                            break;
                        }
                    }
                    b'`' if fenced => {
                        end = Some((i, false));
                        break;
                    }
                    _ => {}
                }
            }
            i += 1;
        }
        if let Some((stop, closed)) = end {
            let candidate = &self.held[start..stop];
            let call = if closed { self.closed_call(candidate) } else { self.malformed_call(candidate, false) };
            match call {
                Some(call) => {
                    self.held.drain(..stop);
                    self.out.push(call);
                    self.mode = if fenced { Mode::AfterCall } else { Mode::Prose };
                }
                None => {
                    self.emit(stop);
                    self.mode = if fenced { Mode::Foreign } else { Mode::Prose };
                }
            }
            self.pos = 0;
            return true;
        }
        self.pos = i;
        if !named && self.held.len() - start <= EARLY_CHECK_BYTES {
            if let Err(e) = serde_json::from_str::<IgnoredAny>(&self.held[start..]) {
                if !e.is_eof() {
                    if self.named_tool(&self.held[start..]).is_none() {
                        // Not JSON, so not a call: the brace is text, and what follows it is read again.
                        self.emit(start + 1);
                        self.mode = if fenced { Mode::Foreign } else { Mode::Prose };
                        self.pos = 0;
                        return true;
                    }
                    // Broken, but it names a tool: held to its end, then handed on for the model to hear why.
                    named = true;
                }
            }
        }
        self.mode = Mode::Candidate { fenced, start, depth, in_string, escaped, named };
        false
    }

    fn after_call(&mut self) -> bool {
        let bytes = self.held.as_bytes();
        let mut i = self.pos;
        while i < bytes.len() && (bytes[i].is_ascii_whitespace() || matches!(bytes[i], b',' | b']')) {
            i += 1;
        }
        if i == bytes.len() {
            self.pos = i;
            return false;
        }
        match bytes[i] {
            b'{' => {
                self.mode = Mode::Candidate {
                    fenced: true,
                    start: i,
                    depth: 1,
                    in_string: false,
                    escaped: false,
                    named: false,
                };
                self.pos = i + 1;
                return true;
            }
            b'`' => {
                let run = self.backticks_at(i);
                if i + run == bytes.len() {
                    self.pos = i;
                    return false;
                }
                if run >= 3 {
                    self.held.drain(..i + run);
                    self.mode = Mode::Prose;
                    self.pos = 0;
                    self.eat_newline = true;
                    return true;
                }
            }
            _ => {}
        }
        // Something else inside the fence after a call: shown in a fence of its own, as it is code-ish.
        self.held.drain(..i);
        self.out.push(Piece::Text("```\n".to_string()));
        self.mode = Mode::Foreign;
        self.pos = 0;
        true
    }

    fn foreign(&mut self) -> bool {
        let bytes = self.held.as_bytes();
        let mut i = self.pos;
        while i < bytes.len() {
            if bytes[i] != b'`' {
                i += 1;
                continue;
            }
            let run = self.backticks_at(i);
            if i + run == bytes.len() {
                self.emit(i);
                self.pos = 0;
                return false;
            }
            if run >= 3 {
                self.emit(i + run);
                self.mode = Mode::Prose;
                self.pos = 0;
                return true;
            }
            i += run;
        }
        self.emit(bytes.len());
        self.pos = 0;
        false
    }

    /// A closed object: a call if it is JSON naming one of the tools, or broken JSON that names one.
    fn closed_call(&self, candidate: &str) -> Option<Piece> {
        match serde_json::from_str::<Value>(candidate) {
            Ok(Value::Object(object)) => self.call_in(&object),
            Ok(_) => None,
            Err(_) => self.malformed_call(candidate, true),
        }
    }

    fn call_in(&self, object: &serde_json::Map<String, Value>) -> Option<Piece> {
        let (key, name) = NAME_KEYS.iter().find_map(|k| object.get(*k).and_then(Value::as_str).map(|n| (*k, n)))?;
        if !self.tools.contains(name) {
            return None;
        }
        let arguments = ARGUMENT_KEYS.iter().find_map(|k| object.get(*k));
        // `{"name": .., ..}` is also just data about something called that; it takes arguments to be a call.
        if key == "name" && arguments.is_none() {
            return None;
        }
        let arguments = match arguments {
            None | Some(Value::Null) => "{}".to_string(),
            Some(Value::String(inner)) => match serde_json::from_str::<Value>(inner) {
                // Arguments as a JSON string, the way the OpenAI API carries them.
                Ok(object @ Value::Object(_)) => object.to_string(),
                // Anything else is not an object: the tool's schema turns it down and the model is told.
                _ => Value::String(inner.clone()).to_string(),
            },
            Some(other) => other.to_string(),
        };
        Some(Piece::Call { name: name.to_string(), arguments })
    }

    /// Broken or unfinished JSON naming one of the tools: a call with the arguments as written, so
    /// the agent loop tells the model they could not be read. When no arguments can be made out,
    /// the whole text is handed on (it is not valid JSON, so it cannot run as something else).
    /// A call whose object never closed (the answer was cut) is never run, even when its arguments
    /// happen to be whole: the note after them makes them unreadable, and the model reads why.
    fn malformed_call(&self, candidate: &str, closed: bool) -> Option<Piece> {
        let name = self.named_tool(candidate)?;
        let mut arguments = raw_arguments(candidate, closed).filter(|a| !a.is_empty()).unwrap_or(candidate).to_string();
        if !closed {
            arguments.push_str(UNCLOSED_NOTE);
        }
        Some(Piece::Call { name, arguments })
    }

    /// The tool a possibly broken object names, if it is one of ours. Only the first name key that
    /// is present counts.
    fn named_tool(&self, candidate: &str) -> Option<String> {
        let name = NAME_KEYS.iter().find_map(|key| value_after_key(candidate, key))?;
        let name: String = serde_json::Deserializer::from_str(name).into_iter::<String>().next()?.ok()?;
        self.tools.contains(&name).then_some(name)
    }
}

/// Follows the arguments of a call whose JSON object the answer never closed.
const UNCLOSED_NOTE: &str =
    " <- this call's JSON object was never closed (the answer or its block ended first); the call was not run";

/// Whether a fence with this info string may hold calls.
fn may_hold_calls(info: &str) -> bool {
    let info = info.to_ascii_lowercase();
    info.is_empty() || info.starts_with("json") || info.starts_with("tool")
}

/// The text after `"key":` in `text` (first occurrence), from its first non-blank byte.
fn value_after_key<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let quoted = format!("\"{key}\"");
    let at = text.find(&quoted)? + quoted.len();
    let rest = text[at..].trim_start().strip_prefix(':')?;
    Some(rest.trim_start())
}

/// The arguments as written in a broken object: from the arguments key to the end, without the
/// object's closing brace if it was `closed`.
fn raw_arguments(candidate: &str, closed: bool) -> Option<&str> {
    let rest = ARGUMENT_KEYS.iter().find_map(|key| value_after_key(candidate, key))?.trim_end();
    let rest = if closed { rest.strip_suffix('}').unwrap_or(rest).trim_end() } else { rest };
    Some(rest.strip_suffix(',').unwrap_or(rest).trim_end())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::MAX_HELD_BYTES;
    use super::*;

    fn tools() -> HashSet<String> {
        ["read_file", "run_shell"].into_iter().map(String::from).collect()
    }

    /// Adjacent texts joined, empty ones dropped: how the pieces are cut is not what is tested here.
    fn merged(pieces: Vec<Piece>) -> Vec<Piece> {
        let mut out: Vec<Piece> = Vec::new();
        for piece in pieces {
            match (out.last_mut(), piece) {
                (_, Piece::Text(t)) if t.is_empty() => {}
                (Some(Piece::Text(last)), Piece::Text(t)) => last.push_str(&t),
                (_, piece) => out.push(piece),
            }
        }
        out
    }

    fn scan_parts<S: AsRef<str>>(parts: &[S]) -> Vec<Piece> {
        let mut scanner = CallScanner::new(tools(), MAX_HELD_BYTES);
        let mut out = Vec::new();
        for part in parts {
            out.extend(scanner.push(part.as_ref()));
        }
        out.extend(scanner.finish());
        merged(out)
    }

    /// Scans `text` whole, split in two at every char boundary, and one char per delta; all must agree.
    fn scan(text: &str) -> Vec<Piece> {
        let whole = scan_parts(&[text]);
        for (i, _) in text.char_indices().skip(1) {
            assert_eq!(scan_parts(&[&text[..i], &text[i..]]), whole, "split at byte {i} of {text:?}");
        }
        let chars: Vec<String> = text.chars().map(String::from).collect();
        assert_eq!(scan_parts(&chars), whole, "one char per delta: {text:?}");
        whole
    }

    fn text(t: &str) -> Piece {
        Piece::Text(t.to_string())
    }

    fn call(name: &str, arguments: Value) -> Piece {
        Piece::Call { name: name.to_string(), arguments: arguments.to_string() }
    }

    fn raw_call(name: &str, arguments: &str) -> Piece {
        Piece::Call { name: name.to_string(), arguments: arguments.to_string() }
    }

    #[test]
    fn a_fenced_call_between_prose_is_a_call_and_the_fence_is_not_shown() {
        let answer =
            "Let me look.\n\n```json\n{\"tool\": \"read_file\", \"arguments\": {\"path\": \"a.txt\"}}\n```\nDone.";
        assert_eq!(
            scan(answer),
            vec![text("Let me look.\n\n"), call("read_file", json!({"path": "a.txt"})), text("Done.")]
        );
    }

    #[test]
    fn a_plain_fence_and_one_with_the_call_on_its_line_hold_calls_too() {
        let answer = "```\n{\"tool\": \"run_shell\", \"arguments\": {\"command\": \"ls\"}}\n```";
        assert_eq!(scan(answer), vec![call("run_shell", json!({"command": "ls"}))]);
        let answer = "````JSON {\"tool\": \"run_shell\", \"arguments\": {\"command\": \"ls\"}} ````\r\nok";
        assert_eq!(scan(answer), vec![call("run_shell", json!({"command": "ls"})), text("ok")]);
    }

    #[test]
    fn a_bare_object_in_prose_is_a_call() {
        let answer = "I will call {\"tool\": \"read_file\", \"arguments\": {\"path\": \"b\"}} now.";
        assert_eq!(scan(answer), vec![text("I will call "), call("read_file", json!({"path": "b"})), text(" now.")]);
    }

    #[test]
    fn several_calls_in_one_answer_come_in_order() {
        let answer = "First:\n```json\n{\"tool\": \"read_file\", \"arguments\": {\"path\": \"1\"}}\n```\n\
                      Then two at once:\n```json\n{\"tool\": \"read_file\", \"arguments\": {\"path\": \"2\"}}\n\
                      {\"tool\": \"run_shell\", \"arguments\": {\"command\": \"pwd\"}}\n```\n\
                      ```json\n[{\"tool\": \"read_file\", \"arguments\": {\"path\": \"3\"}},\n \
                      {\"tool\": \"read_file\", \"arguments\": {\"path\": \"4\"}}]\n```\n\
                      And {\"tool\": \"read_file\", \"arguments\": {\"path\": \"5\"}}";
        assert_eq!(
            scan(answer),
            vec![
                text("First:\n"),
                call("read_file", json!({"path": "1"})),
                text("Then two at once:\n"),
                call("read_file", json!({"path": "2"})),
                call("run_shell", json!({"command": "pwd"})),
                call("read_file", json!({"path": "3"})),
                call("read_file", json!({"path": "4"})),
                text("And "),
                call("read_file", json!({"path": "5"})),
            ]
        );
    }

    #[test]
    fn braces_and_quotes_inside_strings_and_nested_objects_do_not_end_a_call_early() {
        let arguments = json!({"command": "echo '}' {x} \"{\" \\\\ `", "env": {"A": {"B": [1, {"C": "}}"}]}}});
        let answer = format!("Run: ```json\n{}\n```", json!({"tool": "run_shell", "arguments": arguments}));
        assert_eq!(scan(&answer), vec![text("Run: "), call("run_shell", arguments)]);
    }

    #[test]
    fn the_seeds_ability_and_parameters_form_and_other_aliases_are_calls() {
        let answer = "```json\n{\"ability\": \"run_shell\", \"parameters\": {\"command\": \"ls\"}}\n```";
        assert_eq!(scan(answer), vec![call("run_shell", json!({"command": "ls"}))]);
        assert_eq!(
            scan("{\"name\": \"read_file\", \"args\": {\"path\": \"x\"}}"),
            vec![call("read_file", json!({"path": "x"}))]
        );
        assert_eq!(
            scan("{\"tool\": \"read_file\", \"input\": {\"path\": \"y\"}}"),
            vec![call("read_file", json!({"path": "y"}))]
        );
        assert_eq!(scan("{\"tool\": \"run_shell\"}"), vec![call("run_shell", json!({}))]);
    }

    #[test]
    fn json_that_names_no_tool_of_ours_stays_text() {
        for answer in [
            "```json\n{\"tool\": \"delete_everything\", \"arguments\": {}}\n```\nok",
            "The data: ```json\n{\"city\": \"Oslo\", \"temp\": {\"c\": 3}}\n```",
            "{\"name\": \"read_file\", \"description\": \"Reads a file\"}",
            "An empty one {} and a list [1, 2] and {\"a\": 1}.",
        ] {
            assert_eq!(scan(answer), vec![text(answer)], "{answer}");
        }
    }

    #[test]
    fn code_in_a_fence_of_another_language_is_never_a_call() {
        let answer = "```python\nx = {\"tool\": \"read_file\", \"arguments\": {}}\n```\nand ```a``` inline, `{`, \
                      ```a line far too long to be a fence's info string {\"tool\": \"x\"}\n```\n````";
        assert_eq!(scan(answer), vec![text(answer)]);
    }

    #[test]
    fn text_naming_no_tool_comes_out_exactly_as_it_went_in() {
        // Random answers built from the pieces that steer the scanner; none can name a tool of ours.
        let pieces = [
            "{",
            "}",
            "\"",
            "`",
            "``",
            "```",
            "json",
            "\n",
            "\\",
            "\"tool\"",
            "\"arguments\"",
            ":",
            " ",
            "ä",
            "[",
            "]",
            ",",
            "\"x\"",
            "\r\n",
            "null",
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |n: usize| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) as usize % n
        };
        for _ in 0..300 {
            let answer: String = (0..next(40) + 1).map(|_| pieces[next(pieces.len())]).collect();
            let whole = scan_parts(&[answer.as_str()]);
            assert_eq!(whole, vec![text(&answer)], "{answer:?}");
            let cut = answer.char_indices().map(|(i, _)| i).nth(next(answer.chars().count())).unwrap_or(0);
            assert_eq!(scan_parts(&[&answer[..cut], &answer[cut..]]), whole, "{answer:?} cut at {cut}");
        }
    }

    #[test]
    fn prose_with_braces_goes_out_as_soon_as_it_cannot_be_a_call() {
        let mut scanner = CallScanner::new(tools(), MAX_HELD_BYTES);
        assert_eq!(scanner.push("Use {braces"), vec![text("Use {braces")]);
        assert_eq!(scanner.push(" and fn main() { pr"), vec![text(" and fn main() { pr")]);
        assert_eq!(scanner.push("int } {\"quoted\" words}"), vec![text("int } {\"quoted\" words}")]);
        assert_eq!(scanner.finish(), vec![]);
    }

    #[test]
    fn text_that_may_open_a_call_is_held_until_decided() {
        let mut scanner = CallScanner::new(tools(), MAX_HELD_BYTES);
        assert_eq!(scanner.push("Sure.\n``"), vec![text("Sure.\n")]);
        assert_eq!(scanner.push("`json\n{\"tool\": \"read_"), vec![]);
        assert_eq!(scanner.push("file\", \"arguments\": {}}\n``"), vec![call("read_file", json!({}))]);
        assert_eq!(scanner.push("`\nAfter."), vec![text("After.")]);
        assert_eq!(scanner.finish(), vec![]);
    }

    #[test]
    fn an_unterminated_call_at_the_end_is_a_call_with_its_raw_arguments() {
        let cut = |args: &str| raw_call("read_file", &format!("{args}{UNCLOSED_NOTE}"));
        let answer = "Reading:\n```json\n{\"tool\": \"read_file\", \"arguments\": {\"path\": \"a";
        assert_eq!(scan(answer), vec![text("Reading:\n"), cut("{\"path\": \"a")]);
        // Cut before its arguments: the whole text goes on, which cannot run as anything.
        let answer = "{\"tool\": \"read_file\", \"argu";
        assert_eq!(scan(answer), vec![cut(answer)]);
        // Whole arguments but the call's own object never closed: still not run.
        let answer = "{\"tool\": \"read_file\", \"arguments\": {\"path\": \"a.txt\"}";
        let pieces = scan(answer);
        assert_eq!(pieces, vec![cut("{\"path\": \"a.txt\"}")]);
        let Piece::Call { arguments, .. } = &pieces[0] else { unreachable!() };
        assert!(serde_json::from_str::<serde_json::Value>(arguments).is_err());
        // A closing fence ends it too.
        let answer = "```json\n{\"tool\": \"read_file\", \"arguments\": {\"path\": \"a\"\n```\nok";
        assert_eq!(scan(answer), vec![cut("{\"path\": \"a\""), text("ok")]);
    }

    #[test]
    fn broken_json_naming_a_tool_is_a_call_with_the_arguments_as_written() {
        let answer = "```json\n{\"tool\": \"read_file\", \"arguments\": {path: \"a.txt\"},}\n```";
        assert_eq!(scan(answer), vec![raw_call("read_file", "{path: \"a.txt\"}")]);
        let answer = "{\"tool\": \"run_shell\", \"arguments\": {\"command\": \"a\nb\"}}";
        assert_eq!(scan(answer), vec![raw_call("run_shell", "{\"command\": \"a\nb\"}")]);
    }

    #[test]
    fn arguments_that_are_not_an_object_go_on_as_written() {
        assert_eq!(
            scan("{\"tool\": \"read_file\", \"arguments\": \"a.txt\"}"),
            vec![raw_call("read_file", "\"a.txt\"")]
        );
        assert_eq!(scan("{\"tool\": \"read_file\", \"arguments\": [1]}"), vec![raw_call("read_file", "[1]")]);
        // A JSON string holding the object, as the OpenAI API carries arguments, is the object.
        assert_eq!(
            scan("{\"tool\": \"read_file\", \"arguments\": \"{\\\"path\\\": \\\"b\\\"}\"}"),
            vec![call("read_file", json!({"path": "b"}))]
        );
        assert_eq!(scan("{\"tool\": \"read_file\", \"arguments\": null}"), vec![call("read_file", json!({}))]);
    }

    #[test]
    fn text_in_a_call_fence_after_the_call_is_shown_in_a_fence_of_its_own() {
        let answer = "```json\n{\"tool\": \"read_file\", \"arguments\": {}}\n// that reads it\n```\nok";
        assert_eq!(scan(answer), vec![call("read_file", json!({})), text("```\n// that reads it\n```\nok")]);
    }

    #[test]
    fn non_ascii_text_around_a_call_survives_every_split() {
        let answer = "Før ✓ {\"tool\": \"read_file\", \"arguments\": {\"path\": \"ä/😀.txt\"}} ferdig ✓";
        assert_eq!(
            scan(answer),
            vec![text("Før ✓ "), call("read_file", json!({"path": "ä/😀.txt"})), text(" ferdig ✓")]
        );
    }

    #[test]
    fn held_text_past_the_cap_goes_out_as_text() {
        let mut scanner = CallScanner::new(tools(), 64);
        let start = "```json\n{\"tool\": \"read_file\", \"arguments\": {\"path\": \"";
        assert_eq!(scanner.push(start), vec![]);
        let long = "a".repeat(100);
        assert_eq!(scanner.push(&long), vec![text(&format!("{start}{long}"))]);
        assert!(scanner.held.is_empty());
        // Still in that fence: its end is text, and prose after it is read as usual.
        let end = "\"}}\n```\n{\"tool\": \"read_file\"}";
        let mut rest = scanner.push(end);
        rest.extend(scanner.finish());
        assert_eq!(merged(rest), vec![text("\"}}\n```\n"), call("read_file", json!({}))]);
    }
}
