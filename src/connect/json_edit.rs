//! Text-preserving edits of a JSON file: slm inserts or removes one member or array item
//! at a time and leaves every other byte as the user wrote it (their indentation, key
//! order, spacing and line ends), instead of re-serialising the whole document.
//!
//! The file is first checked with serde_json, so a malformed file is refused with its line
//! and column; then a small scanner records where each value starts and ends, and an edit
//! splices text at those offsets. The inserted text copies the indentation of its
//! neighbours (or the file's indent unit, for an empty container).

use crate::{Error, Result};
use serde_json::Value;
use std::path::Path;

/// One step of a path into the document: an object's key or an array's index.
#[derive(Debug, Clone, Copy)]
pub(super) enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

#[derive(Debug)]
struct Node {
    start: usize,
    end: usize,
    kind: Kind,
}

#[derive(Debug)]
enum Kind {
    Object(Vec<(String, usize, Node)>),
    Array(Vec<Node>),
    Scalar,
}

impl Node {
    /// The (start, end) of each child: a member from its key to the end of its value.
    fn children(&self) -> Vec<(usize, usize)> {
        match &self.kind {
            Kind::Object(m) => m.iter().map(|(_, k, v)| (*k, v.end)).collect(),
            Kind::Array(a) => a.iter().map(|v| (v.start, v.end)).collect(),
            Kind::Scalar => Vec::new(),
        }
    }
}

/// A JSON document as text, with the spans of its values.
pub(super) struct Doc {
    pub text: String,
    root: Node,
}

/// Check `text` as strict JSON; a failure names the file, the line and the column.
pub(super) fn check(text: &str, file: &Path) -> Result<Value> {
    serde_json::from_str::<Value>(text).map_err(|e| {
        let msg = e.to_string();
        let what = msg.split(" at line ").next().unwrap_or(&msg).to_string();
        Error::Input(format!(
            "{} is not valid JSON at line {}, column {}: {what}; slm changed nothing (fix it, or edit it by hand)",
            file.display(),
            e.line(),
            e.column()
        ))
    })
}

impl Doc {
    /// Parse `text` (blank text counts as `{}`); the root must be an object.
    pub fn parse(text: &str, file: &Path) -> Result<Doc> {
        let text = if text.trim().is_empty() {
            "{}\n".to_string()
        } else {
            text.to_string()
        };
        if !check(&text, file)?.is_object() {
            return Err(Error::Input(format!(
                "{} holds JSON that is not an object; slm changed nothing",
                file.display()
            )));
        }
        let root = Scanner {
            s: text.as_bytes(),
            i: 0,
        }
        .value()
        .ok_or_else(|| Error::Other(format!("could not scan {}", file.display())))?;
        Ok(Doc { text, root })
    }

    /// The document as a serde_json value (for reading what is there).
    pub fn value(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or(Value::Null)
    }

    fn find(&self, path: &[Step]) -> Option<&Node> {
        let mut n = &self.root;
        for step in path {
            n = match (step, &n.kind) {
                (Step::Key(k), Kind::Object(m)) => &m.iter().rev().find(|(key, _, _)| key == k)?.2,
                (Step::Index(i), Kind::Array(a)) => a.get(*i)?,
                _ => return None,
            };
        }
        Some(n)
    }

    fn reparse(&mut self, text: String) {
        self.root = Scanner {
            s: text.as_bytes(),
            i: 0,
        }
        .value()
        .expect("an edit keeps the JSON valid");
        self.text = text;
    }

    /// Add `key: value` to the object at `path` (or push `value` when `key` is None and
    /// the container is an array). Returns false when `path` is not such a container.
    pub fn insert<T: serde::Serialize>(
        &mut self,
        path: &[Step],
        key: Option<&str>,
        value: &T,
    ) -> bool {
        let Some(c) = self.find(path) else {
            return false;
        };
        match (&c.kind, key) {
            (Kind::Object(_), Some(_)) | (Kind::Array(_), None) => {}
            _ => return false,
        }
        let t = &self.text;
        let unit = indent_unit(t);
        let piece = |base: &str, pretty: bool| -> String {
            let v = if pretty {
                render(value, &unit, base)
            } else {
                serde_json::to_string(value).expect("a Value serialises")
            };
            match key {
                Some(k) => format!("{}: {v}", serde_json::to_string(k).expect("a key")),
                None => v,
            }
        };
        let children = c.children();
        let new = if let Some(&(ls, le)) = children.last() {
            let mut j = ls;
            while j > 0 && t.as_bytes()[j - 1].is_ascii_whitespace() {
                j -= 1;
            }
            let lead = &t[j..ls];
            let pretty = lead.contains('\n');
            let base = lead.rsplit('\n').next().unwrap_or("");
            format!("{},{lead}{}{}", &t[..le], piece(base, pretty), &t[le..])
        } else {
            let (open, close) = (c.start + 1, c.end - 1);
            if t.contains('\n') {
                let line_start = t[..c.start].rfind('\n').map_or(0, |p| p + 1);
                let base: String = t[line_start..]
                    .chars()
                    .take_while(|ch| *ch == ' ' || *ch == '\t')
                    .collect();
                let inner = format!("{base}{unit}");
                format!(
                    "{}\n{inner}{}\n{base}{}",
                    &t[..open],
                    piece(&inner, true),
                    &t[close..]
                )
            } else {
                format!("{}{}{}", &t[..open], piece("", false), &t[close..])
            }
        };
        self.reparse(new);
        true
    }

