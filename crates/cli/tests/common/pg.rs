//! A private PostgreSQL server (initdb into the test's folder, a free port), for the tests that
//! stop and start it. Run as root, its programs run as the `postgres` user (initdb refuses
//! root); run as anyone else, as that user.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The PostgreSQL programs (Debian keeps them in /usr/lib/postgresql/VERSION/bin).
fn pg_bin(prog: &str) -> PathBuf {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL's programs in /usr/lib/postgresql (apt-get install postgresql)")
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("bin").join(prog))
        .filter(|p| p.exists())
        .collect();
    found.sort();
    found.pop().unwrap_or_else(|| panic!("{prog} not found"))
}

fn is_root() -> bool {
    // SAFETY: getuid has no preconditions.
    unsafe { libc::getuid() == 0 }
}

fn pg(prog: &str, args: &[&str]) -> std::process::Output {
    let mut c = if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(pg_bin(prog));
        c
    } else {
        Command::new(pg_bin(prog))
    };
    c.args(args).output().unwrap()
}

/// The server, stopped (and its folder removed) when dropped.
pub struct Postgres {
    dir: PathBuf,
    port: u16,
}

impl Postgres {
    /// A new cluster in `dir` (made; beneath a test's [`super::tmp::Tmp`]), started.
    pub fn new(dir: &Path) -> Postgres {
        std::fs::create_dir_all(dir).unwrap();
        if is_root() {
            assert!(Command::new("chown")
                .args(["postgres:postgres"])
                .arg(dir)
                .status()
                .unwrap()
                .success());
        }
        let port = super::nats::free_port();
        let data = dir.join("data");
        let o = pg(
            "initdb",
            &[
                "-D",
                data.to_str().unwrap(),
                "-A",
                "trust",
                "-U",
                "postgres",
            ],
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let p = Postgres {
            dir: dir.to_path_buf(),
            port,
        };
        p.start();
        p
    }

    fn ctl(&self, args: &[&str]) -> std::process::Output {
        let data = self.dir.join("data");
        let mut all = vec!["-D", data.to_str().unwrap()];
        all.extend_from_slice(args);
        pg("pg_ctl", &all)
    }

    pub fn start(&self) {
        let opts = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1",
            self.port,
            self.dir.display()
        );
        let log = self.dir.join("log");
        let o = self.ctl(&["-o", &opts, "-l", log.to_str().unwrap(), "-w", "start"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }

    /// Stopped at once (`-m immediate`: as if its machine went away, no clean shutdown).
    pub fn stop(&self) {
        let o = self.ctl(&["-m", "immediate", "-w", "stop"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }

    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let _ = self.ctl(&["-m", "immediate", "-w", "stop"]);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
