//! TypeScript declarations from JSON schemas (the subset utoipa emits), read the way the
//! parent module describes: values as the Rust side produces them.

use serde_json::Value;

/// One `export type` of the generated file.
#[derive(Debug, Clone)]
pub struct Declaration {
    /// The TypeScript name, with type parameters if any (`ValidationResult<T>`).
    pub name: String,
    /// The schema as JSON; `$ref`s name other declarations by their last path segment.
    pub schema: Value,
}

/// `export type` lines for `declarations`, in order, each with its description as JSDoc.
pub fn typescript(declarations: &[Declaration]) -> String {
    let mut out = String::new();
    for decl in declarations {
        push_doc(&mut out, decl.schema.get("description"), "");
        out.push_str(&format!(
            "export type {} = {};\n",
            decl.name,
            ts(&decl.schema, "")
        ));
    }
    out
}

fn push_doc(out: &mut String, description: Option<&Value>, indent: &str) {
    let Some(text) = description.and_then(Value::as_str) else {
        return;
    };
    let lines: Vec<&str> = text.lines().collect();
    if let [one] = lines.as_slice() {
        out.push_str(&format!("{indent}/** {} */\n", one.trim()));
        return;
    }
    out.push_str(&format!("{indent}/**\n"));
    for line in lines {
        out.push_str(&format!("{indent} * {}\n", line.trim()).replace(" * \n", " *\n"));
    }
    out.push_str(&format!("{indent} */\n"));
}

/// Whether `schema` admits `null`: `type: [.., "null"]` or a `oneOf` branch `{type: null}`.
fn nullable(schema: &Value) -> bool {
    let null_type = |s: &Value| match s.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "null"),
        _ => false,
    };
    null_type(schema)
        || ["oneOf", "anyOf"].iter().any(|key| {
            schema
                .get(*key)
                .and_then(Value::as_array)
                .is_some_and(|items| items.iter().any(null_type))
        })
}

/// The TypeScript type of `schema`; `indent` is the indentation of the line it starts on.
fn ts(schema: &Value, indent: &str) -> String {
    ts_with(schema, indent, false)
}

/// [`ts`], leaving `null` out when `drop_null` (an optional member is absent, never `null`).
fn ts_with(schema: &Value, indent: &str, drop_null: bool) -> String {
    if let Some(Value::String(r)) = schema.get("$ref") {
        return r.rsplit('/').next().unwrap_or(r).to_owned();
    }
    for (key, joiner) in [("oneOf", " | "), ("anyOf", " | "), ("allOf", " & ")] {
        if let Some(items) = schema.get(key).and_then(Value::as_array) {
            let parts: Vec<String> = items
                .iter()
                .filter(|s| s.get("writeOnly") != Some(&Value::Bool(true)))
                .filter(|s| !(drop_null && s.get("type") == Some(&Value::from("null"))))
                .map(|s| ts_with(s, indent, drop_null))
                .collect();
            return parts.join(joiner);
        }
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let mut parts: Vec<String> = values.iter().map(Value::to_string).collect();
        if nullable(schema) && !drop_null && !values.contains(&Value::Null) {
            parts.push("null".into());
        }
        return parts.join(" | ");
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let parts: Vec<String> = types
        .iter()
        .filter(|t| !(drop_null && **t == "null"))
        .map(|t| match *t {
            "string" => "string".to_owned(),
            "integer" | "number" => "number".to_owned(),
            "boolean" => "boolean".to_owned(),
            "null" => "null".to_owned(),
            "array" => {
                let item = schema
                    .get("items")
                    .map_or("unknown".into(), |i| ts(i, indent));
                if item.contains(' ') {
                    format!("Array<{item}>")
                } else {
                    format!("{item}[]")
                }
            }
            "object" => object(schema, indent),
            _ => "unknown".to_owned(),
        })
        .collect();
    if parts.is_empty() {
        "unknown".into()
    } else {
        parts.join(" | ")
    }
}

fn identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

fn object(schema: &Value, indent: &str) -> String {
    let properties = schema.get("properties").and_then(Value::as_object);
    let map_values = schema.get("additionalProperties").filter(|v| v.is_object());
    let (Some(properties), _) = (properties, map_values) else {
        return match map_values {
            Some(values) => format!("{{ [key in string]?: {} }}", ts(values, indent)),
            None => "Record<string, unknown>".into(),
        };
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let inner = format!("{indent}  ");
    let mut out = String::from("{\n");
    for (name, property) in properties {
        // A description sits on the property, or beside the `$ref` in a nullable `oneOf`.
        let description = property.get("description").or_else(|| {
            property
                .get("oneOf")
                .and_then(Value::as_array)
                .and_then(|items| items.iter().find_map(|s| s.get("description")))
        });
        push_doc(&mut out, description, &inner);
        let optional = !required.contains(&name.as_str()) && nullable(property);
        let key = if identifier(name) {
            name.clone()
        } else {
            Value::from(name.as_str()).to_string()
        };
        out.push_str(&format!(
            "{inner}{key}{}: {};\n",
            if optional { "?" } else { "" },
            ts_with(property, &inner, optional)
        ));
    }
    out.push_str(indent);
    out.push('}');
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn one(schema: Value) -> String {
        typescript(&[Declaration {
            name: "X".into(),
            schema,
        }])
    }

    #[test]
    fn members_are_optional_only_when_skipped_options() {
        let schema = json!({"type": "object", "required": ["a", "n"], "properties": {
            "a": {"type": "string"},
            "n": {"type": ["integer", "null"]},
            "skipped": {"type": ["string", "null"]},
            "defaulted": {"$ref": "#/components/schemas/Orientation"},
            "maybe": {"oneOf": [{"type": "null"}, {"$ref": "#/components/schemas/Vfx", "description": "Doc."}]},
        }});
        assert_eq!(
            one(schema),
            "export type X = {\n  a: string;\n  defaulted: Orientation;\n  /** Doc. */\n  maybe?: Vfx;\n  n: number | null;\n  skipped?: string;\n};\n"
        );
    }

    #[test]
    fn enums_unions_maps_and_write_only_branches() {
        assert_eq!(
            one(json!({"type": "string", "enum": ["a", "b"], "description": "Two."})),
            "/** Two. */\nexport type X = \"a\" | \"b\";\n"
        );
        assert_eq!(
            one(
                json!({"oneOf": [{"$ref": "#/components/schemas/B"}, {"type": "boolean", "writeOnly": true}]})
            ),
            "export type X = B;\n"
        );
        assert_eq!(
            one(json!({"type": "object", "additionalProperties": {"$ref": "#/c/V"}})),
            "export type X = { [key in string]?: V };\n"
        );
        assert_eq!(
            one(json!({"type": "array", "items": {"type": ["string", "null"]}})),
            "export type X = Array<string | null>;\n"
        );
    }
}
