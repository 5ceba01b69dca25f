//! Tool results the reader renders: a loaded skill's `<skill_content>`, and argument
//! substitution (prompts.py).

use crate::error::ReaderError;
use crate::format::{escape_attr, escape_delimiter, escape_text};
use crate::json::Json;
use crate::records::By;
use crate::unicode::split_whitespace;

/// A child skill the persona's model may load, listed in a loaded skill's `<sub_skills>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SubSkill {
    pub command: String,
    pub name: String,
    pub description: String,
    pub label: String,
}

/// A knowledge doc a skill names (sven's `knowledge:`): its path (in the build's knowledge
/// folder, when it has one) and its title, when the build found one.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KnowledgeDoc {
    pub path: String,
    pub title: Option<String>,
}

/// A skill resolved for a persona, its arguments substituted (`Dist::load`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LoadedSkill {
    pub persona: String,
    pub command: String,
    pub name: String,
    pub description: String,
    /// The body, substituted; it begins with Claude Code's `Base directory for this skill:`
    /// line when the skill was loaded with a base folder.
    pub body: String,
    pub access: String,
    pub overlay: Option<String>,
    /// The first bundled files (at most 20), relative to the skill.
    pub files: Vec<String>,
    pub sub_skills: Vec<SubSkill>,
    pub context: String,
    pub agent: Option<String>,
    pub model: Option<String>,
    pub allowed_tools: Vec<String>,
    pub knowledge: Vec<String>,
    /// The skill's folder on this machine, when known (`${CLAUDE_SKILL_DIR}` is it).
    pub base: Option<String>,
    /// The `knowledge` entries as docs, with their titles.
    pub knowledge_docs: Vec<KnowledgeDoc>,
    /// What the skill is shown as: its frontmatter `name` as written, else `name` (docs/format.md §7).
    pub label: String,
}

impl LoadedSkill {
    /// sven's `<skill_content>` tool result (`render_skill`).
    pub fn render(&self) -> String {
        render_skill(self)
    }

    /// The `<skill_content>` block beginning with Claude Code's base directory line, for a skill
    /// loaded without a base (a base from `load` stands). `LoadOptions::base` is better: it also
    /// gives `${CLAUDE_SKILL_DIR}` its value.
    pub fn render_with_base(&self, base: &str) -> String {
        match self.base {
            Some(_) => render_skill(self),
            None => render_body(self, &based(base, &self.body)),
        }
    }
}

/// How `Dist::load_with` loads a skill: its arguments, values for Claude Code's variables, who
/// invokes it, and its folder on this machine.
///
/// ```
/// use skillc_reader::{By, LoadOptions};
/// let slash_command = LoadOptions::new().by(By::User).args("analyse the auth module");
/// let tool_call = LoadOptions::new().base("/home/me/.sven/skills/sven/plan");
/// # let _ = (slash_command, tool_call);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// The arguments: none, a line as typed, or words.
    pub args: Option<Args>,
    /// Values for `${CLAUDE_SESSION_ID}`, `${CLAUDE_EFFORT}` and `${CLAUDE_PROJECT_DIR}`.
    pub params: Params,
    /// Who invokes the skill (the model by default): `NotInvocable` when the build says that
    /// invoker may not.
    pub by: By,
    /// The skill's folder on this machine (default: under its build's root, when the host named
    /// one): the body then begins with Claude Code's `Base directory for this skill:` line, and
    /// `${CLAUDE_SKILL_DIR}` is it.
    pub base: Option<String>,
}

impl LoadOptions {
    /// The model's load, without arguments.
    pub fn new() -> LoadOptions {
        LoadOptions::default()
    }

    pub fn args(self, args: impl Into<Args>) -> LoadOptions {
        LoadOptions { args: Some(args.into()), ..self }
    }

    pub fn params(self, params: Params) -> LoadOptions {
        LoadOptions { params, ..self }
    }

    pub fn by(self, by: By) -> LoadOptions {
        LoadOptions { by, ..self }
    }

    pub fn base(self, base: impl Into<String>) -> LoadOptions {
        LoadOptions { base: Some(base.into()), ..self }
    }
}

