//! Secrets are never stored: before a memory is written, the well-known shapes of
//! credentials in its text are replaced by `[redacted: KIND]` ([`redact_secrets`]).
//!
//! Every pattern is a named entry of [`PATTERNS`]: its kind (what the marker and the
//! acknowledgement say), where its shape comes from (the vendor's documented token format),
//! and a regular expression. A pattern with a `secret` group replaces only that group (an
//! assignment keeps its name, a connection string its user and host); one without replaces
//! the whole match. The patterns run in order, most specific first, and a later pattern
//! never touches a marker an earlier one left (`token=ghp_…` is one github token, not also
//! a token assignment).
//!
//! The shapes are chosen to be certain rather than complete: a vendor prefix and length, or
//! a name that says "secret" followed by `=` or `:`. Ordinary prose ("the password policy
//! changed", "token bucket rate limiter"), git hashes, UUIDs and version strings are never
//! touched; `fixtures/secrets/ordinary.txt` and `fixtures/secrets/fake-secrets.txt` are the
//! two corpora the tests hold this to. `--allow-secrets` (`remember`, `import`) stores a
//! text as given.

use regex::Regex;
use std::borrow::Cow;
use std::sync::LazyLock;

/// One well-known secret shape.
pub struct SecretPattern {
    /// What it is, as the marker and the acknowledgement name it ("github token").
    pub kind: &'static str,
    /// Where the shape comes from.
    pub source: &'static str,
    /// The expression; a `secret` group, when present, is the part replaced.
    pub regex: &'static str,
    /// A further check on the replaced part (None: every match is a secret).
    pub check: Option<fn(&str, &regex::Captures) -> bool>,
}

/// The marker a secret of `kind` is replaced with.
pub fn marker(kind: &str) -> String {
    format!("[redacted: {kind}]")
}

/// A value made of letters and digits both (real keys are random; words are not).
fn has_digit_and_letter(s: &str, _: &regex::Captures) -> bool {
    s.chars().any(|c| c.is_ascii_digit()) && s.chars().any(|c| c.is_ascii_alphabetic())
}

/// An assignment's value. `name=value`, `name = value`, a quoted value and `name:value` are
/// always values; `name: word` in prose ("password: see the vault", "token: per-request")
/// is one only when it looks like a credential: a digit or a symbol in it (past a closing
/// full stop), or 16 characters or more.
fn assigned_value(s: &str, c: &regex::Captures) -> bool {
    let sep = c.name("sep").map_or("", |m| m.as_str());
    let quoted = c.name("q").is_some_and(|m| !m.as_str().is_empty());
    let loose = sep.contains(':') && sep.ends_with(char::is_whitespace) && !quoted;
    if !loose {
        return true;
    }
    let s = s.trim_end_matches(['.', '!', '?', ')', ':']);
    s.chars().count() >= 16 || s.chars().any(|c| !c.is_alphabetic() && c != '-')
}

