//! The JSON readers accept: what Python's `json` scanner reads with `strict=True`, less what
//! format 2 refuses (docs/format.md): duplicate keys, NaN and infinities (spelled or reached by
//! overflow, as `1e400`), lone surrogates, and integers outside [-2^63, 2^64).
//!
//! serde_json's own `Value` keeps the last of duplicate keys and its parser differs from
//! Python's at the edges, so documents are parsed here into `Json`, which keeps object keys in
//! document order (the order `all_commands` and `exceptions` are read in) and integers exactly.

use std::collections::HashMap;

/// A parsed JSON value.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    /// An integer, as written without a sign or leading zeros (Python reads it exactly).
    Int {
        negative: bool,
        digits: String,
    },
    Float(f64),
    Str(String),
    Array(Vec<Json>),
    Object(Object),
}

/// An object: its members in document order, and an index by key (keys are unique).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Object {
    members: Vec<(String, Json)>,
    index: HashMap<String, usize>,
}

impl Object {
    pub fn get(&self, key: &str) -> Option<&Json> {
        self.index.get(key).map(|&i| &self.members[i].1)
    }
    pub fn contains(&self, key: &str) -> bool {
        self.index.contains_key(key)
    }
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Json)> {
        self.members.iter().map(|(k, v)| (k, v))
    }
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.members.iter().map(|(k, _)| k)
    }
    pub fn len(&self) -> usize {
        self.members.len()
    }
}

impl Json {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Json::Object(o) => Some(o),
            _ => None,
        }
    }
    pub fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Array(a) => Some(a),
            _ => None,
        }
    }
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(b) => Some(*b),
            _ => None,
        }
    }
    /// A non-negative integer (Python's `isinstance(v, int) and v >= 0`, bool excluded; every
    /// integer the parser keeps is in [-2^63, 2^64)).
    pub fn as_count(&self) -> Option<u64> {
        match self {
            Json::Int { negative: false, digits } => digits.parse().ok(),
            Json::Int { negative: true, digits } if digits == "0" => Some(0),
            _ => None,
        }
    }
    /// Whether the value is the integer `n` itself (not a float equal to it, not a boolean).
    pub fn equals_int(&self, n: u64) -> bool {
        matches!(self, Json::Int { .. }) && self.as_count() == Some(n)
    }
    /// The value as serde_json holds it (integers beyond 64 bits become floats, as serde_json's
    /// own parser makes them).
    pub fn to_serde(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Int { negative, digits } => int_to_serde(*negative, digits),
            Json::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
            Json::Str(s) => Value::String(s.clone()),
            Json::Array(a) => Value::Array(a.iter().map(Json::to_serde).collect()),
            Json::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), v.to_serde())).collect()),
        }
    }
}

fn int_to_serde(negative: bool, digits: &str) -> serde_json::Value {
    let text = if negative { format!("-{}", digits) } else { digits.to_string() };
    if let Ok(n) = text.parse::<i64>() {
        return n.into();
    }
    if let Ok(n) = text.parse::<u64>() {
        return n.into();
    }
    let f: f64 = text.parse().unwrap_or(0.0);
    serde_json::Number::from_f64(f).map_or(serde_json::Value::Null, serde_json::Value::Number)
}

/// Integers are kept in [-2^63, 2^64): the ones the compiler writes, and every reader keeps
/// exactly.
fn int_in_range(negative: bool, digits: &str) -> bool {
    if negative {
        digits.parse::<u64>().map_or(false, |n| n <= 1 << 63)
    } else {
        digits.parse::<u64>().is_ok()
    }
}

/// How deep arrays and objects may nest, the top-level value being level 1: a deeper document
/// is refused whole (docs/format.md §3).
pub const MAX_DEPTH: usize = 64;

