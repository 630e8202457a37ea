//! A small recognizer for the GBNF this module writes, following llama.cpp's parser
//! (`src/llama-grammar.cpp`) closely enough to refuse what it refuses.

use std::collections::{BTreeSet, HashMap, HashSet};

/// llama.cpp's `MAX_REPETITION_THRESHOLD`.
const THRESHOLD: u64 = 2000;

#[derive(Debug, Clone)]
pub enum Expr {
    Literal(Vec<char>),
    Class { negated: bool, ranges: Vec<(char, char)> },
    Ref(String),
    Seq(Vec<Expr>),
    Alt(Vec<Expr>),
    Repeat { item: Box<Expr>, min: u64, max: Option<u64> },
}

pub struct Grammar {
    pub rules: HashMap<String, Expr>,
}

/// Parses a grammar as llama.cpp does, then checks what `llama_grammar_init_impl` checks: every
/// referenced rule is defined, `root` exists, no rule is left-recursive.
pub fn parse(text: &str) -> Result<Grammar, String> {
    let mut parser = Parser { text: text.chars().collect(), pos: 0, names: HashSet::new(), generated: 0 };
    let mut rules = HashMap::new();
    parser.space(true);
    while !parser.at_end() {
        let (name, expr) = parser.rule()?;
        if rules.insert(name.clone(), expr).is_some() {
            return Err(format!("rule {name} defined twice"));
        }
    }
    let grammar = Grammar { rules };
    for name in &parser.names {
        if !grammar.rules.contains_key(name) {
            return Err(format!("undefined rule {name}"));
        }
    }
    if !grammar.rules.contains_key("root") {
        return Err("no root rule".into());
    }
    grammar.check_left_recursion()?;
    Ok(grammar)
}

struct Parser {
    text: Vec<char>,
    pos: usize,
    /// Rule names seen (llama.cpp's `symbol_ids`), and the symbols it generates for groups and
    /// repetitions: its repetition limit counts them.
    names: HashSet<String>,
    generated: u64,
}

impl Parser {
    fn at_end(&self) -> bool {
        self.pos >= self.text.len()
    }
    fn peek(&self) -> Option<char> {
        self.text.get(self.pos).copied()
    }
    fn peek_at(&self, offset: usize) -> Option<char> {
        self.text.get(self.pos + offset).copied()
    }
    fn symbols(&self) -> u64 {
        self.names.len() as u64 + self.generated
    }
    fn error<T>(&self, what: &str) -> Result<T, String> {
        let context: String = self.text[self.pos.min(self.text.len())..].iter().take(40).collect();
        Err(format!("{what} at {context:?}"))
    }