/// The known shapes, in the order they are applied (most specific first).
pub const PATTERNS: &[SecretPattern] = &[
    SecretPattern {
        kind: "private key",
        source: "PEM (RFC 7468): -----BEGIN … PRIVATE KEY----- … -----END … PRIVATE KEY----- (RSA, EC, DSA, OPENSSH, ENCRYPTED, PKCS#8)",
        regex: r"(?s)-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----",
        check: None,
    },
    SecretPattern {
        kind: "private key",
        source: "a PEM private key block cut off before its END line: the rest of its base64 body",
        regex: r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[A-Za-z0-9+/=:,\-\s]*",
        check: None,
    },
    SecretPattern {
        kind: "anthropic key",
        source: "Anthropic API keys: sk-ant- then the key type and version (sk-ant-api03-…, sk-ant-admin01-…)",
        regex: r"\bsk-ant-[A-Za-z0-9_\-]{20,}",
        check: None,
    },
    SecretPattern {
        kind: "stripe key",
        source: "Stripe API keys: sk_live_, sk_test_, rk_live_, rk_test_ (secret and restricted keys) then base62",
        regex: r"\b[sr]k_(?:live|test)_[A-Za-z0-9]{10,}",
        check: None,
    },
    SecretPattern {
        kind: "openai key",
        source: "OpenAI API keys: sk- (legacy, 48 base62), sk-proj-, sk-svcacct-, sk-admin- then base64url",
        regex: r"\bsk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{20,}|[A-Za-z0-9]{20,})",
        check: Some(has_digit_and_letter),
    },
    SecretPattern {
        kind: "github token",
        source: "GitHub token formats: ghp_ (classic personal), gho_ (OAuth), ghu_ (user-to-server), ghs_ (server-to-server), ghr_ (refresh) then 36 base62",
        regex: r"\bgh[pousr]_[A-Za-z0-9]{30,}",
        check: None,
    },
    SecretPattern {
        kind: "github token",
        source: "GitHub fine-grained personal access tokens: github_pat_ then base62 and underscores",
        regex: r"\bgithub_pat_[A-Za-z0-9_]{22,}",
        check: None,
    },
    SecretPattern {
        kind: "gitlab token",
        source: "GitLab personal, project and group access tokens: glpat- then 20 or more base64url",
        regex: r"\bglpat-[A-Za-z0-9_\-]{20,}",
        check: None,
    },
    SecretPattern {
        kind: "slack token",
        source: "Slack tokens: xoxb- (bot), xoxa-/xoxp- (user), xoxr- (refresh), xoxs- (session) then dash-separated parts",
        regex: r"\bxox[baprs]-[A-Za-z0-9\-]{10,}",
        check: None,
    },
    SecretPattern {
        kind: "slack webhook",
        source: "Slack incoming webhooks and workflow triggers: https://hooks.slack.com/services/T…/B…/…",
        regex: r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/\-]+",
        check: None,
    },
    SecretPattern {
        kind: "aws access key",
        source: "AWS access key ids (IAM unique identifiers): AKIA (long-term), ASIA (temporary), ABIA, ACCA then 16 of A-Z2-7",
        regex: r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b",
        check: None,
    },
    SecretPattern {
        kind: "aws secret key",
        source: "AWS secret access keys (40 base64 characters) after aws_secret_access_key, as the AWS CLI's credentials file and environment name them",
        regex: r#"(?i)aws_?secret_?access_?key["']?\s*[:=]\s*["']?(?P<secret>[A-Za-z0-9/+=]{40})"#,
        check: None,
    },
    SecretPattern {
        kind: "google api key",
        source: "Google Cloud API keys: AIza then 35 base64url characters",
        regex: r"\bAIza[0-9A-Za-z_\-]{35}",
        check: None,
    },
    SecretPattern {
        kind: "jwt",
        source: "JSON Web Tokens (RFC 7519): three base64url parts joined by dots, the header a JSON object (eyJ…)",
        regex: r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
        check: None,
    },
    SecretPattern {
        kind: "connection password",
        source: "URLs with a password (RFC 3986 userinfo, scheme://user:password@host): postgres, mysql, mongodb, redis, amqp, https",
        regex: r"\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/@]*:(?P<secret>[^\s@/]+)@[^\s@/]",
        check: None,
    },
    SecretPattern {
        kind: "bearer token",
        source: "HTTP bearer credentials (RFC 6750): Authorization: Bearer then a token of 20 or more characters",
        regex: r"(?i)\bbearer\s+(?P<secret>[A-Za-z0-9\-._~+/]{20,}=*)",
        check: Some(has_digit_and_letter),
    },
    SecretPattern {
        kind: "password",
        source: "assignments in config files, environment variables, URLs and connection strings: password=, passwd:, DB_PASSWORD=",
        regex: r#"(?i)\b(?P<name>[A-Za-z0-9_.\-]*(?:password|passwd))["']?(?P<sep>\s*[:=]\s*)(?P<q>["']?)(?P<secret>[^\s"',;&]+)"#,
        check: Some(assigned_value),
    },
    SecretPattern {
        kind: "secret",
        source: "assignments: secret=, client_secret:, SECRET_KEY=",
        regex: r#"(?i)\b(?P<name>[A-Za-z0-9_.\-]*secret(?:[_\-]?key)?)["']?(?P<sep>\s*[:=]\s*)(?P<q>["']?)(?P<secret>[^\s"',;&]+)"#,
        check: Some(assigned_value),
    },
    SecretPattern {
        kind: "token",
        source: "assignments: token=, access_token:, GITHUB_TOKEN=, ?token= in a URL",
        regex: r#"(?i)\b(?P<name>[A-Za-z0-9_.\-]*token)["']?(?P<sep>\s*[:=]\s*)(?P<q>["']?)(?P<secret>[^\s"',;&]+)"#,
        check: Some(assigned_value),
    },
    SecretPattern {
        kind: "api key",
        source: "assignments: api_key=, apikey:, x-api-key:, OPENAI_API_KEY=",
        regex: r#"(?i)\b(?P<name>[A-Za-z0-9_.\-]*api[_\-]?key)["']?(?P<sep>\s*[:=]\s*)(?P<q>["']?)(?P<secret>[^\s"',;&]+)"#,
        check: Some(assigned_value),
    },
];