/// The body with Claude Code's base directory line before it.
pub(crate) fn based(base: &str, body: &str) -> String {
    format!("Base directory for this skill: {}\n\n{}", base, body)
}

/// A skill's arguments: a line as typed (split shell-style into words), or the words themselves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Args {
    Line(String),
    Words(Vec<String>),
}

impl From<&str> for Args {
    fn from(line: &str) -> Self {
        Args::Line(line.to_string())
    }
}

impl From<String> for Args {
    fn from(line: String) -> Self {
        Args::Line(line)
    }
}

impl From<Vec<String>> for Args {
    fn from(words: Vec<String>) -> Self {
        Args::Words(words)
    }
}

impl From<&[&str]> for Args {
    fn from(words: &[&str]) -> Self {
        Args::Words(words.iter().map(|w| w.to_string()).collect())
    }
}

/// sven's `<skill_content>` tool result: body, bundled files, sub-skill hint, knowledge docs
/// (docs/format.md §10).
pub fn render_skill(s: &LoadedSkill) -> String {
    render_body(s, &s.body)
}

fn render_body(s: &LoadedSkill, body: &str) -> String {
    let mut parts = vec![
        format!("<skill_content command=\"{}\" name=\"{}\">", escape_attr(&s.command), escape_attr(&s.label)),
        body.trim_end_matches('\n').to_string(),
        String::new(),
    ];
    if !s.files.is_empty() {
        parts.push("Bundled files (load with the resource tool, paths relative to this skill):".into());
        parts.extend(s.files.iter().map(|f| format!("  - {}", f)));
        parts.push(String::new());
    }
    if !s.sub_skills.is_empty() {
        parts.push("<sub_skills>".into());
        parts.push("<!-- Call load_skill(command) to load any sub-skill's full instructions. -->".into());
        parts.extend(s.sub_skills.iter().map(|c| {
            format!(
                "  <sub_skill command=\"{}\" name=\"{}\">{}</sub_skill>",
                escape_attr(&c.command),
                escape_attr(&c.label),
                escape_text(&c.description)
            )
        }));
        parts.push("</sub_skills>".into());
    }
    // a record made by hand may list knowledge without its docs
    let by_hand: Vec<KnowledgeDoc>;
    let docs = if s.knowledge_docs.is_empty() {
        by_hand = s.knowledge.iter().map(|k| KnowledgeDoc { path: k.clone(), title: None }).collect();
        &by_hand
    } else {
        &s.knowledge_docs
    };
    if !docs.is_empty() {
        parts.push("Relevant knowledge docs (use search_knowledge or read_file to load):".into());
        let width =
            docs.iter().filter(|d| d.title.is_some()).map(|d| d.path.chars().count()).max().unwrap_or(0);
        parts.extend(docs.iter().map(|d| match &d.title {
            None => format!("  - {}", d.path),
            Some(title) => {
                let pad = " ".repeat(width.saturating_sub(d.path.chars().count()));
                format!("  - {}{} ({})", d.path, pad, title)
            }
        }));
    }
    parts.push("</skill_content>".into());
    parts.join("\n") + "\n"
}

/// The variables Claude Code always fills, besides `CLAUDE_SKILL_DIR` (`skill_dir`); a `Params`
/// holds values for these names only (tests/harness/golden/claude@2.1.330/args.json).
pub const PARAMS: [&str; 3] = ["CLAUDE_SESSION_ID", "CLAUDE_EFFORT", "CLAUDE_PROJECT_DIR"];

/// Values for `${CLAUDE_SESSION_ID}`, `${CLAUDE_EFFORT}` and `${CLAUDE_PROJECT_DIR}`, keyed by the
/// variable's name as in the Python reader's `params` mapping; a variable not given stays as
/// written. Only the names of `PARAMS` can be set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Params {
    values: Vec<(&'static str, String)>,
}

impl Params {
    /// No values: every variable stays as written.
    pub fn new() -> Params {
        Params::default()
    }