    fn space(&mut self, newline_ok: bool) {
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' => self.pos += 1,
                '\r' | '\n' if newline_ok => self.pos += 1,
                '#' => {
                    while self.peek().is_some_and(|c| c != '\r' && c != '\n') {
                        self.pos += 1;
                    }
                }
                _ => break,
            }
        }
    }

    fn name(&mut self) -> Result<String, String> {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == '-') {
            self.pos += 1;
        }
        if start == self.pos {
            return self.error("expecting name");
        }
        Ok(self.text[start..self.pos].iter().collect())
    }

    fn rule(&mut self) -> Result<(String, Expr), String> {
        let name = self.name()?;
        self.names.insert(name.clone());
        self.space(false);
        if self.text.get(self.pos..self.pos + 3) != Some(&[':', ':', '=']) {
            return self.error("expecting ::=");
        }
        self.pos += 3;
        self.space(true);
        let expr = self.alternates(false)?;
        match self.peek() {
            None => {}
            Some('\n') => self.pos += 1,
            Some('\r') => self.pos += if self.peek_at(1) == Some('\n') { 2 } else { 1 },
            Some(_) => return self.error("expecting newline or end"),
        }
        self.space(true);
        Ok((name, expr))
    }

    fn alternates(&mut self, nested: bool) -> Result<Expr, String> {
        let mut alternatives = vec![self.sequence(nested)?];
        while self.peek() == Some('|') {
            self.pos += 1;
            self.space(true);
            alternatives.push(self.sequence(nested)?);
        }
        Ok(Expr::Alt(alternatives))
    }

    fn sequence(&mut self, nested: bool) -> Result<Expr, String> {
        let mut items: Vec<Expr> = Vec::new();
        let mut n_prev: u64 = 1;
        while let Some(c) = self.peek() {
            match c {
                '"' => {
                    self.pos += 1;
                    let mut chars = Vec::new();
                    while self.peek() != Some('"') {
                        if self.at_end() {
                            return self.error("unexpected end of input");
                        }
                        chars.push(self.char()?);
                    }
                    self.pos += 1;
                    items.push(Expr::Literal(chars));
                    n_prev = 1;
                }
                '[' => {
                    self.pos += 1;
                    let negated = self.peek() == Some('^');
                    if negated {
                        self.pos += 1;
                    }
                    let mut ranges = Vec::new();
                    while self.peek() != Some(']') {
                        if self.at_end() {
                            return self.error("unexpected end of input");
                        }
                        let low = self.char()?;
                        let mut high = low;
                        if self.peek() == Some('-') && self.peek_at(1) != Some(']') {
                            self.pos += 1;
                            high = self.char()?;
                        }
                        ranges.push((low, high));
                    }
                    self.pos += 1;
                    items.push(Expr::Class { negated, ranges });
                    n_prev = 1;
                }
                '(' => {
                    self.pos += 1;
                    self.space(true);
                    let before = self.symbols();
                    self.generated += 1;
                    let group = self.alternates(true)?;
                    if self.peek() != Some(')') {
                        return self.error("expecting ')'");
                    }
                    self.pos += 1;
                    n_prev = (self.symbols() - before).max(1);
                    items.push(group);
                }
                '*' | '+' | '?' | '{' => {
                    let (min, max) = self.repetition_bounds(nested)?;
                    let Some(item) = items.pop() else {
                        return self.error("expecting preceding item to */+/?/{");
                    };
                    if max.is_some_and(|max| max < min) {
                        return self.error("repetition maximum below its minimum");
                    }
                    let total = match max {
                        Some(n) if n > 0 => n,
                        _ => min.max(1),
                    };
                    if n_prev * total > THRESHOLD {
                        return self.error("repetition exceeds llama.cpp's threshold");
                    }
                    self.generated += match max {
                        None => 1,
                        Some(n) => n - min,
                    };
                    n_prev *= total;
                    items.push(Expr::Repeat { item: Box::new(item), min, max });
                    continue; // space already skipped
                }
                c if c.is_ascii_alphanumeric() || c == '-' => {
                    let name = self.name()?;
                    self.names.insert(name.clone());
                    items.push(Expr::Ref(name));
                    n_prev = 1;
                }
                _ => break,
            }
            self.space(nested);
        }
        Ok(Expr::Seq(items))
    }

    fn repetition_bounds(&mut self, nested: bool) -> Result<(u64, Option<u64>), String> {
        let c = self.peek();
        self.pos += 1;
        let bounds = match c {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            _ => {
                self.space(nested);
                let min = self.int()?;
                self.space(nested);
                let max = match self.peek() {
                    Some('}') => Some(min),
                    Some(',') => {
                        self.pos += 1;
                        self.space(nested);
                        let max =
                            if self.peek().is_some_and(|c| c.is_ascii_digit()) { Some(self.int()?) } else { None };
                        self.space(nested);
                        max
                    }
                    _ => return self.error("expecting ','"),
                };
                if self.peek() != Some('}') {
                    return self.error("expecting '}'");
                }
                self.pos += 1;
                if min > THRESHOLD {
                    return self.error("number of repetitions exceeds sane defaults");
                }
                (min, max.filter(|m| *m <= THRESHOLD))
            }
        };
        self.space(nested);
        Ok(bounds)
    }

    fn int(&mut self) -> Result<u64, String> {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        let digits: String = self.text[start..self.pos].iter().collect();
        digits.parse().or_else(|_| self.error("expecting integer"))
    }

    fn char(&mut self) -> Result<char, String> {
        let Some(c) = self.peek() else { return self.error("unexpected end of input") };
        self.pos += 1;
        if c != '\\' {
            return Ok(c);
        }
        let Some(e) = self.peek() else { return self.error("unexpected end of input") };
        self.pos += 1;
        let hex_digits = match e {
            'x' => 2,
            'u' => 4,
            'U' => 8,
            't' => return Ok('\t'),
            'r' => return Ok('\r'),
            'n' => return Ok('\n'),
            '\\' | '"' | '[' | ']' | '-' => return Ok(e),
            _ => return self.error("unknown escape"),
        };
        let hex: String = self.text.iter().skip(self.pos).take(hex_digits).collect();
        self.pos += hex_digits;
        u32::from_str_radix(&hex, 16)
            .ok()
            .filter(|_| hex.len() == hex_digits)
            .and_then(char::from_u32)
            .map_or_else(|| self.error("bad hex escape"), Ok)
    }
}

