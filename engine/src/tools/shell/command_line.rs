//! A deliberately small reader for POSIX shell command lines: it splits a line into its simple
//! commands (including those inside `$(...)` and backticks) so approval rules and risk can look at
//! each one. Anything it does not fully understand makes it give up (`None`) rather than guess.

/// One simple command of a command line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Segment {
    /// Words after quote removal; a leading reserved word (`if`, `then`, `do`, `!`, `{`, ...) is dropped.
    /// Words holding a substitution keep its source text, e.g. `$(date)`.
    pub words: Vec<String>,
    /// Whether the command has any redirection (`>`, `>>`, `<`, `2>`, `&>`, `>|`, `2>&1`, ...).
    pub redirects: bool,
    /// Files its output redirections write to (`> f`, `>> f`, `&> f`, `>| f`, `<> f`);
    /// descriptor duplications such as `2>&1` are not files and are not listed.
    pub writes_to: Vec<String>,
    /// Whether its standard input comes from the command before it through a pipe.
    pub piped_input: bool,
}

/// Splits `cmd` into simple commands at `|`, `|&`, `||`, `&&`, `;`, `&` and newlines, with commands
/// inside substitutions as segments of their own (listed before the command that contains them).
///
/// Returns `None` when the line cannot be read safely: unbalanced quotes or parentheses, heredocs,
/// process substitution, subshells, arithmetic, function definitions and other constructs it does not know.
pub fn split_command(cmd: &str) -> Option<Vec<Segment>> {
    let chars: Vec<char> = cmd.chars().collect();
    let mut parser = Parser { chars: &chars, pos: 0, depth: 0, out: Vec::new() };
    parser.list(false)?;
    Some(parser.out)
}

/// Deeper nesting of substitutions than this is refused rather than recursed into.
const MAX_DEPTH: usize = 16;