    /// These params with `name` set to `value`; `ReaderError::Reader` when `name` is not one of
    /// `PARAMS`.
    pub fn with(mut self, name: &str, value: impl Into<String>) -> Result<Params, ReaderError> {
        let known = match PARAMS.iter().find(|p| **p == name) {
            Some(known) => known,
            None => {
                let known = PARAMS.join(", ");
                return Err(ReaderError::Reader(format!("params: {:?} is not one of {}", name, known)));
            }
        };
        let value = value.into();
        match self.values.iter_mut().find(|(n, _)| n == known) {
            Some(slot) => slot.1 = value,
            None => self.values.push((known, value)),
        }
        Ok(self)
    }

    /// Params from (name, value) pairs, checked as `with` does.
    pub fn from_pairs<K: AsRef<str>, V: Into<String>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Result<Params, ReaderError> {
        pairs.into_iter().try_fold(Params::new(), |params, (k, v)| params.with(k.as_ref(), v))
    }

    /// The value given for `name`, if any.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }
}

/// Claude Code 2.1.330's argument substitution (prompts.py `substitute`, docs/format.md §8).
///
/// `${CLAUDE_SKILL_DIR}` becomes `skill_dir` and each variable of `PARAMS` its value in `params`,
/// when given (a backslash before them is kept). With `args`: `$ARGUMENTS` is the argument line
/// as typed, whatever follows (`$ARGUMENTS_x`); `$ARGUMENTS[N]` and `$N` (0-based) its
/// shell-style words, unchanged when there is no such word, and `$N` only when no word character
/// follows (`$1x` stays); `$name` for each name of the skill's `arguments:` list the word at that
/// position (empty when missing), unless a word character or `[` follows. One backslash, not
/// after another, escapes such a placeholder. When no placeholder used them, given arguments are
/// appended as `\n\nARGUMENTS: <value>`.
pub fn substitute(
    body: &str,
    args: Option<&Args>,
    names: &[String],
    skill_dir: Option<&str>,
    params: &Params,
) -> String {
    let mut variables: Vec<(String, String)> = Vec::new();
    if let Some(dir) = skill_dir {
        variables.push(("{CLAUDE_SKILL_DIR}".to_string(), dir.to_string()));
    }
    // params are escaped as an argument is: they may be text a user chose (a folder's name)
    variables.extend(params.values.iter().map(|(n, v)| (format!("{{{}}}", n), escape_delimiter(v))));
    if args.is_none() && variables.is_empty() {
        return body.to_string();
    }
    let (raw, given_words) = match args {
        None => (String::new(), None),
        Some(Args::Line(line)) => (line.clone(), None), // split only when a placeholder needs a word
        Some(Args::Words(words)) => (words.join(" "), Some(words.as_slice())),
    };
    if !body.contains('$') {
        return if args.is_some() { appended(body.to_string(), &raw) } else { body.to_string() };
    }
    let mut sub = Substitution {
        raw: &raw,
        given_words,
        words: None,
        named: named_positions(names),
        given: args.is_some(),
        variables,
        used: false,
    };
    let out = sub.run(body);
    if args.is_some() && !sub.used {
        return appended(out, &raw);
    }
    out
}

/// Unused arguments, appended as Claude Code does: after the body as it is, no newline after.
fn appended(body: String, raw: &str) -> String {
    if raw.is_empty() {
        return body;
    }
    body + "\n\nARGUMENTS: " + &escape_delimiter(raw)
}

/// The words of an argument line: shell-style, or split on whitespace when its quotes do not
/// balance.
fn split_args(line: &str) -> Vec<String> {
    crate::shlex::split(line).unwrap_or_else(|_| split_whitespace(line))
}

/// The `arguments:` frontmatter list (the build wrote a list; a string is read as its words).
pub fn names(value: Option<&Json>) -> Vec<String> {
    match value {
        Some(Json::Str(s)) => split_whitespace(s),
        Some(Json::Array(items)) => items.iter().filter_map(|v| v.as_str().map(str::to_string)).collect(),
        _ => Vec::new(),
    }
}

