"""Writes `.cog/openapi_schema.json` for the predictor in the working directory, as `cog build`
would: Cog's HTTP server validates prediction inputs (422 with `detail: [{loc, msg, type}]`)
only when that file is there. The schema generator of `cog build` is part of Cog's command-line
tool, which the `cog` Python package does not ship, so this reads the predictor's inputs and
output with the package's own inspector and writes the OpenAPI document's `Input` and `Output`
schemas in the shape `cog build` writes them.

    cd tests/cog/depth && python ../openapi_schema.py predict.py:Predictor
"""
import json
import os
import sys

from cog import _inspector


def input_schema(inputs):
    properties = {}
    required = []
    for name, field in sorted(inputs.items(), key=lambda item: item[1].order):
        prop = {"title": name.replace("_", " ").title(), "x-order": field.order}
        prop.update(field.type.json_type())
        if field.description is not None:
            prop["description"] = field.description
        if field.default is not None:
            prop["default"] = field.default
        if field.choices is not None:
            prop["enum"] = field.choices
        for key, value in (("minimum", field.ge), ("maximum", field.le),
                           ("minLength", field.min_length), ("maxLength", field.max_length),
                           ("pattern", field.regex)):
            if value is not None:
                prop[key] = value
        properties[name] = prop
        optional = field.type.repetition.name.startswith("OPTIONAL")
        if field.default is None and not optional:
            required.append(name)
    schema = {"type": "object", "title": "Input", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def main():
    ref = sys.argv[1] if len(sys.argv) > 1 else "predict.py:Predictor"
    module_file, predictor = ref.split(":")
    sys.path.insert(0, os.getcwd())
    info = _inspector.create_predictor(module_file.removesuffix(".py"), predictor)
    document = {
        "openapi": "3.0.2",
        "info": {"title": "Cog", "version": "0.1.0"},
        "paths": {},
        "components": {"schemas": {
            "Input": input_schema(info.inputs),
            "Output": info.output.json_type(),
        }},
    }
    os.makedirs(".cog", exist_ok=True)
    with open(os.path.join(".cog", "openapi_schema.json"), "w", encoding="utf-8") as f:
        json.dump(document, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