/// Words that start a compound command or follow a keyword; dropped when they lead a segment.
const RESERVED: &[&str] = &["if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "time"];
/// Constructs whose body would run later, out of sight of the segments.
const REFUSED: &[&str] = &["function", "coproc", "case", "select", "[["];

#[derive(Default)]
struct Word {
    text: String,
    started: bool,
    quoted: bool,
}

impl Word {
    fn push(&mut self, c: char) {
        self.text.push(c);
        self.started = true;
    }
    fn is_fd_number(&self) -> bool {
        !self.quoted && !self.text.is_empty() && self.text.chars().all(|c| c.is_ascii_digit())
    }
}

struct Parser<'a> {
    chars: &'a [char],
    pos: usize,
    depth: usize,
    out: Vec<Segment>,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }
    fn peek_at(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }
    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        Some(c)
    }

    /// A list of commands, up to the end of input or, inside `$(`, up to and including its `)`.
    fn list(&mut self, inside_substitution: bool) -> Option<()> {
        let mut seg = Segment::default();
        loop {
            while matches!(self.peek(), Some(' ' | '\t')) {
                self.pos += 1;
            }
            let Some(c) = self.peek() else {
                if inside_substitution {
                    return None;
                }
                self.finish(seg, false);
                return Some(());
            };
            match c {
                '#' => {
                    while !matches!(self.peek(), None | Some('\n')) {
                        self.pos += 1;
                    }
                }
                '\n' | ';' => {
                    self.pos += 1;
                    if c == ';' && self.peek() == Some(';') {
                        return None;
                    }
                    seg = self.finish(seg, false);
                }
                '&' => match self.peek_at(1) {
                    Some('>') => {
                        self.pos += 1;
                        self.redirect(&mut seg)?;
                    }
                    Some('&') => {
                        self.pos += 2;
                        seg = self.finish(seg, false);
                    }
                    _ => {
                        self.pos += 1;
                        seg = self.finish(seg, false);
                    }
                },
                '|' => {
                    self.pos += 1;
                    match self.peek() {
                        Some('|') => {
                            self.pos += 1;
                            seg = self.finish(seg, false);
                        }
                        Some('&') => {
                            self.pos += 1;
                            seg = self.finish(seg, true);
                        }
                        _ => seg = self.finish(seg, true),
                    }
                }
                '<' | '>' => self.redirect(&mut seg)?,
                ')' if inside_substitution => {
                    self.pos += 1;
                    self.finish(seg, false);
                    return Some(());
                }
                '(' | ')' => return None,
                _ => {
                    let word = self.word()?;
                    if matches!(self.peek(), Some('<' | '>')) && word.is_fd_number() {
                        self.redirect(&mut seg)?;
                    } else {
                        push_word(&mut seg, word)?;
                    }
                }
            }
        }
    }

    /// Records the current segment and starts the next one.
    fn finish(&mut self, seg: Segment, next_is_piped: bool) -> Segment {
        if !seg.words.is_empty() || seg.redirects {
            self.out.push(seg);
        }
        Segment { piped_input: next_is_piped, ..Segment::default() }
    }

    /// One redirection starting at `<` or `>` (a leading fd number or `&` is already consumed).
    fn redirect(&mut self, seg: &mut Segment) -> Option<()> {
        seg.redirects = true;
        let first = self.bump()?;
        let mut writes = first == '>';
        match (first, self.peek()) {
            ('<', Some('<')) | (_, Some('(')) => return None, // heredoc, herestring, process substitution
            ('>', Some('>' | '|')) => self.pos += 1,
            ('<', Some('>')) => {
                self.pos += 1;
                writes = true;
            }
            _ => {}
        }
        let duplicates = self.peek() == Some('&');
        if duplicates {
            self.pos += 1;
        }
        while matches!(self.peek(), Some(' ' | '\t')) {
            self.pos += 1;
        }
        let target = self.word()?;
        if !target.started {
            return None;
        }
        let is_descriptor = duplicates && (target.text == "-" || target.text.chars().all(|c| c.is_ascii_digit()));
        if writes && !is_descriptor {
            seg.writes_to.push(target.text);
        }
        Some(())
    }

    /// One word, with quotes removed and substitutions parsed (their commands go to `out`).
    fn word(&mut self) -> Option<Word> {
        let mut word = Word::default();
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' | '\n' | ';' | '&' | '|' | '<' | '>' | ')' => break,
                '(' => return None,
                '\\' => {
                    self.pos += 1;
                    match self.bump()? {
                        '\n' => {} // line continuation
                        escaped => {
                            word.quoted = true;
                            word.push(escaped);
                        }
                    }
                }
                '\'' => {
                    self.pos += 1;
                    word.quoted = true;
                    word.started = true;
                    loop {
                        match self.bump()? {
                            '\'' => break,
                            c => word.push(c),
                        }
                    }
                }
                '"' => self.double_quoted(&mut word)?,
                '`' => self.backticks(&mut word)?,
                '$' => self.dollar(&mut word, false)?,
                c => {
                    self.pos += 1;
                    word.push(c);
                }
            }
        }
        Some(word)
    }

    fn double_quoted(&mut self, word: &mut Word) -> Option<()> {
        self.pos += 1;
        word.quoted = true;
        word.started = true;
        loop {
            match self.peek()? {
                '"' => {
                    self.pos += 1;
                    return Some(());
                }
                '\\' => {
                    self.pos += 1;
                    match self.bump()? {
                        '\n' => {}
                        c @ ('$' | '`' | '"' | '\\') => word.push(c),
                        c => {
                            word.push('\\');
                            word.push(c);
                        }
                    }
                }
                '`' => self.backticks(word)?,
                '$' => self.dollar(word, true)?,
                c => {
                    self.pos += 1;
                    word.push(c);
                }
            }
        }
    }

    /// `` `...` ``: the body is unescaped, then read as a command line of its own.
    fn backticks(&mut self, word: &mut Word) -> Option<()> {
        let start = self.pos;
        self.pos += 1;
        let mut body = String::new();
        loop {
            match self.bump()? {
                '`' => break,
                '\\' => match self.bump()? {
                    c @ ('`' | '\\' | '$') => body.push(c),
                    c => {
                        body.push('\\');
                        body.push(c);
                    }
                },
                c => body.push(c),
            }
        }
        if self.depth >= MAX_DEPTH {
            return None;
        }
        let body: Vec<char> = body.chars().collect();
        let mut inner = Parser { chars: &body, pos: 0, depth: self.depth + 1, out: Vec::new() };
        inner.list(false)?;
        self.out.append(&mut inner.out);
        word.text.extend(&self.chars[start..self.pos]);
        word.started = true;
        Some(())
    }

    /// `$(...)`, `${...}`, `$'...'` or a plain `$`.
    fn dollar(&mut self, word: &mut Word, in_double_quotes: bool) -> Option<()> {
        let start = self.pos;
        match self.peek_at(1) {
            Some('(') if self.peek_at(2) == Some('(') => return None, // arithmetic
            Some('(') => {
                if self.depth >= MAX_DEPTH {
                    return None;
                }
                self.pos += 2;
                self.depth += 1;
                self.list(true)?;
                self.depth -= 1;
            }
            Some('{') => {
                self.pos += 2;
                loop {
                    match self.bump()? {
                        '}' => break,
                        // Defaults like ${x:-$(cmd)} or quoted braces: more than this reader handles.
                        '$' | '`' | '\'' | '"' | '\\' => return None,
                        _ => {}
                    }
                }
            }
            Some('\'') if !in_double_quotes => {
                self.pos += 2;
                word.quoted = true;
                word.started = true;
                loop {
                    match self.bump()? {
                        '\'' => return Some(()),
                        '\\' => {
                            let c = self.bump()?;
                            word.push(c);
                        }
                        c => word.push(c),
                    }
                }
            }
            _ => self.pos += 1,
        }
        word.text.extend(&self.chars[start..self.pos]);
        word.started = true;
        Some(())
    }
}