static COMPILED: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    PATTERNS
        .iter()
        .map(|p| Regex::new(p.regex).expect("a secret pattern compiles"))
        .collect()
});

/// A text with its secrets replaced, and the kind of each one replaced (in the order met).
#[derive(Debug, Clone, PartialEq)]
pub struct Redaction<'a> {
    pub text: Cow<'a, str>,
    pub kinds: Vec<&'static str>,
}

/// Replace every well-known secret in `text` by `[redacted: KIND]`. A text without one is
/// returned borrowed, unchanged.
pub fn redact_secrets(text: &str) -> Redaction<'_> {
    let mut out: Cow<'_, str> = Cow::Borrowed(text);
    let mut kinds = Vec::new();
    for (p, re) in PATTERNS.iter().zip(COMPILED.iter()) {
        let mut spans: Vec<(usize, usize)> = Vec::new();
        for c in re.captures_iter(&out) {
            let m = c
                .name("secret")
                .unwrap_or_else(|| c.get(0).expect("group 0"));
            let s = m.as_str();
            // What an earlier pattern left is not a secret again.
            if s.starts_with("[redacted") || s.is_empty() {
                continue;
            }
            if let Some(check) = p.check {
                if !check(s, &c) {
                    continue;
                }
            }
            spans.push((m.start(), m.end()));
        }
        if spans.is_empty() {
            continue;
        }
        let mark = marker(p.kind);
        let mut next = String::with_capacity(out.len());
        let mut at = 0;
        for (a, b) in &spans {
            next.push_str(&out[at..*a]);
            next.push_str(&mark);
            at = *b;
            kinds.push(p.kind);
        }
        next.push_str(&out[at..]);
        out = Cow::Owned(next);
    }
    Redaction { text: out, kinds }
}

