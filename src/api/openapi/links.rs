//! Links from every creation to the operations on what it created, derived from the paths
//! themselves: `POST {collection}` answering 201 leads to the operations of
//! `{collection}/{id}` and its sub-collections, with the new id from the answer and the access
//! token from the answer (or, where the creation answers none, the one the creation was sent
//! with). Client generators and Schemathesis's stateful tests follow them.

use serde_json::{Map, Value as Json, json};

/// `post /api/2.3/tenders` → `post_api_2_3_tenders`.
pub fn operation_id(method: &str, path: &str) -> String {
    let mut id = method.to_string();
    for c in path.chars() {
        id.push(if c.is_ascii_alphanumeric() { c } else { '_' });
    }
    while id.contains("__") {
        id = id.replace("__", "_");
    }
    id.trim_end_matches('_').to_string()
}

fn path_parameters(path: &str) -> Vec<&str> {
    path.split('/')
        .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
        .collect()
}

fn takes_token(operation: &Json) -> bool {
    operation["parameters"]
        .as_array()
        .is_some_and(|ps| ps.iter().any(|p| p["name"] == "acc_token"))
}

/// Adds `links` to the 201 answer of every creation in `paths`.
pub fn add(paths: &mut Map<String, Json>) {
    let creations: Vec<(String, bool, bool)> = paths
        .iter()
        .filter_map(|(path, item)| {
            let post = item.get("post")?;
            let created = post.get("responses")?.get("201")?;
            let answers_token = created["content"]["application/json"]["schema"]["properties"]
                .get("access")
                .is_some();
            Some((path.clone(), answers_token, takes_token(post)))
        })
        .collect();
    for (collection, answers_token, sent_token) in creations {
        let prefix = format!("{collection}/{{");
        let mut links = Map::new();
        for (path, item) in paths.iter() {
            let Some(rest) = path.strip_prefix(&prefix) else {
                continue;
            };
            let Some((new, tail)) = rest.split_once('}') else {
                continue;
            };
            if tail.contains('{') {
                continue;
            }
            for (method, operation) in item.as_object().into_iter().flatten() {
                let mut parameters = Map::new();
                for name in path_parameters(&collection) {
                    parameters.insert(
                        format!("path.{name}"),
                        json!(format!("$request.path.{name}")),
                    );
                }
                parameters.insert(format!("path.{new}"), json!("$response.body#/data/id"));
                if takes_token(operation) {
                    if answers_token {
                        parameters.insert(
                            "query.acc_token".into(),
                            json!("$response.body#/access/token"),
                        );
                    } else if sent_token {
                        parameters
                            .insert("query.acc_token".into(), json!("$request.query.acc_token"));
                    }
                }
                let target = operation_id(method, path);
                links.insert(
                    target.clone(),
                    json!({"operationId": target, "parameters": parameters}),
                );
            }
        }
        if !links.is_empty()
            && let Some(created) = paths
                .get_mut(&collection)
                .and_then(|item| item.pointer_mut("/post/responses/201"))
        {
            created["links"] = Json::Object(links);
        }
    }
}
