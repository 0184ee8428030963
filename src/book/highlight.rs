//! HLO syntax highlighting at build time (the book runs no script for it): code blocks whose
//! info string is `hlo` or `hlo-test` become `<pre><code class="hlo">` with spans for keywords,
//! opcodes, shapes, attribute keys, names and numbers; an `hlo-test` block's run lines (`arg:`,
//! `expected:` ...) get their key highlighted and their literal's shape. Runnable examples also
//! get the `xla-spec run` command that runs them, with a copy button.

use super::source::escape_html;
use crate::types::ElementType;
use std::collections::HashSet;

/// Whether a fenced block with this info string holds HLO.
pub fn is_hlo(info: &str) -> bool {
    matches!(info.split_whitespace().next(), Some("hlo" | "hlo-test"))
}

fn span(class: &str, text: &str) -> String {
    format!("<span class=\"hl-{class}\">{}</span>", escape_html(text))
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-' || c == '%'
}

/// The names a module defines: instructions (`name = ...`) and computations (`name {`).
fn defined_names(code: &str) -> HashSet<String> {
    let mut names = HashSet::new();
    for line in code.lines() {
        let t = line.trim_start();
        let t = t.strip_prefix("ROOT ").unwrap_or(t);
        let t = t.strip_prefix("ENTRY ").unwrap_or(t);
        let word: String = t.chars().take_while(|c| is_word_char(*c)).collect();
        if word.is_empty() {
            continue;
        }
        let rest = t[word.len()..].trim_start();
        if rest.starts_with('=') || rest.starts_with('{') || rest.starts_with('(') {
            names.insert(word.trim_start_matches('%').to_string());
        }
    }
    names
}

/// Highlights one line of HLO (module text or a literal).
fn line_html(line: &str, names: &HashSet<String>) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_ascii_alphabetic() || c == '_' || c == '%' {
            let start = i;
            while i < chars.len() && is_word_char(chars[i]) {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let next = chars.get(i).copied();
            let bare = word.trim_start_matches('%');
            if (ElementType::from_name(&word).is_some() || word == "token") && next == Some('[') {
                // A shape: the element type, its dimensions and an optional layout.
                let mut depth = 0;
                while i < chars.len() {
                    match chars[i] {
                        '[' | '{' => depth += 1,
                        ']' | '}' => depth -= 1,
                        _ => {}
                    }
                    i += 1;
                    if depth == 0 {
                        if chars.get(i) == Some(&'{') && chars[i - 1] == ']' {
                            continue;
                        }
                        break;
                    }
                }
                let text: String = chars[start..i].iter().collect();
                out += &span("shape", &text);
            } else if matches!(word.as_str(), "HloModule" | "ENTRY" | "ROOT") {
                out += &span("kw", &word);
            } else if next == Some('=') {
                out += &span("attr", &word);
            } else if next == Some('(') && !names.contains(bare) {
                out += &span("op", &word);
            } else if names.contains(bare) {
                out += &span("name", &word);
            } else if matches!(word.as_str(), "true" | "false" | "inf" | "nan") {
                out += &span("num", &word);
            } else {
                out += &escape_html(&word);
            }
        } else if c.is_ascii_digit()
            || (c == '-' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let start = i;
            i += 1;
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric() || matches!(chars[i], '.' | '_' | '+'))
            {
                i += 1;
            }
            let text: String = chars[start..i].iter().collect();
            out += &span("num", &text);
        } else {
            out += &escape_html(&c.to_string());
            i += 1;
        }
    }
    out
}

/// The HTML of an HLO code block (without the surrounding `<pre>`).
pub fn hlo_html(code: &str) -> String {
    let names = defined_names(code.split("\n---\n").next().unwrap_or(code));
    let mut in_run = false;
    let mut out = String::new();
    for line in code.split_inclusive('\n') {
        let (body, nl) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        if body.trim() == "---" {
            in_run = true;
            out += &span("sep", body);
        } else if in_run {
            match body.split_once(':') {
                Some((key, rest)) if !key.contains(' ') => {
                    out += &span("key", &format!("{key}:"));
                    out += &line_html(rest, &HashSet::new());
                }
                _ => out += &line_html(body, &HashSet::new()),
            }
        } else {
            out += &line_html(body, &names);
        }
        out += nl;
    }
    out
}

