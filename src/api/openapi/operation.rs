//! A small builder for the operations of the description, so that each route is one line
//! of [`super::paths`] naming what differs: summary, body, answer, who may call it.

use serde_json::{Map, Value as Json, json};

/// The HTTP methods an OpenAPI path item may hold.
pub const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// One operation of a path item.
pub struct Op {
    method: &'static str,
    body: Map<String, Json>,
    responses: Map<String, Json>,
    parameters: Vec<Json>,
}

fn schema_ref(name: &str) -> Json {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

/// `{"data": <schema>}`, the shape of every request and success body.
fn enveloped(data: Json) -> Json {
    json!({"type": "object", "required": ["data"], "properties": {"data": data}})
}

fn op(method: &'static str, tag: &str, summary: &str) -> Op {
    let mut body = Map::new();
    body.insert("tags".into(), json!([tag]));
    body.insert("summary".into(), json!(summary));
    Op {
        method,
        body,
        responses: Map::new(),
        parameters: vec![json!({"$ref": "#/components/parameters/opt_pretty"})],
    }
}

pub fn get(tag: &str, summary: &str) -> Op {
    op("get", tag, summary).errors(&[404])
}
pub fn head(tag: &str, summary: &str) -> Op {
    let mut o = op("head", tag, summary).errors(&[404]);
    o.responses.insert(
        "200".into(),
        json!({"description": "The same headers as GET, no body."}),
    );
    o
}
pub fn post(tag: &str, summary: &str) -> Op {
    op("post", tag, summary).errors(&[400, 403, 404, 413, 415, 422])
}
pub fn patch(tag: &str, summary: &str) -> Op {
    op("patch", tag, summary).errors(&[400, 403, 404, 413, 415, 422])
}
pub fn put(tag: &str, summary: &str) -> Op {
    op("put", tag, summary).errors(&[400, 403, 404, 413, 415, 422])
}
pub fn delete(tag: &str, summary: &str) -> Op {
    op("delete", tag, summary).errors(&[403, 404, 422])
}

impl Op {
    /// Error answers, each the envelope.
    pub fn errors(mut self, codes: &[u16]) -> Op {
        for code in codes {
            self.responses.insert(
                code.to_string(),
                json!({"$ref": format!("#/components/responses/Error{code}")}),
            );
        }
        self
    }

    /// 200 with `{"data": <schema>}`.
    pub fn ok(mut self, schema: &str) -> Op {
        self.responses.insert(
            "200".into(),
            json!({"description": "OK", "content": {"application/json": {"schema": enveloped(schema_ref(schema))}}}),
        );
        self
    }

    /// 200 with `{"data": [<schema>]}`.
    pub fn ok_list(mut self, schema: &str) -> Op {
        let list = json!({"type": "array", "items": schema_ref(schema)});
        self.responses.insert(
            "200".into(),
            json!({"description": "OK", "content": {"application/json": {"schema": enveloped(list)}}}),
        );
        self
    }

    /// 200 with a body of its own shape (not enveloped).
    pub fn ok_whole(mut self, schema: &str) -> Op {
        self.responses.insert(
            "200".into(),
            json!({"description": "OK", "content": {"application/json": {"schema": schema_ref(schema)}}}),
        );
        self
    }

    /// 200 with a page of one of `media_types`.
    pub fn ok_page(mut self, media_types: &[&str]) -> Op {
        let content: Map<String, Json> = media_types
            .iter()
            .map(|m| (m.to_string(), json!({"schema": {"type": "string"}})))
            .collect();
        self.responses.insert(
            "200".into(),
            json!({"description": "OK", "content": content}),
        );
        self
    }

    /// The same as [`Op::ok_page`], or `{"data": <an object>}` to a request that asks for JSON.
    pub fn ok_page_or_json(self, media_types: &[&str]) -> Op {
        let mut op = self.ok_page(media_types);
        if let Some(content) = op
            .responses
            .get_mut("200")
            .and_then(|r| r.get_mut("content"))
            .and_then(Json::as_object_mut)
        {
            content.insert(
                "application/json".into(),
                json!({"schema": enveloped(json!({"type": "object"}))}),
            );
        }
        op
    }

    /// The 200 also as text of `media_type` (a report as JUnit XML), to a request that asks.
    pub fn ok_also_as(mut self, media_type: &str) -> Op {
        if let Some(content) = self
            .responses
            .get_mut("200")
            .and_then(|r| r.get_mut("content"))
            .and_then(Json::as_object_mut)
        {
            content.insert(media_type.into(), json!({"schema": {"type": "string"}}));
        }
        self
    }

    /// 201 with `Location` and `{"data": <schema>}`, plus `access.token` when `token`.
    pub fn created(mut self, schema: &str, token: bool) -> Op {
        let mut body = enveloped(schema_ref(schema));
        if token {
            body["required"] = json!(["data", "access"]);
            body["properties"]["access"] = schema_ref("Access");
        }
        self.responses.insert(
            "201".into(),
            json!({
                "description": "Created",
                "headers": {"Location": {"$ref": "#/components/headers/Location"}},
                "content": {"application/json": {"schema": body}},
            }),
        );
        self
    }

    /// 201 with `Location` and a body of its own shape (not enveloped).
    pub fn created_whole(mut self, schema: &str) -> Op {
        self.responses.insert(
            "201".into(),
            json!({
                "description": "Created",
                "headers": {"Location": {"$ref": "#/components/headers/Location"}},
                "content": {"application/json": {"schema": schema_ref(schema)}},
            }),
        );
        self
    }

    /// 200 with `{"data": <schema>, "access": {"token"}}`: new credentials for an object.
    pub fn created_ok(mut self, schema: &str) -> Op {
        let mut body = enveloped(schema_ref(schema));
        body["required"] = json!(["data", "access"]);
        body["properties"]["access"] = schema_ref("Access");
        self.responses.insert(
            "200".into(),
            json!({"description": "OK", "content": {"application/json": {"schema": body}}}),
        );
        self
    }

    /// A redirect to the address the answer names.
    pub fn redirect(mut self) -> Op {
        self.responses.insert(
            "302".into(),
            json!({"description": "Found: the stored file's address", "headers": {"Location": {"$ref": "#/components/headers/Location"}}}),
        );
        self
    }

    /// An answer with a plain-text body (the document service's probe and refusals).
    pub fn plain(mut self, code: u16, description: &str) -> Op {
        self.responses.insert(
            code.to_string(),
            json!({"description": description, "content": {"text/plain": {"schema": {"type": "string"}}}}),
        );
        self
    }

    /// 200 with a stored file's bytes in its own media type, 204 for an empty file.
    pub fn file(mut self) -> Op {
        self.responses.insert(
            "200".into(),
            json!({"description": "The file's bytes, its stored Content-Type and a Content-Disposition with its name", "content": {"*/*": {"schema": {"type": "string", "format": "binary"}}}}),
        );
        self.responses
            .insert("204".into(), json!({"description": "An empty file"}));
        self
    }

    /// A multipart upload with a `file` part.
    pub fn multipart(mut self) -> Op {
        self.body.insert(
            "requestBody".into(),
            json!({"required": true, "content": {"multipart/form-data": {"schema": {"type": "object", "required": ["file"], "properties": {"file": {"type": "string", "format": "binary"}}}}}}),
        );
        self
    }

    /// A JSON request body `{"data": <schema>}`.
    pub fn body(mut self, schema: &str) -> Op {
        self.body.insert(
            "requestBody".into(),
            json!({"required": true, "content": {"application/json": {"schema": enveloped(schema_ref(schema))}}}),
        );
        self
    }

    /// A JSON request body `{"data": <schema>}` with a valid example, so that a fuzzer's
    /// first request creates something the later ones can use.
    pub fn body_example(mut self, schema: &str, example: Json) -> Op {
        self = self.body(schema);
        self.body["requestBody"]["content"]["application/json"]["example"] =
            json!({ "data": example });
        self
    }

    /// An answer of its own shape for `code`, described in the components' `responses`.
    pub fn answers(mut self, code: u16, response: &str) -> Op {
        self.responses.insert(
            code.to_string(),
            json!({"$ref": format!("#/components/responses/{response}")}),
        );
        self
    }

    /// Called with any one of the security `schemes`.
    pub fn security(mut self, schemes: &[&str]) -> Op {
        let options: Vec<Json> = schemes.iter().map(|s| json!({ *s: [] })).collect();
        self.body.insert("security".into(), Json::Array(options));
        self
    }

    /// Called by a broker (HTTP Basic).
    pub fn broker(mut self) -> Op {
        self.body.insert("security".into(), json!([{"broker": []}]));
        self
    }

    /// Called with an object's access token (`acc_token`, `X-Access-Token`, or
    /// `access.token` in the body).
    pub fn token(mut self) -> Op {
        self.body.insert(
            "security".into(),
            json!([{"acc_token": []}, {"X-Access-Token": []}]),
        );
        self.query(
            "acc_token",
            json!({"type": "string"}),
            "The access token (or the X-Access-Token header, or access.token in the body)",
        )
    }

    /// A query parameter of the operation.
    pub fn query(mut self, name: &str, schema: Json, description: &str) -> Op {
        self.parameters.push(json!({
            "name": name, "in": "query", "required": false,
            "schema": schema, "description": description,
        }));
        self
    }

    /// A request header of the operation.
    pub fn header(mut self, name: &str, schema: Json, description: &str) -> Op {
        self.parameters.push(json!({
            "name": name, "in": "header", "required": false,
            "schema": schema, "description": description,
        }));
        self
    }

    /// Served only by a server started with one of `options`.
    pub fn only_with(mut self, options: &[&str]) -> Op {
        self.body.insert("x-only-with".into(), json!(options));
        self
    }

    fn into_json(mut self, path_parameters: &[Json]) -> Json {
        let mut parameters = path_parameters.to_vec();
        parameters.append(&mut self.parameters);
        self.body
            .insert("parameters".into(), Json::Array(parameters));
        self.body
            .insert("responses".into(), Json::Object(self.responses));
        Json::Object(self.body)
    }
}

/// A path item: its operations, with a string parameter for every `{name}` of the path.
pub fn item(path: &str, ops: Vec<Op>) -> (String, Json) {
    let path_parameters: Vec<Json> = path
        .split('/')
        .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
        .map(|name| {
            json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}})
        })
        .collect();
    let mut methods = Map::new();
    for op in ops {
        let method = op.method;
        let mut operation = op.into_json(&path_parameters);
        operation["operationId"] = json!(super::links::operation_id(method, path));
        methods.insert(method.into(), operation);
    }
    (path.to_string(), Json::Object(methods))
}
