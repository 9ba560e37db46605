//! JSON text written from typed values. It is written into a buffer each thread reuses and
//! copied out at its length: a reply or a stored record then costs one allocation, where
//! serde_json's own buffer starts at 128 bytes and doubles its way to a tender's 3 KB,
//! touching fresh memory at each step.

use serde::Serialize;
use serde_json::ser::{PrettyFormatter, Serializer};
use std::cell::RefCell;

thread_local! {
    static BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// A buffer grown past this is let go after use, so one huge answer does not stay held by
/// its thread.
const KEPT: usize = 256 << 10;

/// `value` as compact JSON text, or (`pretty`) indented by four spaces.
pub fn to_vec<T: Serialize + ?Sized>(value: &T, pretty: bool) -> serde_json::Result<Vec<u8>> {
    BUFFER.with(|cell| match cell.try_borrow_mut() {
        Ok(mut buffer) => {
            buffer.clear();
            let written = write(&mut buffer, value, pretty).map(|()| buffer.as_slice().to_vec());
            if buffer.capacity() > KEPT {
                *buffer = Vec::new();
            }
            written
        }
        // A value whose serialisation writes JSON of its own (the thread's buffer is busy).
        Err(_) => {
            let mut out = Vec::new();
            write(&mut out, value, pretty).map(|()| out)
        }
    })
}

fn write<T: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    value: &T,
    pretty: bool,
) -> serde_json::Result<()> {
    if pretty {
        let formatter = PrettyFormatter::with_indent(b"    ");
        value.serialize(&mut Serializer::with_formatter(out, formatter))
    } else {
        value.serialize(&mut Serializer::new(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn writes_what_serde_json_writes() {
        let value =
            json!({"title": "Закупівля \"меблів\"\n", "value": {"amount": 1097000.0}, "items": []});
        assert_eq!(
            to_vec(&value, false).unwrap(),
            serde_json::to_vec(&value).unwrap()
        );
        let mut pretty = Vec::new();
        let formatter = PrettyFormatter::with_indent(b"    ");
        value
            .serialize(&mut Serializer::with_formatter(&mut pretty, formatter))
            .unwrap();
        assert_eq!(to_vec(&value, true).unwrap(), pretty);
    }

    /// The copy is exact, and a second value does not carry anything of the first.
    #[test]
    fn each_text_is_its_own_and_at_its_length() {
        let long = to_vec(&"x".repeat(5_000), false).unwrap();
        let short = to_vec(&"y", false).unwrap();
        assert_eq!(short, b"\"y\"");
        assert_eq!(short.capacity(), 3);
        assert_eq!(long.len(), 5_002);
    }

    /// A value that writes JSON while it is being written gets its own buffer.
    #[test]
    fn a_nested_writer_does_not_share_the_buffer() {
        struct Nested;
        impl Serialize for Nested {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let inner =
                    to_vec(&json!({"a": [1, 2]}), false).map_err(serde::ser::Error::custom)?;
                s.serialize_str(&String::from_utf8_lossy(&inner))
            }
        }
        assert_eq!(
            to_vec(&[Nested, Nested], false).unwrap(),
            br#"["{\"a\":[1,2]}","{\"a\":[1,2]}"]"#
        );
    }

    #[test]
    fn a_grown_buffer_is_let_go() {
        to_vec(&"z".repeat(KEPT + 1), false).unwrap();
        BUFFER.with(|cell| assert_eq!(cell.borrow().capacity(), 0));
        to_vec(&"z", false).unwrap();
        BUFFER.with(|cell| assert!(cell.borrow().capacity() > 0));
    }
}
