//! Cutting a tool result to what the model may be given: text (content, resource text and
//! structured JSON) and images each have a byte budget; what does not fit is cut, and a note at
//! the end says how much was cut and where the full result is kept.

use warden_tools::{ToolContent, ToolOutput};

use super::keep::Kept;

/// How much of one MCP tool result reaches the model, and how much is kept on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResultLimits {
    /// Bytes of text given to the model: text blocks, resource text and structured content.
    pub text_bytes: usize,
    /// Bytes of base64 image data given to the model.
    pub image_bytes: usize,
    /// Largest result (its MCP JSON) kept whole on disk when it had to be cut.
    pub kept_bytes: usize,
}

impl Default for ResultLimits {
    /// 256 KiB of text (about 64k tokens), 2 MiB of images, 16 MiB kept: the size of the largest
    /// message rmcp accepts from a server at all.
    fn default() -> Self {
        Self { text_bytes: 256 * 1024, image_bytes: 2 * 1024 * 1024, kept_bytes: 16 * 1024 * 1024 }
    }
}

/// What a result would put in the model's context.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Size {
    text: usize,
    images: usize,
}

impl Size {
    pub fn of(output: &ToolOutput) -> Self {
        let mut size = Self { text: 0, images: 0 };
        for block in &output.content {
            match block {
                ToolContent::Text { text } => size.text += text.len(),
                ToolContent::Resource { text, .. } => size.text += text.as_ref().map_or(0, String::len),
                ToolContent::Image { data, .. } => size.images += data.len(),
            }
        }
        size.text += output.structured.as_ref().map_or(0, json_len);
        size
    }

    pub fn fits(&self, limits: &ResultLimits) -> bool {
        self.text <= limits.text_bytes && self.images <= limits.image_bytes
    }
}

/// The output cut to `limits`, with a note at the end.
pub(crate) fn cut(output: ToolOutput, limits: &ResultLimits, size: Size, kept: &Kept) -> ToolOutput {
    let mut text_left = limits.text_bytes;
    let mut images_left = limits.image_bytes;
    let mut content = Vec::with_capacity(output.content.len() + 1);
    for block in output.content {
        match block {
            ToolContent::Text { mut text } => {
                text_left -= shorten(&mut text, text_left);
                if !text.is_empty() {
                    content.push(ToolContent::Text { text });
                }
            }
            ToolContent::Resource { uri, mime_type, mut text } => {
                if let Some(text) = &mut text {
                    text_left -= shorten(text, text_left);
                }
                content.push(ToolContent::Resource { uri, mime_type, text });
            }
            ToolContent::Image { mime_type, data } => {
                if data.len() <= images_left {
                    images_left -= data.len();
                    content.push(ToolContent::Image { mime_type, data });
                } else {
                    content.push(ToolContent::Text {
                        text: format!(
                            "[image ({mime_type}, {} base64) left out: over the image limit]",
                            human(data.len())
                        ),
                    });
                }
            }
        }
    }
    // Structured content is all or nothing: half a JSON value is not one.
    let structured = output.structured.filter(|value| json_len(value) <= text_left);
    // Counted from the budgets, so the lines standing in for left-out images are not counted.
    let shown = Size {
        text: limits.text_bytes - text_left + structured.as_ref().map_or(0, json_len),
        images: limits.image_bytes - images_left,
    };
    content.push(ToolContent::Text { text: note(size, shown, limits, kept) });
    ToolOutput { content, is_error: output.is_error, structured }
}

