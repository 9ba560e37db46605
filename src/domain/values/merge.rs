//! PATCH merge, as upstream applies it: objects merge recursively, lists merge by index (a
//! shorter list truncates, a longer one appends), and a nested `null` removes the field.

use super::input::Input;
use serde_json::Value as Json;

/// Merges a client's change into a held record.
pub fn merge(target: &mut Json, patch: &Input<'_>) {
    match (target, patch) {
        (Json::Object(t), Input::Object(p)) => {
            for (key, value) in p.iter() {
                if value.is_null() {
                    t.remove(key);
                } else if let Some(existing) = t.get_mut(key) {
                    merge(existing, value);
                } else {
                    t.insert(key.to_string(), without_nulls(value));
                }
            }
        }
        (Json::Array(t), Input::Array(p)) => {
            t.truncate(p.len());
            for (i, value) in p.iter().enumerate() {
                match t.get_mut(i) {
                    Some(existing) => merge(existing, value),
                    None => t.push(without_nulls(value)),
                }
            }
        }
        (t, p) => *t = without_nulls(p),
    }
}

fn without_nulls(v: &Input<'_>) -> Json {
    match v {
        Input::Object(fields) => Json::Object(
            fields
                .iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.to_string(), without_nulls(v)))
                .collect(),
        ),
        Input::Array(list) => Json::Array(list.iter().map(without_nulls).collect()),
        other => other.to_value(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn merged(mut target: Json, patch: Json) -> Json {
        merge(&mut target, &Input::view(&patch));
        target
    }

    #[test]
    fn objects_merge_recursively() {
        assert_eq!(
            merged(
                json!({"a": {"b": 1, "c": 2}, "d": 3}),
                json!({"a": {"b": 5}, "e": 6})
            ),
            json!({"a": {"b": 5, "c": 2}, "d": 3, "e": 6})
        );
    }

    #[test]
    fn nested_null_removes() {
        assert_eq!(
            merged(json!({"a": {"b": 1, "c": 2}}), json!({"a": {"b": null}})),
            json!({"a": {"c": 2}})
        );
        assert_eq!(
            merged(json!({}), json!({"a": {"b": null, "c": 1}})),
            json!({"a": {"c": 1}})
        );
    }

    #[test]
    fn lists_merge_by_index_and_truncate() {
        assert_eq!(
            merged(
                json!({"items": [{"id": "1", "q": 1}, {"id": "2"}]}),
                json!({"items": [{}]})
            ),
            json!({"items": [{"id": "1", "q": 1}]})
        );
        assert_eq!(
            merged(
                json!({"items": [{"id": "1", "q": 1}]}),
                json!({"items": [{"q": 2}, {"id": "3"}]})
            ),
            json!({"items": [{"id": "1", "q": 2}, {"id": "3"}]})
        );
    }

    #[test]
    fn scalars_replace() {
        assert_eq!(
            merged(json!({"a": [1, 2]}), json!({"a": "x"})),
            json!({"a": "x"})
        );
    }
}