/// Parse a whole document: JSON whitespace (space, tab, LF, CR) around one value, nothing else.
pub fn parse(text: &str) -> Result<Json, String> {
    let mut p = Parser { s: text.as_bytes(), text, i: 0, depth: 0 };
    p.space();
    let value = p.value()?;
    p.space();
    if p.i != p.s.len() {
        return Err(format!("extra data after the JSON value at byte {}", p.i));
    }
    Ok(value)
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    fn space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.s.get(self.i) {
            self.i += 1;
        }
    }

    fn fail<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("{} at byte {}", what, self.i))
    }

    fn eat(&mut self, word: &str) -> bool {
        if self.s[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Result<Json, String> {
        match self.s.get(self.i) {
            Some(b'"') => self.string().map(Json::Str),
            Some(b'{') => self.nested(Self::object),
            Some(b'[') => self.nested(Self::array),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ if self.eat("null") => Ok(Json::Null),
            _ if self.eat("true") => Ok(Json::Bool(true)),
            _ if self.eat("false") => Ok(Json::Bool(false)),
            _ if self.s[self.i..].starts_with(b"NaN") || self.s[self.i..].starts_with(b"Infinity") => {
                self.fail("NaN and Infinity are not format 2 JSON")
            }
            _ => self.fail("no JSON value"),
        }
    }

    fn nested(&mut self, parse: fn(&mut Self) -> Result<Json, String>) -> Result<Json, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.fail(&format!("nested deeper than {} levels", MAX_DEPTH));
        }
        let out = parse(self);
        self.depth -= 1;
        out
    }

    fn object(&mut self) -> Result<Json, String> {
        self.i += 1;
        let mut obj = Object::default();
        self.space();
        if self.eat("}") {
            return Ok(Json::Object(obj));
        }
        loop {
            if self.s.get(self.i) != Some(&b'"') {
                return self.fail("expecting a property name in double quotes");
            }
            let key = self.string()?;
            self.space();
            if !self.eat(":") {
                return self.fail("expecting ':'");
            }
            self.space();
            let value = self.value()?;
            if obj.index.contains_key(&key) {
                return Err(format!("duplicate key {:?}", key));
            }
            obj.index.insert(key.clone(), obj.members.len());
            obj.members.push((key, value));
            self.space();
            if self.eat("}") {
                return Ok(Json::Object(obj));
            }
            if !self.eat(",") {
                return self.fail("expecting ',' or '}'");
            }
            self.space();
        }
    }

    fn array(&mut self) -> Result<Json, String> {
        self.i += 1;
        let mut items = Vec::new();
        self.space();
        if self.eat("]") {
            return Ok(Json::Array(items));
        }
        loop {
            items.push(self.value()?);
            self.space();
            if self.eat("]") {
                return Ok(Json::Array(items));
            }
            if !self.eat(",") {
                return self.fail("expecting ',' or ']'");
            }
            self.space();
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while let Some(b'0'..=b'9') = self.s.get(self.i) {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Result<Json, String> {
        let start = self.i;
        let negative = self.eat("-");
        if self.s[self.i..].starts_with(b"Infinity") {
            return self.fail("-Infinity is not format 2 JSON");
        }
        let int_start = self.i;
        match self.s.get(self.i) {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return self.fail("no JSON value"),
        }
        let int_end = self.i;
        let mut float = false;
        // A fraction or exponent without digits ends the number before it, as in Python; the
        // character left over then fails the document.
        if self.s.get(self.i) == Some(&b'.') && matches!(self.s.get(self.i + 1), Some(b'0'..=b'9')) {
            self.i += 1;
            self.digits();
            float = true;
        }
        if let Some(b'e' | b'E') = self.s.get(self.i) {
            let save = self.i;
            self.i += 1;
            if let Some(b'+' | b'-') = self.s.get(self.i) {
                self.i += 1;
            }
            if self.digits() == 0 {
                self.i = save;
            } else {
                float = true;
            }
        }
        if !float {
            let digits = self.text[int_start..int_end].to_string();
            if !int_in_range(negative, &digits) {
                return Err(format!("integer at byte {} is out of range", start));
            }
            return Ok(Json::Int { negative, digits });
        }
        let f: f64 = self.text[start..self.i].parse().map_err(|_| format!("bad number at byte {}", start))?;
        if !f.is_finite() {
            return Err(format!(
                "number at byte {} is out of range (infinities are not format 2 JSON)",
                start
            ));
        }
        Ok(Json::Float(f))
    }

    fn string(&mut self) -> Result<String, String> {
        self.i += 1;
        let mut out = String::new();
        loop {
            let run = self.i;
            while let Some(&b) = self.s.get(self.i) {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.i += 1;
            }
            out.push_str(&self.text[run..self.i]);
            match self.s.get(self.i) {
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    self.escape(&mut out)?;
                }
                Some(_) => return self.fail("invalid control character in a string"),
                None => return self.fail("unterminated string"),
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), String> {
        let c = match self.s.get(self.i) {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                self.i += 1;
                return self.unicode_escape(out);
            }
            _ => return self.fail("invalid escape"),
        };
        self.i += 1;
        out.push(c);
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let hex = self
            .s
            .get(self.i..self.i + 4)
            .ok_or_else(|| format!("invalid \\uXXXX escape at byte {}", self.i))?;
        if !hex.iter().all(u8::is_ascii_hexdigit) {
            return self.fail("invalid \\uXXXX escape");
        }
        self.i += 4;
        Ok(u32::from_str_radix(std::str::from_utf8(hex).unwrap_or("0"), 16).unwrap_or(0))
    }

    fn unicode_escape(&mut self, out: &mut String) -> Result<(), String> {
        let first = self.hex4()?;
        let code = if (0xD800..0xDC00).contains(&first) && self.s[self.i..].starts_with(b"\\u") {
            let save = self.i;
            self.i += 2;
            let second = self.hex4()?;
            if (0xDC00..0xE000).contains(&second) {
                0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            } else {
                self.i = save;
                first
            }
        } else {
            first
        };
        match char::from_u32(code) {
            Some(c) => {
                out.push(c);
                Ok(())
            }
            None => self.fail("lone surrogate (not format 2 JSON)"),
        }
    }
}
