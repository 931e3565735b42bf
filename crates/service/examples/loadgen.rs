//! A constant-rate HTTP load: `loadgen URL RATE SECONDS [CONNECTIONS]` sends GET URL at RATE
//! requests a second for SECONDS over keep-alive connections and prints the latency percentiles.
//! Open loop: each request's latency is counted from the moment it was *due*, so a slow server
//! cannot hide its stalls by slowing the load down (coordinated omission).
//!
//! Used by `scripts/bench_service.sh`; plain HTTP/1.1 over loopback, no TLS.

use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

async fn one(conn: &mut BufReader<TcpStream>, req: &[u8]) -> std::io::Result<u16> {
    conn.get_mut().write_all(req).await?;
    let mut line = String::new();
    conn.read_line(&mut line).await?;
    let status: u16 = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let mut len = 0usize;
    loop {
        line.clear();
        conn.read_line(&mut line).await?;
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                len = v.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0u8; len];
    conn.read_exact(&mut body).await?;
    Ok(status)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: loadgen http://HOST:PORT/PATH RATE SECONDS [CONNECTIONS]");
        std::process::exit(2);
    }
    let url = args[1].strip_prefix("http://").expect("an http:// URL");
    let (host, path) = url
        .split_once('/')
        .map_or((url, "/".to_string()), |(h, p)| (h, format!("/{p}")));
    let rate: f64 = args[2].parse().expect("RATE");
    let secs: f64 = args[3].parse().expect("SECONDS");
    let conns: usize = args.get(4).map_or(8, |c| c.parse().expect("CONNECTIONS"));
    let total = (rate * secs) as usize;
    let interval = Duration::from_secs_f64(1.0 / rate);
    let req =
        format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: text/html\r\n\r\n").into_bytes();
    let start = Instant::now() + Duration::from_millis(200);
    let mut tasks = Vec::new();
    for c in 0..conns {
        let host = host.to_string();
        let req = req.clone();
        tasks.push(tokio::spawn(async move {
            let mut conn = BufReader::new(TcpStream::connect(&host).await.expect("connect"));
            let mut lat = Vec::new();
            let mut bad = 0u64;
            let mut k = c;
            while k < total {
                let due = start + interval * k as u32;
                tokio::time::sleep_until(due.into()).await;
                match one(&mut conn, &req).await {
                    Ok(200) => lat.push(due.elapsed()),
                    _ => {
                        bad += 1;
                        conn = BufReader::new(TcpStream::connect(&host).await.expect("connect"));
                    }
                }
                k += conns;
            }
            (lat, bad)
        }));
    }
    let mut all = Vec::new();
    let mut bad = 0;
    for t in tasks {
        let (l, b) = t.await.expect("a load task");
        all.extend(l);
        bad += b;
    }
    all.sort();
    if all.is_empty() {
        println!("requests {total} ok 0 failed {bad}: no request succeeded (HTTP 200)");
        std::process::exit(1);
    }
    let p = |q: f64| all[((all.len() as f64 - 1.0) * q).round() as usize].as_secs_f64() * 1000.0;
    println!(
        "requests {} ok {} failed {bad} rate {rate}/s  latency ms: p50 {:.2} p90 {:.2} p99 {:.2} max {:.2}",
        total,
        all.len(),
        p(0.5),
        p(0.9),
        p(0.99),
        p(1.0)
    );
}
