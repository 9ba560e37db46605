//! Test mode (`mode: "test"`): every title of such a record carries its language's marker.

use super::text::Text;

pub const PREFIX: &str = "[ТЕСТУВАННЯ] ";
pub const PREFIX_EN: &str = "[TESTING] ";
pub const PREFIX_RU: &str = "[ТЕСТИРОВАНИЕ] ";

/// A title with `prefix` before it unless it already holds the marker (the prefix without its
/// space), as upstream marked them on every save; no title at all becomes the prefix alone.
pub fn marked(title: Option<&str>, prefix: &str) -> Text {
    let title = title.unwrap_or_default();
    if title.contains(prefix.trim_end()) {
        title.into()
    } else {
        format!("{prefix}{title}").into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_is_marked_once() {
        assert_eq!(marked(Some("Папір"), PREFIX), "[ТЕСТУВАННЯ] Папір");
        assert_eq!(
            marked(Some("[ТЕСТУВАННЯ] Папір"), PREFIX),
            "[ТЕСТУВАННЯ] Папір"
        );
        assert_eq!(
            marked(Some("Закупівля [ТЕСТУВАННЯ]"), PREFIX),
            "Закупівля [ТЕСТУВАННЯ]"
        );
        assert_eq!(marked(None, PREFIX_EN), "[TESTING] ");
    }
}