/// "1 secret redacted: github token", "3 secrets redacted: aws access key, password" (the
/// kinds once each, in the order met); empty for none.
pub fn redaction_summary(kinds: &[impl AsRef<str>]) -> String {
    if kinds.is_empty() {
        return String::new();
    }
    let mut names: Vec<&str> = Vec::new();
    for k in kinds {
        if !names.contains(&k.as_ref()) {
            names.push(k.as_ref());
        }
    }
    format!(
        "{} secret{} redacted: {}",
        kinds.len(),
        if kinds.len() == 1 { "" } else { "s" },
        names.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus(name: &str) -> Vec<String> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/secrets")
            .join(name);
        std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .map(str::to_string)
            .collect()
    }

    /// The secret part of each fake line: what follows the last `=`/`:` when the line names
    /// one, else the token itself. Checked loosely: no long random run may survive.
    fn survives(original: &str, redacted: &str) -> Option<String> {
        // Any run of 16+ word characters with a digit that was in the original and is
        // still in the redacted text is a leak.
        let run = Regex::new(r"[A-Za-z0-9_+/\-]{16,}").unwrap();
        run.find_iter(original)
            .map(|m| m.as_str())
            .filter(|s| s.chars().any(|c| c.is_ascii_digit()))
            .find(|s| redacted.contains(s))
            .map(str::to_string)
    }

    #[test]
    fn every_fake_secret_is_redacted() {
        let lines = corpus("fake-secrets.txt");
        assert!(lines.len() >= 40, "{} lines", lines.len());
        let mut failed = Vec::new();
        for l in &lines {
            let r = redact_secrets(l);
            if r.kinds.is_empty() {
                failed.push(format!("not redacted: {l}"));
            } else if let Some(s) = survives(l, &r.text) {
                failed.push(format!("{s:?} survives in {:?}", r.text));
            }
        }
        assert!(failed.is_empty(), "{}", failed.join("\n"));
    }

    #[test]
    fn ordinary_notes_pass_untouched() {
        let lines = corpus("ordinary.txt");
        assert!(lines.len() >= 40, "{} lines", lines.len());
        let changed: Vec<String> = lines
            .iter()
            .filter_map(|l| {
                let r = redact_secrets(l);
                (r.text != l.as_str()).then(|| format!("{l}\n  -> {}", r.text))
            })
            .collect();
        assert!(changed.is_empty(), "changed:\n{}", changed.join("\n"));
    }

    #[test]
    fn every_kind_has_a_fake_in_the_corpus() {
        let lines = corpus("fake-secrets.txt");
        let mut met: Vec<&str> = lines.iter().flat_map(|l| redact_secrets(l).kinds).collect();
        met.sort_unstable();
        met.dedup();
        for p in PATTERNS {
            assert!(met.contains(&p.kind), "no fake {} in the corpus", p.kind);
        }
    }

    #[test]
    fn names_users_and_hosts_are_kept() {
        let r = redact_secrets("DB: postgres://app:s3cr3t-pass@db.internal:5432/main");
        assert_eq!(
            r.text,
            "DB: postgres://app:[redacted: connection password]@db.internal:5432/main"
        );
        let r = redact_secrets("export DB_PASSWORD=hunter2 and api_key: \"abc123def\"");
        assert_eq!(
            r.text,
            "export DB_PASSWORD=[redacted: password] and api_key: \"[redacted: api key]\""
        );
        assert_eq!(r.kinds, vec!["password", "api key"]);
    }

    #[test]
    fn a_token_in_an_assignment_is_one_secret() {
        let t = "GITHUB_TOKEN=ghp_FAKEfake0123456789FAKEfake0123456789";
        let r = redact_secrets(t);
        assert_eq!(r.text, "GITHUB_TOKEN=[redacted: github token]");
        assert_eq!(r.kinds, vec!["github token"]);
    }

    #[test]
    fn a_private_key_block_goes_whole() {
        let t = "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEFAKEFAKE\nFAKE==\n-----END RSA PRIVATE KEY-----\nafter";
        let r = redact_secrets(t);
        assert_eq!(r.text, "key:\n[redacted: private key]\nafter");
    }

    #[test]
    fn prose_about_secrets_is_kept() {
        for t in [
            "password: see the vault",
            "token: bucket",
            "the password policy changed",
            "secret: none",
        ] {
            assert_eq!(redact_secrets(t).text, t);
        }
        assert!(!redact_secrets("password: hunter22").kinds.is_empty());
    }

    #[test]
    fn the_summary_names_each_kind_once() {
        let none: &[&str] = &[];
        assert_eq!(redaction_summary(none), "");
        assert_eq!(
            redaction_summary(&["github token"]),
            "1 secret redacted: github token"
        );
        assert_eq!(
            redaction_summary(&["password", "jwt", "password"]),
            "3 secrets redacted: password, jwt"
        );
    }
}
