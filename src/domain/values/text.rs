//! Text a record keeps for its life: a boxed `str`, 16 bytes where a `String` takes 24, with
//! no spare capacity. A tender holds some seventy such fields (names and their translations,
//! codes, addresses), most of them short or absent, and every kept byte is memory a new
//! tender must fault in; an absent one (`Option<Text>`) is 16 bytes as well.

use super::input::Input;
use super::parse::{Cx, FromJson, Problem};
use serde::{Deserialize, Serialize};
use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;

#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Text(Box<str>);

impl Text {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Text {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text(s.into_boxed_str())
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text(s.into())
    }
}

impl From<Text> for String {
    fn from(t: Text) -> String {
        t.0.into_string()
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<String> for Text {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<Text> for String {
    fn eq(&self, other: &Text) -> bool {
        **self == *other.0
    }
}

impl PartialEq<Text> for &str {
    fn eq(&self, other: &Text) -> bool {
        **self == *other.0
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl FromJson for Text {
    fn from_json(v: &Input<'_>, cx: &Cx) -> Result<Self, Problem> {
        String::from_json(v, cx).map(Text::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_smaller_than_a_string_and_so_is_its_absence() {
        assert_eq!(std::mem::size_of::<Text>(), 16);
        assert_eq!(std::mem::size_of::<Option<Text>>(), 16);
        assert!(std::mem::size_of::<Option<String>>() > 16);
    }

    #[test]
    fn text_reads_and_writes_as_a_json_string() {
        let t: Text = serde_json::from_str(r#""Київ \"центр\"""#).expect("a JSON string");
        assert_eq!(t, "Київ \"центр\"");
        assert_eq!(
            serde_json::to_string(&t).expect("text"),
            r#""Київ \"центр\"""#
        );
        assert_eq!(t.to_string(), "Київ \"центр\"");
        assert_eq!(format!("{t:?}"), r#""Київ \"центр\"""#);
    }
}