/// Usable names with the position each stands for (the first, when a name repeats: Claude Code
/// replaces every `$name` with it), in the order they are tried: longest first, then first seen.
fn named_positions(names: &[String]) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for (i, n) in names.iter().enumerate() {
        if is_name_arg(n) && !out.iter().any(|(m, _)| m == n) {
            out.push((n.clone(), i));
        }
    }
    out.sort_by_key(|(name, _)| std::cmp::Reverse(name.len())); // stable, as Python's sorted
    out
}

/// A usable `arguments:` name: `[A-Za-z_][A-Za-z0-9_-]*`.
fn is_name_arg(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().map_or(false, |c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

struct Substitution<'a> {
    raw: &'a str,
    given_words: Option<&'a [String]>,
    /// The words, split and delimiter-escaped on first use (a body may need none).
    words: Option<Vec<String>>,
    named: Vec<(String, usize)>,
    given: bool,
    /// `{NAME}` and the value of `${NAME}`, for the variables given.
    variables: Vec<(String, String)>,
    /// Whether an argument placeholder was used.
    used: bool,
}

impl Substitution<'_> {
    fn words(&mut self) -> &[String] {
        if self.words.is_none() {
            let escaped = match self.given_words {
                Some(words) => words.iter().map(|w| escape_delimiter(w)).collect(),
                None => split_args(self.raw).iter().map(|w| escape_delimiter(w)).collect(),
            };
            self.words = Some(escaped);
        }
        self.words.as_deref().unwrap_or_default()
    }

    /// The body with every placeholder replaced: a scan from one `$` to the next (nothing else
    /// starts a placeholder); replaced text is never scanned again.
    fn run(&mut self, body: &str) -> String {
        let mut out = String::with_capacity(body.len());
        let mut last = 0;
        let mut next = body.find('$');
        while let Some(at) = next {
            if self.given && self.escaped(body, at) {
                out.push_str(&body[last..at - 1]); // drop the backslash; the `$` stays as written
                last = at;
            } else if let Some((end, value)) = self.at(body, at) {
                out.push_str(&body[last..at]);
                out.push_str(&value);
                last = end;
            }
            let from = last.max(at + 1);
            next = body[from..].find('$').map(|i| from + i);
        }
        out.push_str(&body[last..]);
        out
    }

    /// (end, replacement) of the placeholder whose `$` is at byte `at`, tried in Claude Code's
    /// order: variables, names, `$ARGUMENTS[N]`, `$N`, `$ARGUMENTS`; None when nothing is replaced.
    fn at(&mut self, body: &str, at: usize) -> Option<(usize, String)> {
        let start = at + 1;
        let rest = &body[start..];
        if rest.starts_with('{') {
            return self
                .variables
                .iter()
                .find(|(token, _)| rest.starts_with(token.as_str()))
                .map(|(token, value)| (start + token.len(), value.clone()));
        }
        if !self.given {
            return None;
        }
        if let Some((end, i)) = self.name_at(body, start) {
            self.used = true; // a name is a use even when its word is missing
            return Some((end, self.words().get(i).cloned().unwrap_or_default()));
        }
        if let Some(inner) = rest.strip_prefix("ARGUMENTS[") {
            let n = digit_run(inner);
            if n > 0 && inner[n..].starts_with(']') {
                return Some(self.indexed(body, &inner[..n], at, start + 10 + n + 1));
            }
        }
        let n = digit_run(rest);
        if n > 0 {
            if is_word(rest.as_bytes().get(n).copied()) {
                return None; // `$1x`: not a placeholder
            }
            return Some(self.indexed(body, &rest[..n], at, start + n));
        }
        if rest.starts_with("ARGUMENTS") {
            self.used = true; // whatever follows (`$ARGUMENTS_x`)
            return Some((start + 9, escape_delimiter(self.raw)));
        }
        None
    }

    /// An indexed word; without one, the placeholder stays and is not a use.
    fn indexed(&mut self, body: &str, digits: &str, at: usize, end: usize) -> (usize, String) {
        match index(digits).and_then(|i| self.words().get(i).cloned()) {
            Some(word) => {
                self.used = true;
                (end, word)
            }
            None => (end, body[at..end].to_string()),
        }
    }

    /// (end, position) of the usable name at byte `start` (longest first), unless `[` or a word
    /// character follows it.
    fn name_at(&self, body: &str, start: usize) -> Option<(usize, usize)> {
        let rest = &body[start..];
        self.named.iter().find_map(|(name, i)| {
            let after = rest.strip_prefix(name.as_str())?.as_bytes().first().copied();
            (after != Some(b'[') && !is_word(after)).then_some((start + name.len(), *i))
        })
    }

    /// Whether the `$` at byte `at` follows one backslash (itself not after a backslash) and
    /// starts what Claude Code escapes: a digit, `ARGUMENTS`, or a name.
    fn escaped(&self, body: &str, at: usize) -> bool {
        let bytes = body.as_bytes();
        if at == 0 || bytes[at - 1] != b'\\' || (at > 1 && bytes[at - 2] == b'\\') {
            return false;
        }
        let rest = &body[at + 1..];
        rest.as_bytes().first().map_or(false, u8::is_ascii_digit)
            || rest.starts_with("ARGUMENTS")
            || self.name_at(body, at + 1).is_some()
    }
}