fn push_word(seg: &mut Segment, word: Word) -> Option<()> {
    if !word.started && !word.quoted {
        return Some(());
    }
    if seg.words.is_empty() && !word.quoted {
        if REFUSED.contains(&word.text.as_str()) {
            return None;
        }
        if RESERVED.contains(&word.text.as_str()) {
            return Some(());
        }
    }
    seg.words.push(word.text);
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words of each segment, for compact expectations.
    fn words(cmd: &str) -> Option<Vec<Vec<String>>> {
        split_command(cmd).map(|segs| segs.into_iter().map(|s| s.words).collect())
    }

    fn w(segments: &[&[&str]]) -> Option<Vec<Vec<String>>> {
        Some(segments.iter().map(|s| s.iter().map(|w| w.to_string()).collect()).collect())
    }

    #[test]
    fn splits_at_every_control_operator() {
        let cases: &[(&str, &[&[&str]])] = &[
            ("ls -la", &[&["ls", "-la"]]),
            ("a | b", &[&["a"], &["b"]]),
            ("a|b||c&&d;e&f", &[&["a"], &["b"], &["c"], &["d"], &["e"], &["f"]]),
            ("a\nb", &[&["a"], &["b"]]),
            ("a |& b", &[&["a"], &["b"]]),
            ("  a ;  ; b ; ", &[&["a"], &["b"]]),
            ("", &[]),
            ("# only a comment", &[]),
            ("git show # ; rm -rf /", &[&["git", "show"]]),
            ("echo a#b", &[&["echo", "a#b"]]),
        ];
        for (cmd, expected) in cases {
            assert_eq!(words(cmd), w(expected), "{cmd:?}");
        }
    }

    #[test]
    fn quotes_and_escapes_do_not_split() {
        let cases: &[(&str, &[&[&str]])] = &[
            ("echo 'a | b'", &[&["echo", "a | b"]]),
            ("echo \"a; b && c\"", &[&["echo", "a; b && c"]]),
            ("echo a\\|b", &[&["echo", "a|b"]]),
            ("echo a\\;b", &[&["echo", "a;b"]]),
            ("echo \"say \\\"hi\\\"\"", &[&["echo", "say \"hi\""]]),
            ("echo 'it'\\''s'", &[&["echo", "it's"]]),
            ("echo $'a\\'b | c'", &[&["echo", "a'b | c"]]),
            ("echo ''", &[&["echo", ""]]),
            ("git sh\"ow\" HEAD", &[&["git", "show", "HEAD"]]),
            ("echo \"$HOME\" ${USER}", &[&["echo", "$HOME", "${USER}"]]),
            ("ls \\\n -l", &[&["ls", "-l"]]),
        ];
        for (cmd, expected) in cases {
            assert_eq!(words(cmd), w(expected), "{cmd:?}");
        }
    }

    #[test]
    fn substitutions_become_segments_of_their_own() {
        let cases: &[(&str, &[&[&str]])] = &[
            ("git show $(rm x)", &[&["rm", "x"], &["git", "show", "$(rm x)"]]),
            ("echo `whoami`", &[&["whoami"], &["echo", "`whoami`"]]),
            (
                "echo \"today: $(date; rm -f y)\"",
                &[&["date"], &["rm", "-f", "y"], &["echo", "today: $(date; rm -f y)"]],
            ),
            ("echo $(echo $(id))", &[&["id"], &["echo", "$(id)"], &["echo", "$(echo $(id))"]]),
            ("echo \"`rm -rf /`\"", &[&["rm", "-rf", "/"], &["echo", "`rm -rf /`"]]),
            ("a=$(ls) b", &[&["ls"], &["a=$(ls)", "b"]]),
        ];
        for (cmd, expected) in cases {
            assert_eq!(words(cmd), w(expected), "{cmd:?}");
        }
    }

    #[test]
    fn leading_reserved_words_are_dropped() {
        assert_eq!(words("if git status; then rm -rf build; fi"), w(&[&["git", "status"], &["rm", "-rf", "build"]]));
        assert_eq!(
            words("for f in *.rs; do wc -l \"$f\"; done"),
            w(&[&["for", "f", "in", "*.rs"], &["wc", "-l", "$f"]])
        );
        assert_eq!(words("! grep x f"), w(&[&["grep", "x", "f"]]));
        assert_eq!(words("echo if then"), w(&[&["echo", "if", "then"]]));
        assert_eq!(words("'if' x"), w(&[&["if", "x"]]));
    }

    #[test]
    fn redirections_are_flagged_and_write_targets_listed() {
        let cases: &[(&str, bool, &[&str])] = &[
            ("ls", false, &[]),
            ("echo hi > out.txt", true, &["out.txt"]),
            ("echo hi >>log", true, &["log"]),
            ("echo hi 2>err.txt", true, &["err.txt"]),
            ("echo hi &> all.txt", true, &["all.txt"]),
            ("echo hi &>> all.txt", true, &["all.txt"]),
            ("echo hi >| forced", true, &["forced"]),
            ("echo hi > \"my file\"", true, &["my file"]),
            ("cat < in.txt", true, &[]),
            ("make 2>&1", true, &[]),
            ("make >&2", true, &[]),
            ("make 2>&-", true, &[]),
            ("make >/dev/null", true, &["/dev/null"]),
            ("exec 3<> f", true, &["f"]),
        ];
        for (cmd, redirects, writes) in cases {
            let segs = split_command(cmd).unwrap_or_else(|| panic!("{cmd:?} should parse"));
            assert_eq!(segs.len(), 1, "{cmd:?}");
            assert_eq!(segs[0].redirects, *redirects, "{cmd:?}");
            assert_eq!(segs[0].writes_to, writes.iter().map(|s| s.to_string()).collect::<Vec<_>>(), "{cmd:?}");
        }
        assert_eq!(words("echo hi 2>err.txt"), w(&[&["echo", "hi"]]));
        assert_eq!(words("echo a2>x"), w(&[&["echo", "a2"]]));
        assert_eq!(words("echo '2'>x"), w(&[&["echo", "2"]]));
    }

    #[test]
    fn pipes_mark_the_next_segment_as_reading_the_pipe() {
        let segs = split_command("curl -s x | sh && ls || cat").unwrap();
        let piped: Vec<bool> = segs.iter().map(|s| s.piped_input).collect();
        assert_eq!(piped, [false, true, false, false]);
    }

    #[test]
    fn unreadable_lines_give_none() {
        for cmd in [
            "echo 'unclosed",
            "echo \"unclosed",
            "echo `unclosed",
            "echo $(unclosed",
            "echo trailing\\",
            "echo )",
            "(cd x && rm y)",
            "cat <<EOF\nrm -rf /\nEOF",
            "cat <<< \"x\"",
            "diff <(ls a) <(ls b)",
            "tee >(sh)",
            "echo $((1+2))",
            "echo ${x:-$(rm y)}",
            "f() { rm -rf /; }; f",
            "function f { rm -rf /; }",
            "case $x in a) rm;; esac",
            "a=(1 2)",
            "echo >",
            "echo > ;",
            "ls ;; ls",
        ] {
            assert_eq!(split_command(cmd), None, "{cmd:?}");
        }
    }

    #[test]
    fn very_deep_nesting_is_refused_not_overflowed() {
        let deep = format!("{}x{}", "$(".repeat(200), ")".repeat(200));
        assert_eq!(split_command(&deep), None);
        assert!(split_command("echo $($(echo id))").is_some());
    }
}
