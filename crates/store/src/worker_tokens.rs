//! Tokens of remote workers (`pitboss worker --token`): they may download any bundle by its hash,
//! which no bot author's token may (a bundle is its author's code). Kept apart from accounts, in
//! `DIR/worker-tokens` (one `NAME SHA256-OF-TOKEN` a line, 0600): only hashes are stored, and
//! revoking one is removing its line.

use std::io::Write;

use crate::{hash_token, new_token, Files, Result, StoreError};

const FILE: &str = "worker-tokens";

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'+'))
}

impl Files {
    fn worker_token_lines(&self) -> Result<Vec<(String, String)>> {
        let p = self.root().join(FILE);
        match std::fs::read_to_string(&p) {
            Ok(t) => Ok(t
                .lines()
                .filter_map(|l| {
                    let (n, h) = l.trim().split_once(' ')?;
                    Some((n.to_string(), h.trim().to_string()))
                })
                .collect()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(StoreError::io(&p)(e)),
        }
    }

    fn write_worker_tokens(&self, lines: &[(String, String)]) -> Result<()> {
        use std::os::unix::fs::OpenOptionsExt;
        let p = self.root().join(FILE);
        let tmp = self
            .root()
            .join("tmp")
            .join(format!("{FILE}-{}", std::process::id()));
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)
            .map_err(StoreError::io(&tmp))?;
        for (n, h) in lines {
            writeln!(f, "{n} {h}").map_err(StoreError::io(&tmp))?;
        }
        f.sync_all().map_err(StoreError::io(&tmp))?;
        std::fs::rename(&tmp, &p).map_err(StoreError::io(&p))?;
        Ok(())
    }

    /// A new worker token named `name` (returned once; only its hash is kept).
    ///
    /// # Errors
    /// A bad or taken name, or the file cannot be written.
    pub fn create_worker_token(&self, name: &str) -> Result<String> {
        if !valid_name(name) {
            return Err(StoreError::Invalid(format!(
                "worker name {name:?}: 1 to 64 of ASCII letters, digits, _ . + -"
            )));
        }
        let mut lines = self.worker_token_lines()?;
        if lines.iter().any(|(n, _)| n == name) {
            return Err(StoreError::Conflict(format!(
                "a worker token named {name} exists (revoke it first)"
            )));
        }
        let tok = format!("pbw_{}", new_token().trim_start_matches("pb_"));
        lines.push((name.to_string(), hash_token(&tok)));
        self.write_worker_tokens(&lines)?;
        Ok(tok)
    }

    /// Removes the worker token `name`; false when there was none.
    ///
    /// # Errors
    /// When the file cannot be written.
    pub fn revoke_worker_token(&self, name: &str) -> Result<bool> {
        let mut lines = self.worker_token_lines()?;
        let before = lines.len();
        lines.retain(|(n, _)| n != name);
        if lines.len() == before {
            return Ok(false);
        }
        self.write_worker_tokens(&lines)?;
        Ok(true)
    }

    /// The name of the worker whose token this is, if any (compared by hash).
    ///
    /// # Errors
    /// When the file cannot be read.
    pub fn worker_by_token(&self, token: &str) -> Result<Option<String>> {
        if token.is_empty() {
            return Ok(None);
        }
        let h = hash_token(token);
        Ok(self
            .worker_token_lines()?
            .into_iter()
            .find(|(_, x)| *x == h)
            .map(|(n, _)| n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worker_tokens_are_found_by_hash_and_revoked() {
        let d = tempfile::tempdir().unwrap();
        let f = Files::new(d.path()).unwrap();
        let t = f.create_worker_token("w1").unwrap();
        assert!(f.create_worker_token("w1").is_err());
        assert!(f.create_worker_token("../x").is_err());
        assert_eq!(f.worker_by_token(&t).unwrap().as_deref(), Some("w1"));
        assert_eq!(f.worker_by_token("pbw_nope").unwrap(), None);
        assert_eq!(f.worker_by_token("").unwrap(), None);
        let text = std::fs::read_to_string(d.path().join(FILE)).unwrap();
        assert!(!text.contains(&t), "only the hash is stored");
        assert!(f.revoke_worker_token("w1").unwrap());
        assert_eq!(f.worker_by_token(&t).unwrap(), None);
        assert!(!f.revoke_worker_token("w1").unwrap());
    }
}