impl Grammar {
    /// Whether the whole of `input` is matched by `root`.
    pub fn accepts(&self, input: &str) -> bool {
        let input: Vec<char> = input.chars().collect();
        let mut matcher = Matcher { grammar: self, input: &input, memo: HashMap::new(), active: HashSet::new() };
        matcher.rule_ends("root", 0).contains(&input.len())
    }

    fn nullable(&self, expr: &Expr, nullable_rules: &HashSet<String>) -> bool {
        match expr {
            Expr::Literal(chars) => chars.is_empty(),
            Expr::Class { .. } => false,
            Expr::Ref(name) => nullable_rules.contains(name),
            Expr::Seq(items) => items.iter().all(|i| self.nullable(i, nullable_rules)),
            Expr::Alt(alternatives) => alternatives.iter().any(|a| self.nullable(a, nullable_rules)),
            Expr::Repeat { item, min, .. } => *min == 0 || self.nullable(item, nullable_rules),
        }
    }

    /// Rules reachable at the start of `expr`.
    fn leftmost(&self, expr: &Expr, nullable_rules: &HashSet<String>, out: &mut Vec<String>) {
        match expr {
            Expr::Ref(name) => out.push(name.clone()),
            Expr::Seq(items) => {
                for item in items {
                    self.leftmost(item, nullable_rules, out);
                    if !self.nullable(item, nullable_rules) {
                        break;
                    }
                }
            }
            Expr::Alt(alternatives) => alternatives.iter().for_each(|a| self.leftmost(a, nullable_rules, out)),
            Expr::Repeat { item, .. } => self.leftmost(item, nullable_rules, out),
            Expr::Literal(_) | Expr::Class { .. } => {}
        }
    }

    fn check_left_recursion(&self) -> Result<(), String> {
        let mut nullable_rules = HashSet::new();
        loop {
            let before = nullable_rules.len();
            for (name, expr) in &self.rules {
                if self.nullable(expr, &nullable_rules) {
                    nullable_rules.insert(name.clone());
                }
            }
            if nullable_rules.len() == before {
                break;
            }
        }
        let edges: HashMap<&String, Vec<String>> = self
            .rules
            .iter()
            .map(|(name, expr)| {
                let mut out = Vec::new();
                self.leftmost(expr, &nullable_rules, &mut out);
                (name, out)
            })
            .collect();
        // Iterative depth-first search for a cycle.
        let mut state: HashMap<&str, u8> = HashMap::new(); // 1 = on the path, 2 = done
        for start in self.rules.keys() {
            if state.contains_key(start.as_str()) {
                continue;
            }
            let mut stack: Vec<(&str, usize)> = vec![(start.as_str(), 0)];
            state.insert(start.as_str(), 1);
            while let Some((node, next)) = stack.pop() {
                let targets = edges.get(&node.to_string()).map(Vec::as_slice).unwrap_or(&[]);
                if let Some(target) = targets.get(next) {
                    stack.push((node, next + 1));
                    let target = self.rules.get_key_value(target).map(|(k, _)| k.as_str()).unwrap_or("");
                    match state.get(target) {
                        Some(1) => return Err(format!("left recursion through {target}")),
                        Some(_) => {}
                        None => {
                            state.insert(target, 1);
                            stack.push((target, 0));
                        }
                    }
                } else {
                    state.insert(node, 2);
                }
            }
        }
        Ok(())
    }
}