/// Quotes a shell argument.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// The `xla-spec run` command for an `hlo-test` example, and a shell snippet that writes the
/// module (and infeed) files and runs it. `None` for an example without a `---` part.
pub fn run_command(name: &str, body: &str) -> Option<(String, String)> {
    let (module, run) = body.split_once("\n---\n")?;
    let mut args: Vec<String> = vec![];
    let mut replicas = None;
    let mut infeed: Vec<serde_json::Value> = vec![];
    for line in run.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match key.trim() {
            "arg" => args.push(sh_quote(value)),
            "replicas" => replicas = Some(value.to_string()),
            "infeed" => {
                if let Ok(l) = crate::hlo::parse_literal(value) {
                    infeed.push(crate::literal::literal_to_json(&l));
                }
            }
            _ => {}
        }
    }
    let file = format!("{name}.hlo");
    let mut cmd = format!("xla-spec run {file}");
    if let Some(n) = &replicas {
        cmd += &format!(" --replicas {n}");
    }
    let mut snippet = format!("cat > {file} <<'EOF'\n{}\nEOF\n", module.trim_end());
    if !infeed.is_empty() {
        let json = format!("{name}.infeed.json");
        cmd += &format!(" --infeed {json}");
        snippet += &format!(
            "cat > {json} <<'EOF'\n{}\nEOF\n",
            serde_json::Value::Array(infeed)
        );
    }
    for a in &args {
        cmd += " ";
        cmd += a;
    }
    snippet += &cmd;
    snippet += "\n";
    Some((cmd, snippet))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opcodes_shapes_attributes_and_names_get_spans() {
        let code = "HloModule m\nENTRY main {\n  p = f32[2,3]{1,0} parameter(0)\n  ROOT r = f32[3] reduce(p, z), dimensions={0}, to_apply=add\n}\n---\narg: f32[2,3] {{1, 2, 3}, {4, 5, 6}}\n";
        let h = hlo_html(code);
        assert!(h.contains("<span class=\"hl-kw\">HloModule</span>"), "{h}");
        assert!(
            h.contains("<span class=\"hl-shape\">f32[2,3]{1,0}</span>"),
            "{h}"
        );
        assert!(h.contains("<span class=\"hl-op\">parameter</span>"), "{h}");
        assert!(h.contains("<span class=\"hl-op\">reduce</span>"), "{h}");
        assert!(
            h.contains("<span class=\"hl-attr\">dimensions</span>"),
            "{h}"
        );
        assert!(h.contains("<span class=\"hl-name\">p</span>"), "{h}");
        assert!(h.contains("<span class=\"hl-key\">arg:</span>"), "{h}");
        assert!(h.contains("<span class=\"hl-num\">0</span>"), "{h}");
        let plain: String = {
            let mut s = String::new();
            let mut tag = false;
            for c in h.chars() {
                match c {
                    '<' => tag = true,
                    '>' => tag = false,
                    _ if !tag => s.push(c),
                    _ => {}
                }
            }
            s
        };
        assert_eq!(plain, code, "highlighting keeps the text");
    }

    #[test]
    fn the_run_command_lists_the_arguments_and_replicas() {
        let body = "HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n---\nreplicas: 2\nreplica: 0\narg: f32[] 1\nexpected: f32[] 1\nreplica: 1\narg: f32[] 2\nexpected: f32[] 2";
        let (cmd, snippet) = run_command("ex", body).unwrap();
        assert_eq!(cmd, "xla-spec run ex.hlo --replicas 2 'f32[] 1' 'f32[] 2'");
        assert!(
            snippet.starts_with("cat > ex.hlo <<'EOF'\nHloModule m\n"),
            "{snippet}"
        );
        assert!(snippet.ends_with(&format!("{cmd}\n")), "{snippet}");
    }
}