    /// Remove the member or item at `path` (its last step names it in its container),
    /// with the comma and spacing that went with it. Returns false when it is not there.
    pub fn remove(&mut self, path: &[Step]) -> bool {
        let Some((last, parent)) = path.split_last() else {
            return false;
        };
        let Some(c) = self.find(parent) else {
            return false;
        };
        let k = match (last, &c.kind) {
            (Step::Key(key), Kind::Object(m)) => {
                match m.iter().rposition(|(name, _, _)| name == key) {
                    Some(k) => k,
                    None => return false,
                }
            }
            (Step::Index(i), Kind::Array(a)) if *i < a.len() => *i,
            _ => return false,
        };
        let ch = c.children();
        let t = &self.text;
        let new = if ch.len() == 1 {
            format!("{}{}", &t[..c.start + 1], &t[c.end - 1..])
        } else if k > 0 {
            format!("{}{}", &t[..ch[k - 1].1], &t[ch[k].1..])
        } else {
            format!("{}{}", &t[..ch[0].0], &t[ch[1].0..])
        };
        self.reparse(new);
        true
    }
}

/// The file's indent unit: a tab when lines are tab-indented, else the smallest run of
/// leading spaces (two when nothing is indented).
fn indent_unit(t: &str) -> String {
    let mut spaces = usize::MAX;
    for line in t.lines() {
        if line.starts_with('\t') {
            return "\t".into();
        }
        let n = line.len() - line.trim_start_matches(' ').len();
        if n > 0 && n < line.len() {
            spaces = spaces.min(n);
        }
    }
    " ".repeat(if spaces == usize::MAX { 2 } else { spaces })
}

/// `value` pretty-printed with `unit` per level, its inner lines starting at `base`.
/// (A struct keeps its fields in order, as a person would write them.)
fn render<T: serde::Serialize>(value: &T, unit: &str, base: &str) -> String {
    let mut out = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
    value.serialize(&mut ser).expect("a Value serialises");
    String::from_utf8(out)
        .expect("serde_json writes UTF-8")
        .replace('\n', &format!("\n{base}"))
}

/// A scanner over text serde_json already accepted: it records spans, it does not check.
struct Scanner<'a> {
    s: &'a [u8],
    i: usize,
}

impl Scanner<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn string(&mut self) -> Option<String> {
        let start = self.i;
        self.i += 1;
        while *self.s.get(self.i)? != b'"' {
            self.i += if self.s[self.i] == b'\\' { 2 } else { 1 };
        }
        self.i += 1;
        serde_json::from_slice(&self.s[start..self.i]).ok()
    }

    fn value(&mut self) -> Option<Node> {
        self.ws();
        let start = self.i;
        let kind = match *self.s.get(self.i)? {
            b'{' => {
                self.i += 1;
                let mut members = Vec::new();
                loop {
                    self.ws();
                    match *self.s.get(self.i)? {
                        b'}' => break,
                        b',' => self.i += 1,
                        _ => {
                            let key_start = self.i;
                            let key = self.string()?;
                            self.ws();
                            self.i += 1; // the colon
                            let v = self.value()?;
                            members.push((key, key_start, v));
                        }
                    }
                }
                self.i += 1;
                Kind::Object(members)
            }
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                loop {
                    self.ws();
                    match *self.s.get(self.i)? {
                        b']' => break,
                        b',' => self.i += 1,
                        _ => items.push(self.value()?),
                    }
                }
                self.i += 1;
                Kind::Array(items)
            }
            b'"' => {
                self.string()?;
                Kind::Scalar
            }
            _ => {
                while self.i < self.s.len()
                    && !matches!(self.s[self.i], b',' | b']' | b'}')
                    && !self.s[self.i].is_ascii_whitespace()
                {
                    self.i += 1;
                }
                Kind::Scalar
            }
        };
        Some(Node {
            start,
            end: self.i,
            kind,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(t: &str) -> Doc {
        Doc::parse(t, Path::new("t.json")).unwrap()
    }

    #[test]
    fn insert_copies_the_neighbours_layout_and_remove_undoes_it() {
        let t = "{\n    \"a\": 1,\n    \"b\": {\"x\": [1, 2]}\n}\n";
        let mut d = doc(t);
        assert!(d.insert(&[], Some("c"), &json!({"k": ["v"]})));
        assert_eq!(
            d.text,
            "{\n    \"a\": 1,\n    \"b\": {\"x\": [1, 2]},\n    \"c\": {\n        \"k\": [\n            \"v\"\n        ]\n    }\n}\n"
        );
        assert!(d.remove(&[Step::Key("c")]));
        assert_eq!(d.text, t);
        assert!(d.remove(&[Step::Key("a")]));
        assert_eq!(d.text, "{\n    \"b\": {\"x\": [1, 2]}\n}\n");
    }

    #[test]
    fn empty_containers_and_one_line_files() {
        let mut d = doc("{}");
        assert!(d.insert(&[], Some("a"), &json!([])));
        assert_eq!(d.text, "{\"a\": []}");
        assert!(d.insert(&[Step::Key("a")], None, &json!(1)));
        assert_eq!(d.text, "{\"a\": [1]}");
        let mut d = doc("{\n\t\"a\": {}\n}");
        assert!(d.insert(&[Step::Key("a")], Some("b"), &json!(true)));
        assert_eq!(d.text, "{\n\t\"a\": {\n\t\t\"b\": true\n\t}\n}");
        assert!(d.remove(&[Step::Key("a"), Step::Key("b")]));
        assert_eq!(d.text, "{\n\t\"a\": {}\n}");
    }

    #[test]
    fn a_malformed_file_names_its_line_and_column() {
        let e = Doc::parse("{\n  \"a\": 1\n  \"b\": 2\n}", Path::new("x.json"))
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("x.json") && e.contains("line 3, column 3"),
            "{e}"
        );
    }
}
