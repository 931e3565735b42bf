//! What a jail costs at start-up: `/bin/true` started N times plain and N times jailed,
//! interleaved, mean wall time of each (the shared machine's noise hits both alike).
//!
//! ```sh
//! cargo run --release -p pitboss-jail --example spawn_cost -- 200
//! ```

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pitboss_jail::{features, Jail, JailSpec};

fn main() {
    let n: u32 = std::env::args()
        .nth(1)
        .map_or(100, |a| a.parse().expect("N"));
    println!("{}", features().describe());
    let (mut plain, mut jailed) = (Duration::ZERO, Duration::ZERO);
    for _ in 0..n {
        let t = Instant::now();
        let st = Command::new("/bin/true")
            .stdin(Stdio::null())
            .status()
            .expect("spawn");
        assert!(st.success());
        plain += t.elapsed();

        let t = Instant::now();
        let mut jail = Jail::prepare(&JailSpec {
            workdir: "/".into(),
            ..JailSpec::default()
        })
        .expect("jail");
        let mut cmd = Command::new("/bin/true");
        cmd.stdin(Stdio::null());
        jail.install(&mut cmd);
        let st = cmd.status().expect("spawn");
        jail.cleanup();
        assert!(st.success(), "{st}");
        jailed += t.elapsed();
    }
    let ms = |d: Duration| d.as_secs_f64() * 1000.0 / f64::from(n);
    println!(
        "{n} starts each: plain {:.2} ms, jailed {:.2} ms (prepare, spawn, wait, cgroup removal)",
        ms(plain),
        ms(jailed)
    );
}
