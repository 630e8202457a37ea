//! How a secret is shown when it must be shown at all: `••••` plus at most its last 4 characters.
//! Used for MCP server env values and headers, and for provider keys.

/// What a hidden secret looks like.
pub const MASK: &str = "••••";
/// Values shorter than this are masked entirely; longer ones keep their last 4 characters.
const SHOW_TAIL_FROM_LEN: usize = 12;

/// `••••` plus at most the last 4 characters of a long value.
pub fn mask(value: &str) -> String {
    let chars: Vec<char> = value.chars().collect();
    if chars.len() < SHOW_TAIL_FROM_LEN {
        return MASK.to_owned();
    }
    let tail: String = chars[chars.len() - 4..].iter().collect();
    format!("{MASK}{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_values_are_masked_whole_and_long_ones_keep_four_characters() {
        assert_eq!(mask("abc"), MASK);
        assert_eq!(mask("sk-0123456789abcd"), "••••abcd");
    }
}
