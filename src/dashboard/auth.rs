//! Who may use the dashboard: the per-install token, the session cookie derived from it,
//! the one-time sign-in code, and the CSRF value every form carries.

use crate::http::same;
use sha2::{Digest, Sha256};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The session cookie's name.
pub const COOKIE: &str = "slm_session";
/// How long the one-time sign-in code `slm dashboard` prints (and opens) stays valid.
/// Chosen: long enough to open a browser, short enough that a code in a terminal's
/// scrollback is of no use later.
pub const ONE_TIME_CODE_LIFE: Duration = Duration::from_secs(120);

pub struct Keys {
    token: String,
    session: String,
    csrf: String,
    codes: Mutex<Vec<(String, Instant)>>,
}

fn derive(label: &str, token: &str) -> String {
    let mut h = Sha256::new();
    h.update(label.as_bytes());
    h.update([0]);
    h.update(token.as_bytes());
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

impl Keys {
    pub fn new(token: String) -> Keys {
        Keys {
            session: derive("slm-dashboard-session", &token),
            csrf: derive("slm-dashboard-csrf", &token),
            token,
            codes: Mutex::new(Vec::new()),
        }
    }

    /// A fresh one-time sign-in code (valid for [`ONE_TIME_CODE_LIFE`], once).
    pub fn one_time_code(&self) -> String {
        let code = random_hex(16);
        if let Ok(mut c) = self.codes.lock() {
            c.push((code.clone(), Instant::now()));
        }
        code
    }

    /// Use up a one-time code: true when it was valid.
    pub fn redeem(&self, code: &str) -> bool {
        let Ok(mut codes) = self.codes.lock() else {
            return false;
        };
        codes.retain(|(_, at)| at.elapsed() < ONE_TIME_CODE_LIFE);
        match codes.iter().position(|(c, _)| same(c, code)) {
            Some(i) => {
                codes.remove(i);
                true
            }
            None => false,
        }
    }

    pub fn token_ok(&self, given: &str) -> bool {
        same(given.trim(), &self.token)
    }

    pub fn session_ok(&self, given: &str) -> bool {
        same(given, &self.session)
    }

    pub fn csrf_ok(&self, given: &str) -> bool {
        same(given, &self.csrf)
    }

    pub fn csrf(&self) -> &str {
        &self.csrf
    }

    /// The `Set-Cookie` value that signs a browser in.
    pub fn cookie(&self) -> String {
        format!(
            "{COOKIE}={}; Path=/; HttpOnly; SameSite=Strict",
            self.session
        )
    }
}

/// The value of `name` in a `Cookie` header.
pub fn cookie_value<'a>(header: &'a str, name: &str) -> Option<&'a str> {
    header.split(';').find_map(|kv| {
        let (k, v) = kv.trim().split_once('=')?;
        (k == name).then_some(v)
    })
}

fn random_hex(n: usize) -> String {
    use std::io::Read;
    let mut bytes = vec![0u8; n];
    if std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .is_err()
    {
        // No /dev/urandom: the clock and the pid, hashed (a code that works once, briefly).
        let seed = format!("{:?}{}", std::time::SystemTime::now(), std::process::id());
        return derive("slm-dashboard-code", &seed)[..2 * n].to_string();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cookie_and_csrf_are_derived_and_a_code_works_once() {
        let k = Keys::new("t".repeat(64));
        assert!(k.token_ok(&"t".repeat(64)) && !k.token_ok("t"));
        let c = k.cookie();
        assert!(c.contains("HttpOnly") && c.contains("SameSite=Strict"));
        assert!(
            !c.contains(&"t".repeat(64)),
            "the cookie never holds the token"
        );
        let v = cookie_value(&c, COOKIE).unwrap();
        assert!(k.session_ok(v) && !k.session_ok("x"));
        assert!(k.csrf_ok(k.csrf()) && !k.csrf_ok(v));
        let code = k.one_time_code();
        assert!(k.redeem(&code) && !k.redeem(&code));
        assert_eq!(cookie_value("a=1; slm_session=z", COOKIE), Some("z"));
    }
}