/// Cuts `text` to at most `budget` bytes on a character boundary; returns the bytes kept.
fn shorten(text: &mut String, budget: usize) -> usize {
    if text.len() > budget {
        let mut end = budget;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    text.len()
}

fn note(size: Size, shown: Size, limits: &ResultLimits, kept: &Kept) -> String {
    let mut parts = Vec::new();
    if size.text > shown.text {
        parts.push(format!(
            "{} of its {} of text (the limit is {})",
            human(size.text - shown.text),
            human(size.text),
            human(limits.text_bytes)
        ));
    }
    if size.images > shown.images {
        parts.push(format!(
            "{} of its {} of images (the limit is {})",
            human(size.images - shown.images),
            human(size.images),
            human(limits.image_bytes)
        ));
    }
    let whole = match kept {
        Kept::At(path) => format!("The full result is kept at {}.", path.display()),
        Kept::TooLarge { bytes } => format!(
            "The full result ({}) is larger than the {} Warden keeps, so it was dropped.",
            human(*bytes),
            human(limits.kept_bytes)
        ),
        Kept::Nowhere => "The full result was not kept: no results directory is set.".to_owned(),
        Kept::Failed(reason) => format!("The full result could not be kept: {reason}."),
    };
    format!("[Warden cut this tool result: {} were cut. {whole}]", parts.join(" and "))
}

fn json_len(value: &serde_json::Value) -> usize {
    serde_json::to_string(value).map_or(0, |s| s.len())
}

/// `300 bytes`, `256 KiB`, `1.5 MiB`.
pub(crate) fn human(bytes: usize) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if b < KIB {
        format!("{bytes} bytes")
    } else if b < KIB * KIB {
        format!("{} KiB", trim(b / KIB))
    } else {
        format!("{} MiB", trim(b / (KIB * KIB)))
    }
}

fn trim(value: f64) -> String {
    let text = format!("{value:.1}");
    text.strip_suffix(".0").map(str::to_owned).unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> ResultLimits {
        ResultLimits { text_bytes: 10, image_bytes: 8, kept_bytes: 100 }
    }

    #[test]
    fn text_is_cut_on_a_character_boundary_across_blocks_and_the_note_says_how_much() {
        let output = ToolOutput {
            content: vec![
                ToolContent::Text { text: "12345678".into() },
                ToolContent::Text { text: "éééé".into() },
                ToolContent::Text { text: "gone".into() },
            ],
            is_error: true,
            structured: Some(serde_json::json!({ "big": "value" })),
        };
        let size = Size::of(&output);
        assert!(!size.fits(&limits()));
        let cut = cut(output, &limits(), size, &Kept::Nowhere);
        assert!(cut.is_error, "the error flag survives");
        assert_eq!(cut.structured, None, "structured content does not fit");
        assert_eq!(cut.content.len(), 3, "{:?}", cut.content);
        assert_eq!(cut.content[0], ToolContent::Text { text: "12345678".into() });
        assert_eq!(cut.content[1], ToolContent::Text { text: "é".into() });
        let ToolContent::Text { text: note } = &cut.content[2] else { panic!("note") };
        assert!(note.contains("25 bytes of its 35 bytes of text"), "{note}");
        assert!(note.contains("no results directory"), "{note}");
    }

    #[test]
    fn images_over_the_budget_are_replaced_by_a_line_saying_so() {
        let output = ToolOutput {
            content: vec![
                ToolContent::Image { mime_type: "image/png".into(), data: "AAAA".into() },
                ToolContent::Image { mime_type: "image/png".into(), data: "BBBBBBBB".into() },
            ],
            ..ToolOutput::default()
        };
        let size = Size::of(&output);
        let cut = cut(output, &limits(), size, &Kept::TooLarge { bytes: 5 << 20 });
        assert!(matches!(&cut.content[0], ToolContent::Image { data, .. } if data == "AAAA"));
        assert!(
            matches!(&cut.content[1], ToolContent::Text { text } if text.contains("image (image/png, 8 bytes base64) left out")),
            "{:?}",
            cut.content[1]
        );
        let ToolContent::Text { text: note } = &cut.content[2] else { panic!("note") };
        assert!(note.contains("8 bytes of its 12 bytes of images"), "{note}");
        assert!(note.contains("(5 MiB) is larger than the 100 bytes"), "{note}");
    }

    #[test]
    fn sizes_read_like_a_person_writes_them() {
        assert_eq!(human(300), "300 bytes");
        assert_eq!(human(256 * 1024), "256 KiB");
        assert_eq!(human(1536 * 1024), "1.5 MiB");
    }
}