struct Matcher<'g> {
    grammar: &'g Grammar,
    input: &'g [char],
    memo: HashMap<(String, usize), BTreeSet<usize>>,
    active: HashSet<(String, usize)>,
}

impl Matcher<'_> {
    fn rule_ends(&mut self, name: &str, pos: usize) -> BTreeSet<usize> {
        let key = (name.to_string(), pos);
        if let Some(ends) = self.memo.get(&key) {
            return ends.clone();
        }
        if !self.active.insert(key.clone()) {
            return BTreeSet::new();
        }
        let grammar = self.grammar;
        let ends = match grammar.rules.get(name) {
            Some(expr) => self.ends(expr, pos),
            None => BTreeSet::new(),
        };
        self.active.remove(&key);
        self.memo.insert(key, ends.clone());
        ends
    }

    /// Every position where a match of `expr` starting at `pos` can end.
    fn ends(&mut self, expr: &Expr, pos: usize) -> BTreeSet<usize> {
        match expr {
            Expr::Literal(chars) => {
                let end = pos + chars.len();
                if self.input.get(pos..end) == Some(chars.as_slice()) {
                    BTreeSet::from([end])
                } else {
                    BTreeSet::new()
                }
            }
            Expr::Class { negated, ranges } => match self.input.get(pos) {
                Some(c) if ranges.iter().any(|(lo, hi)| lo <= c && c <= hi) != *negated => BTreeSet::from([pos + 1]),
                _ => BTreeSet::new(),
            },
            Expr::Ref(name) => self.rule_ends(name, pos),
            Expr::Seq(items) => {
                let mut positions = BTreeSet::from([pos]);
                for item in items {
                    let mut next = BTreeSet::new();
                    for p in positions {
                        next.extend(self.ends(item, p));
                    }
                    positions = next;
                    if positions.is_empty() {
                        break;
                    }
                }
                positions
            }
            Expr::Alt(alternatives) => {
                let mut ends = BTreeSet::new();
                for alternative in alternatives {
                    ends.extend(self.ends(alternative, pos));
                }
                ends
            }
            Expr::Repeat { item, min, max } => self.repeat_ends(item, pos, *min, *max),
        }
    }

    fn repeat_ends(&mut self, item: &Expr, pos: usize, min: u64, max: Option<u64>) -> BTreeSet<usize> {
        let mut result = BTreeSet::new();
        let mut reached = BTreeSet::new(); // positions reached after at least `min` items
        let mut frontier = BTreeSet::from([pos]);
        if min == 0 {
            result.insert(pos);
            reached.insert(pos);
        }
        let mut count = 0;
        while !frontier.is_empty() && max.is_none_or(|max| count < max) {
            count += 1;
            let mut next = BTreeSet::new();
            for p in &frontier {
                next.extend(self.ends(item, *p));
            }
            if count >= min {
                // From a position already reached, more items add nothing new.
                let fresh: BTreeSet<usize> = next.difference(&reached).copied().collect();
                reached.extend(fresh.iter().copied());
                result.extend(fresh.iter().copied());
                frontier = fresh;
            } else {
                frontier = next;
            }
        }
        result
    }
}