/// The value of an index as parseInt reads it (`$01` is word 1); None for a huge one, which
/// names no word.
fn index(digits: &str) -> Option<usize> {
    let significant = digits.trim_start_matches('0');
    if significant.len() >= 10 {
        return None;
    }
    Some(significant.parse::<usize>().unwrap_or(0))
}

/// The length of the run of ASCII digits at the start (only ASCII digits: other scripts' are a
/// set that grows with Unicode).
fn digit_run(text: &str) -> usize {
    text.bytes().take_while(u8::is_ascii_digit).count()
}

/// `\w` of Claude Code's patterns (no `u` flag): an ASCII letter, digit or `_`.
fn is_word(b: Option<u8>) -> bool {
    b.map_or(false, |b| b.is_ascii_alphanumeric() || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sub(body: &str, args: &str) -> String {
        substitute(body, Some(&Args::from(args)), &["who".to_string()], None, &Params::new())
    }

    #[test]
    fn placeholders() {
        assert_eq!(sub("$0 $1 $who $ARGUMENTS[1] $ARGUMENTS", "a 'b c'"), "a b c a b c a 'b c'");
        assert_eq!(sub("\\$0 \\\\$0 \\\\\\$0 $5", "a"), "$0 \\\\a \\\\\\a $5");
        assert_eq!(sub("no placeholder", "x y"), "no placeholder\n\nARGUMENTS: x y");
        assert_eq!(sub("$\u{661}", "a b"), "$\u{661}\n\nARGUMENTS: a b");
    }

    #[test]
    fn claude_code_ends_and_uses() {
        assert_eq!(
            sub("$1x $1-x $ARGUMENTS_x $01 $who-x $who[0] $whox", "a b"),
            "$1x b-x a b_x b a-x $who[0] $whox"
        );
        assert_eq!(sub("\\$1x \\$whox costs $5\n", "a b"), "$1x \\$whox costs $5\n\n\nARGUMENTS: a b");
        let names = ["n".to_string(), "m".to_string(), "n".to_string()];
        assert_eq!(substitute("$n", Some(&Args::from("a b")), &names, None, &Params::new()), "a");
    }

    #[test]
    fn params_fill_only_their_variables() {
        let params = Params::from_pairs([("CLAUDE_EFFORT", "high"), ("CLAUDE_SESSION_ID", "s")]).unwrap();
        let body = "${CLAUDE_EFFORT} \\${CLAUDE_SESSION_ID} ${CLAUDE_PROJECT_DIR} \\$0";
        assert_eq!(substitute(body, None, &[], None, &params), "high \\s ${CLAUDE_PROJECT_DIR} \\$0");
        assert_eq!(params.get("CLAUDE_EFFORT"), Some("high"));
        assert!(Params::new().with("CLAUDE_SKILL_DIR", "/s").is_err());
        assert!(Params::new().with("SESSION", "x").is_err());
    }
}
