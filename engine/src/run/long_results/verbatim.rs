//! What a summary must not lose. A small model may drop or garble the ids, URLs, paths and numbers
//! the agent needs next, so they are found in the original with regular expressions and those the
//! summary does not contain are listed after it, most telling kinds first, within a bound.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;

/// Items listed at most, each at most `MAX_ITEM_CHARS` (a longer one is not kept: half an id is no id),
/// all together at most `MAX_TOTAL` bytes.
const MAX_ITEMS: usize = 40;
const MAX_ITEM_CHARS: usize = 200;
const MAX_TOTAL: usize = 4 * 1024;
/// Numbers listed at most.
const MAX_NUMBERS: usize = 12;

/// A kind of item: its pattern, a check of what the pattern alone cannot say, and how many of the
/// list it may take (numbers are many and mostly noise, so they get a few places).
struct Kind {
    pattern: Regex,
    accept: fn(&str) -> bool,
    cap: usize,
}

fn any(_: &str) -> bool {
    true
}

/// Has both a letter and a digit: `cus_9XyZ`, `a1b2c3d`, `INC-1234`, but not `hello` or `2024`.
fn mixed(s: &str) -> bool {
    s.chars().any(|c| c.is_ascii_digit()) && s.chars().any(|c| c.is_alphabetic())
}

fn mixed_id(s: &str) -> bool {
    s.len() >= 5 && mixed(s)
}

fn has_letter(s: &str) -> bool {
    s.chars().any(char::is_alphabetic)
}

/// The kinds, most telling first: URLs, UUIDs, e-mail addresses, paths (and endpoints), ids that mix
/// letters and digits, numbers of two or more digits.
static KINDS: LazyLock<Vec<Kind>> = LazyLock::new(|| {
    let kind = |pattern: &str, accept: fn(&str) -> bool, cap: usize| Kind {
        // The patterns are fixed and tested below; a bad one would fail every test at once.
        pattern: Regex::new(pattern).unwrap_or_else(|e| panic!("verbatim pattern {pattern}: {e}")),
        accept,
        cap,
    };
    vec![
        kind(r#"(?i)\b(?:https?|wss?|ftp)://[^\s<>"'`]+"#, any, MAX_ITEMS),
        kind(r"\b[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\b", any, MAX_ITEMS),
        kind(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b", any, MAX_ITEMS),
        kind(r"(?:~|\.{1,2})?/?[\w.@+-]+(?:/[\w.@+-]+)+/?", has_letter, MAX_ITEMS),
        kind(r"\b[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*\b", mixed_id, MAX_ITEMS),
        kind(r"\b\d{2,}(?:[.,:]\d+)*\b", any, MAX_NUMBERS),
    ]
});

/// The items of `original` that `summary` does not contain, in the order of the kinds and then of
/// their first appearance; none that is part of one listed before it.
pub fn missing_from(original: &str, summary: &str) -> Vec<String> {
    let mut kept: Vec<String> = Vec::new();
    let mut seen: HashSet<&str> = HashSet::new();
    let mut total = 0;
    for kind in KINDS.iter() {
        let mut of_kind = 0;
        for found in kind.pattern.find_iter(original) {
            if of_kind == kind.cap {
                break;
            }
            let item = found.as_str().trim_end_matches(['.', ',', ';', ':', '!', '?', ')', ']', '}', '\'', '"']);
            if item.is_empty() || !(kind.accept)(item) || item.chars().count() > MAX_ITEM_CHARS || !seen.insert(item) {
                continue;
            }
            if summary.contains(item) || kept.iter().any(|k| k.contains(item)) {
                continue;
            }
            if total + item.len() > MAX_TOTAL {
                return kept;
            }
            total += item.len() + 1;
            kept.push(item.to_string());
            of_kind += 1;
            if kept.len() == MAX_ITEMS {
                return kept;
            }
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORIGINAL: &str = "Deployed build a1b2c3d4e5 to https://api.example.com/v2/orders?id=7 (see \
        /var/log/app/deploy.log). Order 0192e8f4-7a3b-7c1d-9e2f-0123456789ab for ops@example.com, customer \
        cus_9XyZ12, ticket INC-4821, total 1234.50 EUR, 3 items. Endpoint: POST /api/v1/refunds. Hello world.";

    #[test]
    fn finds_what_the_summary_dropped_most_telling_first() {
        let kept =
            missing_from(ORIGINAL, "A deploy happened; the order 0192e8f4-7a3b-7c1d-9e2f-0123456789ab was made.");
        assert_eq!(
            kept,
            [
                "https://api.example.com/v2/orders?id=7",
                "ops@example.com",
                "/var/log/app/deploy.log",
                "/api/v1/refunds",
                "a1b2c3d4e5",
                "cus_9XyZ12",
                "INC-4821",
                "1234.50",
            ]
        );
    }

    #[test]
    fn nothing_is_listed_that_the_summary_keeps_or_a_listed_item_contains() {
        let kept = missing_from("see https://x.example/a/b/42 and https://x.example/a/b/42 again", "");
        assert_eq!(kept, ["https://x.example/a/b/42"], "not its path or number, and once");
        assert!(missing_from(ORIGINAL, ORIGINAL).is_empty());
        assert!(missing_from("plain words, nothing else", "").is_empty());
    }

    #[test]
    fn the_list_is_bounded() {
        let many: String = (0..10_000).map(|i| format!("id-{i:06}x ")).collect();
        let kept = missing_from(&many, "");
        assert_eq!(kept.len(), MAX_ITEMS);
        assert_eq!(kept[0], "id-000000x");
        let long: String = (0..100).map(|i| format!("https://example.com/{}/{i} ", "p".repeat(150))).collect();
        let kept = missing_from(&long, "");
        assert!(kept.iter().map(|k| k.len() + 1).sum::<usize>() <= MAX_TOTAL, "{}", kept.len());
        assert!(missing_from(&format!("https://example.com/{}", "a".repeat(300)), "").is_empty());
        let numbers: String = (100..200).map(|i| format!("{i} ")).collect();
        assert_eq!(missing_from(&numbers, "").len(), MAX_NUMBERS, "numbers take a few places only");
    }
}
