//! Tool-name globs: `*` stands for any run of characters, `?` for one, everything else for itself.
//! Linear in practice: on a mismatch only the last `*` backtracks (the classic two-pointer match).

/// Whether `name` matches `pattern` (a plain name matches only itself).
pub fn matches(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    let (mut pi, mut ni) = (0, 0);
    // Where the last `*` was, and where in the name it started matching.
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, ni));
                pi += 1;
            }
            Some('?') => {
                pi += 1;
                ni += 1;
            }
            Some(c) if *c == n[ni] => {
                pi += 1;
                ni += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    pi = sp + 1;
                    ni = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn globs_match_as_a_shell_would_match_a_file_name() {
        assert!(matches("shell", "shell"));
        assert!(!matches("shell", "shells"));
        assert!(matches("write_*", "write_file"));
        assert!(matches("write_*", "write_"));
        assert!(!matches("write_*", "read_file"));
        assert!(matches("*_file", "write_file"));
        assert!(matches("*", ""));
        assert!(matches("?ell", "bell"));
        assert!(!matches("?ell", "ell"));
        assert!(matches("a*b*c", "axxbyyc"));
        assert!(!matches("a*b*c", "axxbyy"));
        assert!(matches("*a*a*a*b", "aaaaaaaaaaaaaaaaab"));
        assert!(!matches("*a*a*a*b", "aaaaaaaaaaaaaaaaaa"));
    }
}
