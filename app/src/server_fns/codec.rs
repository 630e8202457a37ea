//! The server functions' answer encoding: JSON, read from text with `serde_json::from_str`.
//!
//! Server functions default to `Json`, which reads answers with `from_slice`, while a resource's value
//! carried in the page is read with `from_str`. serde_json's deserializer is generic over its reader, so
//! each record type the browser received both ways was compiled twice into the wasm. Reading answers as
//! text too leaves one copy of each (the same JSON on the wire: `application/json`).

use leptos::server_fn::codec::Post;
use leptos::server_fn::{Bytes, ContentType, Decodes, Encodes, Format, FormatType};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// JSON, decoded from text.
pub struct TextJsonEncoding;

impl ContentType for TextJsonEncoding {
    const CONTENT_TYPE: &'static str = "application/json";
}

impl FormatType for TextJsonEncoding {
    const FORMAT_TYPE: Format = Format::Text;
}

impl<T: Serialize> Encodes<T> for TextJsonEncoding {
    type Error = serde_json::Error;

    fn encode(output: &T) -> Result<Bytes, Self::Error> {
        serde_json::to_vec(output).map(Bytes::from)
    }
}

impl<T: DeserializeOwned> Decodes<T> for TextJsonEncoding {
    type Error = serde_json::Error;

    fn decode(bytes: Bytes) -> Result<T, Self::Error> {
        let text = std::str::from_utf8(&bytes).map_err(<serde_json::Error as serde::de::Error>::custom)?;
        serde_json::from_str(text)
    }
}

/// A server function's answer as JSON in a POST's response, decoded from text.
pub type TextJson = Post<TextJsonEncoding>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_goes_there_and_back() {
        let bytes = <TextJsonEncoding as Encodes<Vec<(String, u32)>>>::encode(&vec![("é".into(), 3)]).unwrap();
        let back: Vec<(String, u32)> = <TextJsonEncoding as Decodes<_>>::decode(bytes).unwrap();
        assert_eq!(back, vec![("é".to_string(), 3)]);
        assert!(<TextJsonEncoding as Decodes<u32>>::decode(Bytes::from_static(b"\"x\"")).is_err());
        assert!(<TextJsonEncoding as Decodes<String>>::decode(Bytes::from_static(b"\"\xff\"")).is_err());
    }
}
