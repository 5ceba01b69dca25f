"""SARIF 2.1.0 as far as skillc writes it, for the tests that check its output."""

# SARIF 2.1.0 as the OASIS schema defines the parts skillc writes (sarif-schema-2.1.0.json,
# transcribed: no package on the registries ships the official file, and tests run offline).
SARIF_SUBSET = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "required": ["version", "runs"],
    "properties": {
        "$schema": {"type": "string", "format": "uri"},
        "version": {"enum": ["2.1.0"]},
        "runs": {"type": "array", "items": {"$ref": "#/definitions/run"}},
    },
    "definitions": {
        "run": {
            "type": "object",
            "required": ["tool"],
            "properties": {
                "tool": {
                    "type": "object",
                    "required": ["driver"],
                    "properties": {"driver": {"$ref": "#/definitions/driver"}},
                },
                "results": {"type": "array", "items": {"$ref": "#/definitions/result"}},
                "columnKind": {"enum": ["utf16CodeUnits", "unicodeCodePoints"]},
            },
        },
        "driver": {
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string"},
                "version": {"type": "string"},
                "informationUri": {"type": "string", "format": "uri"},
                "rules": {
                    "type": "array",
                    "uniqueItems": True,
                    "items": {
                        "type": "object",
                        "required": ["id"],
                        "properties": {
                            "id": {"type": "string"},
                            "shortDescription": {"$ref": "#/definitions/message"},
                            "helpUri": {"type": "string", "format": "uri"},
                        },
                    },
                },
            },
        },
        "message": {
            "type": "object",
            "anyOf": [{"required": ["text"]}, {"required": ["id"]}],
            "properties": {"text": {"type": "string"}},
        },
        "result": {
            "type": "object",
            "required": ["message"],
            "additionalProperties": False,
            "properties": {
                "ruleId": {"type": "string"},
                "ruleIndex": {"type": "integer", "minimum": -1},
                "level": {"enum": ["none", "note", "warning", "error"]},
                "message": {"$ref": "#/definitions/message"},
                "locations": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "physicalLocation": {
                                "type": "object",
                                "anyOf": [{"required": ["address"]}, {"required": ["artifactLocation"]}],
                                "properties": {
                                    "artifactLocation": {
                                        "type": "object",
                                        "properties": {
                                            "uri": {"type": "string", "format": "uri-reference"},
                                            "uriBaseId": {"type": "string"},
                                        },
                                    },
                                    "region": {
                                        "type": "object",
                                        "properties": {
                                            "startLine": {"type": "integer", "minimum": 1},
                                            "startColumn": {"type": "integer", "minimum": 1},
                                        },
                                    },
                                },
                            }
                        },
                    },
                },
            },
        },
    },
}
